"""Precondition check: the sequences are a FASTA of enough distinctly named, non-empty sequences.

Runs before the multiple sequence alignment (requires_three_sequences: at least three) and the tree inference
(requires_four_sequences: three have one unrooted topology, and IQ-TREE refuses to bootstrap fewer than four).
Reads every input whose datatype is sequence_set or multiple_sequence_alignment (plain or gzip FASTA; an alignment
also as PHYLIP with its names apart from the residues, or Clustal, as the tree tools read them). The tree
tools cut a sequence name at its first space and refuse two sequences of one name (IQ-TREE stops, FastTree stops
on a duplicate), so every name (the header's first word) must be unique; an empty sequence cannot be aligned. On
success writes the `ok` sentinel with the number of sequences and the length range; on failure names the file,
the sequences at fault and what to do, and exits 1.
"""

import gzip
import re
import zlib

import bioplan_step
from bioplan_step import as_list, check_failed, passed

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)

MINIMUM = {"requires_three_sequences": 3, "requires_four_sequences": 4}
READS = ("sequence_set", "multiple_sequence_alignment")
PHYLIP_HEAD = re.compile(rb"^\s*\d+\s+\d+\s*$")


def letters(residues):
    """The residues of an aligned row besides its gaps."""
    return len(residues) - residues.count(b"-") - residues.count(b".")


def read_aligned(lines):
    """[(name, length, line)] of a PHYLIP ('ntaxa nchar', a name and residues per row, later blocks appended in
    turn) or Clustal alignment ('CLUSTAL' head, blocks of 'name residues' rows), in file order."""
    rows = [(n, ln) for n, ln in enumerate(lines, 1) if ln.strip()]
    head = rows[0][1].split()
    records = {}
    if head[0] == b"CLUSTAL":
        seen = {}  # a name's rows in the current block: a name twice in one block is two sequences of one name
        for number, line in enumerate(lines, 1):
            words = line.split()
            if not line.strip() or line[:1].isspace():
                seen = {} if not line.strip() else seen
                continue
            if number > rows[0][0] and len(words) >= 2:
                key = (words[0], seen.get(words[0], 0))
                seen[words[0]] = key[1] + 1
                rec = records.setdefault(key, [words[0].decode("utf-8", "replace"), 0, number])
                rec[1] += letters(words[1])
        return list(records.values())
    ntaxa = int(head[0])
    records = [[line.split()[0].decode("utf-8", "replace"), letters(b"".join(line.split()[1:])), number]
               for number, line in rows[1:ntaxa + 1]]
    for i, (_, line) in enumerate(rows[ntaxa + 1:] if len(records) == ntaxa else []):
        records[i % ntaxa][1] += letters(b"".join(line.split()))
    return records


def read_headers(path):
    """[(name, length)] of the FASTA records, in file order."""
    with open(path, "rb") as handle:
        opener = gzip.open if handle.read(2) == b"\x1f\x8b" else open
    records = []
    try:
        with opener(path, "rb") as handle:
            first = next((ln for ln in handle if ln.strip()), b"")
        if first.startswith(b"CLUSTAL") or PHYLIP_HEAD.match(first):
            with opener(path, "rb") as handle:
                return read_aligned(handle.read().splitlines())
        with opener(path, "rb") as handle:
            for number, line in enumerate(handle, 1):
                if line.startswith(b">"):
                    words = line[1:].split()
                    records.append([words[0].decode("utf-8", "replace") if words else "", 0, number])
                elif line.strip():
                    if not records:
                        check_failed(f"'{path}' line {number} comes before the first '>' header: not a FASTA file.")
                    records[-1][1] += len(line.strip())
    except (OSError, EOFError, zlib.error) as err:
        check_failed(f"'{path}' cannot be read ({err}): the file is truncated or corrupt.")
    return records


def check_set(path, minimum):
    records = read_headers(path)
    if len(records) < minimum:
        what = "aligning them" if minimum == 3 else "a tree (three have a single unrooted topology)"
        check_failed(f"'{path}' holds {len(records)} sequence(s); {what} needs at least {minimum}. Give all the "
                     "sequences in one multi-FASTA file.")
    unnamed = [line for name, _, line in records if not name]
    if unnamed:
        check_failed(f"'{path}': the headers on lines {unnamed[:5]} have no name. Name every sequence ('>taxon_1').")
    seen, dups = set(), []
    for name, _, _ in records:
        if name in seen and name not in dups:
            dups.append(name)
        seen.add(name)
    if dups:
        check_failed(f"'{path}' names several sequences alike (by the header's first word, as the tree tools read "
                     f"it): {', '.join(repr(d) for d in dups[:10])}. Give every sequence a name of its own.")
    empty = [name for name, length, _ in records if length == 0]
    if empty:
        check_failed(f"'{path}': sequences {', '.join(repr(e) for e in empty[:10])} are empty. Remove them.")
    lengths = [length for _, length, _ in records]
    return f"'{path}': {len(records)} sequences, {min(lengths)}-{max(lengths)} letters"


def main():
    step = bioplan_step.STEP
    minimum = MINIMUM.get(step.params.constraint, 3)
    datatypes = dict(step.params.datatypes or {})
    paths = [p for name, dt in datatypes.items() if dt in READS for p in as_list(getattr(step.input, name))]
    if not paths:
        check_failed(f"no input of datatype {' or '.join(READS)} to check (inputs: {', '.join(step.input.keys())})")
    passed("; ".join(check_set(path, minimum) for path in paths))


main()

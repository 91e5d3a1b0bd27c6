"""Precondition check: the reference genome input is a readable FASTA that names its sequences.

Run by the generated `check_<constraint>...` rule before the guarded step. Inputs have the
guarded step's names; params: constraint, guarded_step, datatypes (input name -> datatype id).
Every input whose datatype is reference_genome must exist, be non-empty, start with a '>'
header, name each sequence (no empty or duplicate names), hold no empty sequence and only
IUPAC nucleotide letters. Plain or gzip/bgzip-compressed files are read. On success the `ok`
sentinel lists the number of sequences, the total length and the first names; otherwise the
message names the file, says what is wrong and what to do, and the rule fails.
"""

import gzip
import os
import zlib

import bioplan_step
from bioplan_step import LOG, as_list, fail

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)


# IUPAC nucleotide codes (both cases), gap and masking characters, line endings
VALID = b"ACGTURYKMSWBDHVNacgturykmswbdhvn-.*\r\n"


def open_binary(path):
    with open(path, "rb") as handle:
        magic = handle.read(2)
    return gzip.open(path, "rb") if magic == b"\x1f\x8b" else open(path, "rb")


def scan_fasta(path, who):
    if not os.path.exists(path):
        fail(f"{who}: the file {path} does not exist. Check the genome path in config.yaml or on "
             "the command line.")
    if os.path.getsize(path) == 0:
        fail(f"{who}: {path} is empty. Download the genome FASTA again.")
    names, lengths, seen = [], [], set()
    current = None
    try:
        with open_binary(path) as handle:
            for number, line in enumerate(handle, 1):
                if line.startswith(b">"):
                    name = line[1:].strip().split(None, 1)[0].decode("utf-8", "replace") if line[1:].strip() else ""
                    if not name:
                        fail(f"{who}: {path} line {number} is a '>' header without a sequence name. "
                             "Every sequence needs a name (e.g. '>chr1').")
                    if name in seen:
                        fail(f"{who}: {path} names the sequence {name!r} twice (line {number}); "
                             "sequence names must be unique. Remove the duplicate.")
                    if current is not None and lengths[-1] == 0:
                        fail(f"{who}: {path}: sequence {names[-1]!r} is empty (no bases before line "
                             f"{number}). Remove it or fix the file.")
                    seen.add(name)
                    names.append(name)
                    lengths.append(0)
                    current = name
                    continue
                if current is None:
                    if not line.strip():
                        continue
                    text = line[:60].decode("utf-8", "replace").strip()
                    fail(f"{who}: {path} is not FASTA: its first line is {text!r}, a FASTA file starts "
                         "with a '>' header line. Give the genome as FASTA (.fa/.fasta/.fa.gz), not "
                         "GenBank, 2bit or an index.")
                bad = line.translate(None, VALID)
                if bad:
                    fail(f"{who}: {path} line {number} (sequence {current!r}) has characters that are "
                         f"not nucleotide codes: {bad[:10].decode('utf-8', 'replace')!r}. Is this a "
                         "protein FASTA or a damaged file?")
                lengths[-1] += len(line.strip())
    except (OSError, EOFError, zlib.error) as err:
        fail(f"{who}: {path} cannot be read ({err}): the file is truncated or corrupt. Download it "
             "again.")
    if not names:
        fail(f"{who}: {path} holds no '>' header: not a FASTA file.")
    if lengths[-1] == 0:
        fail(f"{who}: {path}: the last sequence {names[-1]!r} is empty. Remove it or fix the file.")
    return names, lengths


def main():
    params = snakemake.params
    datatypes = dict(params.get("datatypes", {}) or {})
    guarded = params.get("guarded_step", "the next step")
    names = [n for n in snakemake.input.keys() if datatypes.get(n) == "reference_genome"]
    if not names:
        fail(f"no input of datatype reference_genome among {', '.join(snakemake.input.keys())} "
             f"(datatypes: {datatypes}); the check rule for {guarded} was generated without the "
             "genome input.")
    with open(snakemake.output.ok, "w") as out:
        out.write(f"constraint\t{params.get('constraint', 'reference_genome')}\n")
        out.write(f"guarded_step\t{guarded}\n")
        for name in names:
            for path in as_list(snakemake.input[name]):
                seqs, lengths = scan_fasta(path, f"reference genome ({name}) for {guarded}")
                shown = ", ".join(seqs[:20]) + (f", ... ({len(seqs) - 20} more)" if len(seqs) > 20 else "")
                LOG.info("%s: %d sequences, %d bp: %s", path, len(seqs), sum(lengths), shown)
                out.write(f"genome\t{path}\n")
                out.write(f"sequences\t{len(seqs)}\n")
                out.write(f"total_length\t{sum(lengths)}\n")
                out.write(f"names\t{shown}\n")


main()

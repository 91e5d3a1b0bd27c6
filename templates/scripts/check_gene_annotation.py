"""Precondition check: the gene annotation parses and fits the reference genome.

Run by the generated `check_<constraint>...` rule before the guarded step. Inputs have the
guarded step's names; params: constraint, guarded_step, datatypes (input name -> datatype id).
Every input whose datatype is gene_annotation must be a GTF or GFF3 file (plain or gzipped)
whose records have 9 tab-separated columns, integer 1-based coordinates with start <= end and a
valid strand, and gene identifiers: gene_id attributes (GTF) or ID attributes (GFF3). If an
input of datatype reference_genome is present too, the annotation's sequence names must occur
in the genome (none in common fails, with a hint when only a "chr" prefix differs; some missing
or features past a sequence end are reported as warnings). On success the `ok` sentinel
summarises the annotation; otherwise the message names the file and line, says what is wrong
and what to do, and the rule fails.
"""

import gzip
import os
import re
import zlib
from collections import Counter

import bioplan_step
from bioplan_step import LOG, as_list, fail

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)


GTF_ATTR = re.compile(r'(\S+)\s+"([^"]*)"')


def open_text(path):
    with open(path, "rb") as handle:
        magic = handle.read(2)
    return gzip.open(path, "rt", errors="replace") if magic == b"\x1f\x8b" else open(path, errors="replace")


def genome_lengths(path):
    lengths = {}
    name = None
    with open(path, "rb") as handle:
        magic = handle.read(2)
    opener = gzip.open if magic == b"\x1f\x8b" else open
    try:
        with opener(path, "rb") as handle:
            for line in handle:
                if line.startswith(b">"):
                    fields = line[1:].split(None, 1)
                    name = fields[0].decode("utf-8", "replace") if fields else ""
                    lengths[name] = 0
                elif name is not None:
                    lengths[name] += len(line.strip())
    except (OSError, EOFError, zlib.error) as err:
        fail(f"cannot read the reference genome {path} ({err}).")
    return lengths


def parse_annotation(path, who):
    if not os.path.exists(path):
        fail(f"{who}: the file {path} does not exist. Check the annotation path in config.yaml or "
             "on the command line.")
    if os.path.getsize(path) == 0:
        fail(f"{who}: {path} is empty. Download the GTF/GFF3 again.")
    kind = None
    features = Counter()
    seqids = Counter()
    ends = {}
    with_id = without_id = 0
    genes = set()
    records = 0
    try:
        with open_text(path) as handle:
            for number, line in enumerate(handle, 1):
                if line.startswith("##gff-version"):
                    kind = "GFF3" if line.split()[1:2] and line.split()[1].startswith("3") else "GTF"
                if line.startswith("##FASTA"):
                    break
                if not line.strip() or line.startswith("#"):
                    continue
                fields = line.rstrip("\r\n").split("\t")
                if len(fields) != 9:
                    fail(f"{who}: {path} line {number} has {len(fields)} tab-separated columns, GTF/GFF3 "
                         f"records have 9 ({line.strip()[:80]!r}). Is this a BED, a table or a "
                         "space-separated file? Give a GTF or GFF3 annotation.")
                seqid, _, ftype, start, end, _, strand, _, attributes = fields
                if not (start.isdigit() and end.isdigit()) or int(start) < 1 or int(start) > int(end):
                    fail(f"{who}: {path} line {number}: start {start!r} and end {end!r} must be 1-based "
                         "integers with start <= end.")
                if strand not in ("+", "-", ".", "?"):
                    fail(f"{who}: {path} line {number}: strand {strand!r} must be +, -, . or ?.")
                if kind is None:
                    kind = "GFF3" if ("=" in attributes and '"' not in attributes) else "GTF"
                records += 1
                features[ftype] += 1
                seqids[seqid] += 1
                ends[seqid] = max(ends.get(seqid, 0), int(end))
                if kind == "GTF":
                    attrs = dict(GTF_ATTR.findall(attributes))
                    gene = attrs.get("gene_id")
                else:
                    attrs = dict(kv.strip().split("=", 1) for kv in attributes.strip(";").split(";") if "=" in kv)
                    gene = attrs.get("ID") if ftype == "gene" or ftype.endswith("_gene") else None
                    if "ID" not in attrs and "Parent" not in attrs:
                        without_id += 1
                        continue
                if kind == "GTF" and gene is None:
                    without_id += 1
                    continue
                with_id += 1
                if gene:
                    genes.add(gene)
    except (OSError, EOFError, zlib.error) as err:
        fail(f"{who}: {path} cannot be read ({err}): the file is truncated or corrupt. Download it again.")
    if records == 0:
        fail(f"{who}: {path} holds no annotation records.")
    if with_id == 0:
        what = "gene_id attributes" if kind == "GTF" else "ID or Parent attributes"
        fail(f"{who}: no record of {path} has {what}: it is not a usable {kind} gene annotation. "
             "Use an Ensembl/GENCODE/RefSeq GTF or GFF3.")
    if kind == "GFF3" and not genes:
        genes = {f"(no gene features; {features.most_common(1)[0][0]} records)"}
    if without_id:
        LOG.warning("%s: %d of %d records lack %s", path, without_id, records,
                    "gene_id" if kind == "GTF" else "ID/Parent")
    return kind, records, features, seqids, ends, genes, without_id


def main():
    params = snakemake.params
    datatypes = dict(params.get("datatypes", {}) or {})
    guarded = params.get("guarded_step", "the next step")
    ann_inputs = [n for n in snakemake.input.keys() if datatypes.get(n) == "gene_annotation"]
    genome_inputs = [n for n in snakemake.input.keys() if datatypes.get(n) == "reference_genome"]
    if not ann_inputs:
        fail(f"no input of datatype gene_annotation among {', '.join(snakemake.input.keys())} "
             f"(datatypes: {datatypes}); the check rule for {guarded} was generated without the "
             "annotation input.")
    genome = {}
    genome_paths = [p for n in genome_inputs for p in as_list(snakemake.input[n])]
    for path in genome_paths:
        genome.update(genome_lengths(path))
    out = open(snakemake.output.ok, "w")
    out.write(f"constraint\t{params.get('constraint', 'gene_annotation')}\n")
    out.write(f"guarded_step\t{guarded}\n")
    for name in ann_inputs:
        for path in as_list(snakemake.input[name]):
            who = f"gene annotation ({name}) for {guarded}"
            kind, records, features, seqids, ends, genes, without_id = parse_annotation(path, who)
            if genome_paths:
                common = [s for s in seqids if s in genome]
                if not common:
                    example_a, example_g = next(iter(seqids)), next(iter(genome), "?")
                    hint = ""
                    if any(("chr" + s) in genome for s in seqids) or any(s.startswith("chr") and s[3:] in genome for s in seqids):
                        hint = (" The names differ only by a 'chr' prefix (UCSC vs Ensembl style): use "
                                "an annotation and a genome from the same source.")
                    fail(f"{who}: none of the {len(seqids)} sequence names of {path} (e.g. "
                         f"{example_a!r}) is in the genome {', '.join(genome_paths)} (e.g. "
                         f"{example_g!r}).{hint} The annotation must describe the same assembly "
                         "as the genome.")
                missing = [s for s in seqids if s not in genome]
                if missing:
                    LOG.warning("%s: %d of %d sequence names are not in the genome (e.g. %s); their %d "
                                "records will be ignored by most tools", path, len(missing), len(seqids),
                                ", ".join(missing[:5]), sum(seqids[s] for s in missing))
                past = [s for s in common if ends[s] > genome[s]]
                if past:
                    LOG.warning("%s: features end past the sequence end on %s: is this annotation for "
                                "another assembly version?", path, ", ".join(past[:5]))
                out.write(f"genome_overlap\t{len(common)} of {len(seqids)} annotation sequences are in the genome\n")
            LOG.info("%s: %s, %d records, %d genes, %d sequences", path, kind, records, len(genes), len(seqids))
            out.write(f"annotation\t{path}\n")
            out.write(f"format\t{kind}\n")
            out.write(f"records\t{records}\n")
            out.write(f"genes\t{len(genes)}\n")
            out.write(f"features\t{', '.join(f'{k}={v}' for k, v in sorted(features.items()))}\n")
            out.write(f"sequences\t{', '.join(sorted(seqids)[:20])}\n")
    out.close()


main()

"""Gene-level raw count matrix from per-sample Salmon quant.sf files (no R needed).

Inputs:  quants     - Salmon output directories, one per sample (each holds quant.sf)
         annotation - GTF (transcript_id -> gene_id) or GFF3 (transcript ID -> Parent gene)
Params:  samples    - sample names, in the order of `quants`
Output:  counts     - TSV, genes x samples: `gene_id` then one column per sample; each cell is
                      the sum of Salmon's NumReads over the gene's transcripts, rounded half up
                      to an integer. Genes are sorted by id; genes of the annotation that no
                      transcript in quant.sf maps to are left out.

A Salmon transcript name is matched to the annotation as is, then with anything after the
first "|" removed (GENCODE FASTA headers), then without a ".N" version suffix (Ensembl cDNA
FASTA with an Ensembl GTF). Unmatched transcripts are reported in the log; if none match the
step fails and says so.
"""

import csv
import gzip
import logging
import math
import os
import re
import sys

log = logging.getLogger("salmon_to_gene_counts")


def fail(message):
    log.error(message)
    print(f"ERROR: {message}", file=sys.stderr)
    sys.exit(1)


def open_text(path):
    with open(path, "rb") as handle:
        magic = handle.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt")
    return open(path)


GTF_ATTR = re.compile(r'(\S+)\s+"([^"]*)"')


def strip_prefix(value):
    # Ensembl GFF3 ids look like "transcript:ENST..." / "gene:ENSG..."
    return value.split(":", 1)[1] if ":" in value else value


def read_tx2gene(path):
    """Map transcript id -> gene id from a GTF or a GFF3 file."""
    tx2gene = {}
    gff3_tx = {}  # GFF3: transcript ID -> Parent
    gff3_genes = set()
    is_gff3 = None
    try:
        with open_text(path) as handle:
            for number, line in enumerate(handle, 1):
                if line.startswith("##gff-version 3"):
                    is_gff3 = True
                if not line.strip() or line.startswith("#"):
                    continue
                fields = line.rstrip("\n").split("\t")
                if len(fields) != 9:
                    fail(f"{path} line {number}: {len(fields)} tab-separated columns instead of 9; "
                         "the annotation must be a GTF or GFF3 file.")
                attributes = fields[8]
                if is_gff3 is None:
                    is_gff3 = "=" in attributes and '"' not in attributes
                if is_gff3:
                    attrs = dict(kv.split("=", 1) for kv in attributes.strip(";").split(";") if "=" in kv)
                    if "ID" in attrs and "Parent" in attrs:
                        gff3_tx[attrs["ID"]] = attrs["Parent"].split(",")[0]
                    if (fields[2] == "gene" or fields[2].endswith("_gene")) and "ID" in attrs:
                        gff3_genes.add(attrs.get("ID"))
                else:
                    attrs = dict(GTF_ATTR.findall(attributes))
                    if "transcript_id" in attrs and "gene_id" in attrs:
                        tx2gene[attrs["transcript_id"]] = attrs["gene_id"]
    except (OSError, UnicodeDecodeError, EOFError) as err:
        fail(f"cannot read the annotation {path}: {err}")
    if is_gff3:
        for tx, parent in gff3_tx.items():
            if parent in gff3_genes or not gff3_genes:
                tx2gene[strip_prefix(tx)] = strip_prefix(parent)
    if not tx2gene:
        fail(f"{path} has no transcript -> gene records (GTF transcript_id/gene_id attributes, "
             "or GFF3 transcripts with ID and a gene Parent).")
    return tx2gene


def candidates(name):
    yield name
    base = name.split("|", 1)[0]
    yield base
    yield re.sub(r"\.\d+$", "", base)


def read_quant(path, sample):
    counts = {}
    try:
        with open(path, newline="") as handle:
            reader = csv.DictReader(handle, delimiter="\t")
            if not reader.fieldnames or "Name" not in reader.fieldnames or "NumReads" not in reader.fieldnames:
                fail(f"{path} (sample {sample}) has no Name/NumReads columns: not a Salmon quant.sf.")
            for row in reader:
                counts[row["Name"]] = float(row["NumReads"])
    except FileNotFoundError:
        fail(f"no quant.sf in {os.path.dirname(path)} (sample {sample}): not a Salmon output "
             "directory; rerun salmon quant for this sample.")
    except ValueError as err:
        fail(f"{path} (sample {sample}): non-numeric NumReads ({err}).")
    return counts


def main():
    quants = list(snakemake.input.quants) if not isinstance(snakemake.input.quants, str) else [snakemake.input.quants]
    samples = list(snakemake.params.get("samples", [])) or [os.path.basename(os.path.dirname(q.rstrip("/"))) for q in quants]
    if len(samples) != len(quants):
        fail(f"{len(quants)} Salmon directories but {len(samples)} sample names: the `samples` "
             "param must name every input, in order.")
    tx2gene = read_tx2gene(snakemake.input.annotation)
    log.info("%d transcripts in %d genes in %s", len(tx2gene), len(set(tx2gene.values())), snakemake.input.annotation)

    genes = {}
    mapping = {}
    for sample, qdir in zip(samples, quants):
        counts = read_quant(os.path.join(qdir, "quant.sf"), sample)
        unmatched = 0
        for name, value in counts.items():
            if name not in mapping:
                mapping[name] = next((tx2gene[c] for c in candidates(name) if c in tx2gene), None)
            gene = mapping[name]
            if gene is None:
                unmatched += 1
                continue
            genes.setdefault(gene, {}).setdefault(sample, 0.0)
            genes[gene][sample] += value
        if unmatched == len(counts):
            example = next(iter(counts), "?")
            fail(f"none of the {len(counts)} transcripts of sample {sample} (e.g. {example!r}) is in "
                 f"the annotation {snakemake.input.annotation}: the Salmon index was built from "
                 "another transcriptome than this GTF/GFF3 describes.")
        if unmatched:
            log.warning("sample %s: %d of %d transcripts are not in the annotation and were skipped",
                        sample, unmatched, len(counts))

    with open(snakemake.output.counts, "w", newline="") as out:
        writer = csv.writer(out, delimiter="\t", lineterminator="\n")
        writer.writerow(["gene_id"] + samples)
        for gene in sorted(genes):
            writer.writerow([gene] + [int(math.floor(genes[gene].get(s, 0.0) + 0.5)) for s in samples])
    log.info("wrote %d genes x %d samples to %s", len(genes), len(samples), snakemake.output.counts)


if __name__ == "__main__":
    logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(levelname)s %(message)s")
    main()

"""Gene-level raw count matrix from per-sample quantifier outputs (no R needed).

Inputs:  quants     - one per sample: a Salmon/Sailfish output folder or its quant.sf, a kallisto
                      folder or its abundance.tsv/abundance.h5, or RSEM's PREFIX.genes.results /
                      PREFIX.isoforms.results (or a folder holding them)
         annotation - GTF (transcript_id -> gene_id), GFF3 (transcript ID -> Parent gene) or a
                      tximport tx2gene table (transcript id, gene id; CSV/TSV, header optional)
Params:  samples    - sample names, in the order of `quants`
Output:  counts     - TSV, genes x samples: `gene_id` then one column per sample; each cell is
                      the sum of the estimated reads (Salmon NumReads, kallisto est_counts, RSEM
                      expected_count) over the gene's transcripts, rounded half up to an integer.
                      Genes are sorted by id; genes no quantified transcript maps to are left out.
                      RSEM genes.results are already per gene and are taken as they are.

A transcript name is matched to the annotation as is, then with anything after the first "|"
removed (GENCODE FASTA headers), then without a ".N" version suffix (Ensembl cDNA FASTA with an
Ensembl GTF); the annotation's ids are also tried without their version. Unmatched transcripts are
reported in the log; if none match the step fails and says so.
"""

import csv
import gzip
import math
import os
import re

import bioplan_step
from bioplan_step import LOG, fail

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)


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


def read_tx2gene_table(path):
    """Map transcript id -> gene id from a tximport tx2gene table (first two columns)."""
    with open_text(path) as handle:
        lines = [line.rstrip("\r\n") for line in handle if line.strip() and not line.startswith("#")]
    if not lines:
        fail(f"{path} is empty: expected a tx2gene table (transcript id, gene id).")
    delimiter = "\t" if "\t" in lines[0] else ","
    rows = [row for row in csv.reader(lines, delimiter=delimiter) if len(row) >= 2]
    if rows and rows[0][0].strip().lower().replace(" ", "_") in TX_HEADERS:
        rows = rows[1:]
    tx2gene = {row[0].strip(): row[1].strip() for row in rows if row[0].strip() and row[1].strip()}
    if not tx2gene:
        fail(f"{path} has no transcript id, gene id rows: not a tx2gene table.")
    return tx2gene


TX_HEADERS = {"txname", "tx_name", "tx_id", "txid", "transcript_id", "transcriptid", "transcript", "transcript_name",
              "ensembl_transcript_id", "transcript_stable_id", "target_id", "tx", "name"}


def is_gff(path):
    """True for a GTF/GFF3 (9 tab-separated columns with numeric start and end)."""
    with open_text(path) as handle:
        for line in handle:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            return len(fields) == 9 and fields[3].isdigit() and fields[4].isdigit()
    return False


def read_tx2gene(path):
    """Map transcript id -> gene id from a GTF, a GFF3 or a tx2gene table."""
    try:
        if not is_gff(path):
            return read_tx2gene_table(path)
    except (OSError, UnicodeDecodeError, EOFError, csv.Error) as err:
        fail(f"cannot read the annotation {path}: {err}")
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


# Per quantifier: the columns of the id and of the estimated reads, and whether rows are genes.
LAYOUTS = (
    ("salmon", "Name", "NumReads", False),
    ("sailfish", "Transcript", "EstimatedNumReads", False),
    ("kallisto", "target_id", "est_counts", False),
    ("rsem", "gene_id", "expected_count", True),  # genes.results: gene_id, transcript_id(s), ...
    ("rsem", "transcript_id", "expected_count", False),
)
# gzipped tables as archived folders keep them (tximportData's salmon/<sample>/quant.sf.gz)
MAIN_FILES = ("quant.sf", "quant.sf.gz", "abundance.tsv", "abundance.tsv.gz", "abundance.h5")


def quant_file(path, sample):
    """The table a quantifier output (folder or file) is read through."""
    if not os.path.isdir(path):
        if not os.path.exists(path):
            fail(f"{path} (sample {sample}) does not exist.")
        return path
    for name in MAIN_FILES:
        if os.path.exists(os.path.join(path, name)):
            return os.path.join(path, name)
    results = sorted(n for n in os.listdir(path) if n.endswith((".genes.results", ".isoforms.results",
                                                                  ".genes.results.gz", ".isoforms.results.gz")))
    if results:
        genes = [n for n in results if ".genes.results" in n]
        return os.path.join(path, (genes or results)[0])
    fail(f"{path} (sample {sample}) holds no quant.sf, abundance.tsv, abundance.h5 or RSEM *.results: "
         "not a Salmon, kallisto or RSEM output folder; rerun the quantification for this sample.")


def read_kallisto_h5(path, sample):
    try:
        import h5py
    except ImportError:
        fail(f"{path} (sample {sample}) is kallisto's abundance.h5; reading it needs h5py "
             "(pip install h5py), or give abundance.tsv instead.")
    with h5py.File(path, "r") as h5:
        ids = [i.decode() if isinstance(i, bytes) else str(i) for i in h5["aux"]["ids"][:]]
        counts = [float(x) for x in h5["est_counts"][:]]
    return dict(zip(ids, counts)), "kallisto", False


def read_quant(path, sample):
    """(id -> estimated reads, quantifier, rows are genes) of one sample's output."""
    path = quant_file(path, sample)
    if path.endswith(".h5"):
        return read_kallisto_h5(path, sample)
    counts = {}
    try:
        with open_text(path) as handle:
            lines = [line for line in handle if line.strip()]
        # Sailfish and early Salmon write '#' comment lines; the last one is the header then
        comments = [line for line in lines if line.startswith("#")]
        body = [line for line in lines if not line.startswith("#")]
        header = body[0].rstrip("\r\n").split("\t") if body else []
        if comments and body and not any(c in header for _, c, _, _ in LAYOUTS):
            header = comments[-1].lstrip("#").strip().split("\t")
        else:
            body = body[1:]
        layout = next((lay for lay in LAYOUTS if lay[1] in header and lay[2] in header
                       and header.index(lay[1]) == 0), None)
        if layout is None:
            fail(f"{path} (sample {sample}) has none of the known column layouts (Salmon Name/NumReads, "
                 f"kallisto target_id/est_counts, RSEM gene_id or transcript_id/expected_count); header: {header[:6]}")
        tool, id_col, count_col, genes = layout
        i, j = header.index(id_col), header.index(count_col)
        g = header.index("gene_id") if tool == "rsem" and not genes and "gene_id" in header else None
        own_genes = {}
        for row in csv.reader((line.rstrip("\r\n") for line in body), delimiter="\t"):
            counts[row[i]] = float(row[j])
            if g is not None:
                own_genes[row[i]] = row[g]
    except ValueError as err:
        fail(f"{path} (sample {sample}): non-numeric estimated reads ({err}).")
    except (OSError, UnicodeDecodeError, EOFError, IndexError) as err:
        fail(f"cannot read {path} (sample {sample}): {err}")
    return counts, tool, genes


def gene_of(name, tx2gene, unversioned):
    for c in candidates(name):
        if c in tx2gene:
            return tx2gene[c]
        if c in unversioned:
            return unversioned[c]
    return None


def main():
    quants = list(snakemake.input.quants) if not isinstance(snakemake.input.quants, str) else [snakemake.input.quants]
    samples = list(snakemake.params.get("samples", [])) or [
        os.path.basename(q.rstrip("/")) if os.path.isdir(q) else os.path.basename(os.path.dirname(os.path.abspath(q)))
        for q in quants]
    if len(samples) != len(quants):
        fail(f"{len(quants)} quantification outputs but {len(samples)} sample names: the `samples` "
             "param must name every input, in order.")
    if len(set(samples)) != len(samples):
        dup = sorted({s for s in samples if samples.count(s) > 1})
        fail(f"sample name(s) {', '.join(dup)} given to more than one quantification output: each sample once.")
    tx2gene = read_tx2gene(snakemake.input.annotation)
    # the annotation's ids without their version too (a GENCODE GTF with unversioned quant ids)
    unversioned = {re.sub(r"\.\d+$", "", tx): gene for tx, gene in tx2gene.items()}
    LOG.info("%d transcripts in %d genes in %s", len(tx2gene), len(set(tx2gene.values())), snakemake.input.annotation)

    genes = {}
    mapping = {}
    tools = set()
    for sample, qpath in zip(samples, quants):
        counts, tool, gene_level = read_quant(qpath, sample)
        tools.add(tool)
        unmatched = 0
        for name, value in counts.items():
            if gene_level:
                gene = name  # RSEM genes.results: already summed per gene
            else:
                if name not in mapping:
                    mapping[name] = gene_of(name, tx2gene, unversioned)
                gene = mapping[name]
            if gene is None:
                unmatched += 1
                continue
            genes.setdefault(gene, {}).setdefault(sample, 0.0)
            genes[gene][sample] += value
        if counts and unmatched == len(counts):
            example = next(iter(counts), "?")
            fail(f"none of the {len(counts)} transcripts of sample {sample} (e.g. {example!r}) is in "
                 f"the annotation {snakemake.input.annotation}: the transcriptome was quantified against "
                 "another annotation than this GTF/GFF3/tx2gene describes.")
        if unmatched:
            LOG.warning("sample %s: %d of %d transcripts are not in the annotation and were skipped",
                        sample, unmatched, len(counts))
        LOG.info("sample %s: %s output %s, %d rows", sample, tool, qpath, len(counts))
    if len(tools) > 1:
        LOG.warning("the samples come from different quantifiers (%s): their estimates may not be comparable",
                    ", ".join(sorted(tools)))

    with open(snakemake.output.counts, "w", newline="") as out:
        writer = csv.writer(out, delimiter="\t", lineterminator="\n")
        writer.writerow(["gene_id"] + samples)
        for gene in sorted(genes):
            writer.writerow([gene] + [int(math.floor(genes[gene].get(s, 0.0) + 0.5)) for s in samples])
    LOG.info("wrote %d genes x %d samples to %s", len(genes), len(samples), snakemake.output.counts)


main()

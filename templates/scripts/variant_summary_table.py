"""Summarise an annotated VCF into one tidy table of variant counts.

Input:  vcf   - VCF or VCF.gz annotated by SnpEff (INFO/ANN), Ensembl VEP (INFO/CSQ) or
                bcftools csq (INFO/BCSQ); the field is detected from the header.
Output: table - TSV with columns summary, category, count. Every count is a number of VCF
                records (a multi-allelic record counts once):
  total        variants     all records
  type         snv / indel / mnv / mixed / other   from REF and ALT lengths
  consequence  <term>       records with at least one annotation of that consequence
                            (terms split on "&"; "none" = record without annotation, except
                            with bcftools csq, which annotates only variants in transcripts:
                            there a record without INFO/BCSQ is "intergenic")
  impact       HIGH / MODERATE / LOW / MODIFIER    records with that impact (ANN, CSQ only)
  gene         <gene>       records with at least one annotation inside the gene (intergenic,
                            upstream_gene_variant and downstream_gene_variant annotations name a
                            nearby gene but do not count for it)
  sample       <sample>     records where the sample's GT carries a non-reference allele
Rows: total, type, consequence, impact, gene (each by decreasing count, then name), then the
samples in VCF column order.
"""

import csv
import gzip
import re
from collections import Counter

import bioplan_step
from bioplan_step import LOG, fail

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)


ANN_FIELDS = ["Allele", "Annotation", "Annotation_Impact", "Gene_Name", "Gene_ID", "Feature_Type"]
# Terms of a variant outside the gene an annotation names (SnpEff, VEP): not counted for the gene.
OUTSIDE_GENE = {"intergenic_region", "intergenic_variant", "upstream_gene_variant", "downstream_gene_variant"}
BCSQ_FIELDS = ["Consequence", "gene", "transcript", "biotype", "strand", "amino_acid_change", "dna_change"]


def open_vcf(path):
    try:
        with open(path, "rb") as handle:
            magic = handle.read(2)
    except OSError as err:
        fail(f"cannot open the VCF {path}: {err}")
    return gzip.open(path, "rt") if magic == b"\x1f\x8b" else open(path)


def header_format(line):
    match = re.search(r'Format: ?([^"]+)"', line)
    if not match:
        return None
    return [f.strip() for f in match.group(1).replace("'", "").split("|")]


def variant_type(ref, alts):
    kinds = set()
    for alt in alts:
        if alt in (".", "*") or alt.startswith("<") or "[" in alt or "]" in alt:
            kinds.add("other")
        elif len(ref) == 1 and len(alt) == 1:
            kinds.add("snv")
        elif len(ref) == len(alt):
            kinds.add("mnv")
        else:
            kinds.add("indel")
    return kinds.pop() if len(kinds) == 1 else "mixed"


def parse_annotations(field, value, fmt):
    """Yield (consequences, impact, gene, intergenic) per annotation entry."""
    for entry in value.split(","):
        if field == "BCSQ":
            if entry.startswith("@"):  # reference to a compound consequence at another position
                continue
            parts = entry.split("|")
            terms = [t.lstrip("*") for t in parts[0].split("&") if t]
            gene = parts[1] if len(parts) > 1 else ""
            yield terms, None, gene, False
            continue
        parts = entry.split("|")
        get = lambda name: parts[fmt[name]] if name in fmt and fmt[name] < len(parts) else ""
        if field == "ANN":
            terms = [t for t in get("Annotation").split("&") if t]
            impact = get("Annotation_Impact")
            gene = get("Gene_Name") or get("Gene_ID")
            intergenic = get("Feature_Type") == "intergenic_region" or set(terms) <= OUTSIDE_GENE
        else:  # CSQ (VEP)
            terms = [t for t in get("Consequence").split("&") if t]
            impact = get("IMPACT")
            gene = get("SYMBOL") or get("Gene")
            intergenic = set(terms) <= OUTSIDE_GENE
        yield terms, impact or None, ("" if intergenic else gene), intergenic


def carries_alt(gt):
    return any(a not in ("0", ".", "") for a in re.split(r"[/|]", gt))


def main():
    path = snakemake.input.vcf
    fields = {}
    samples = []
    counts = {k: Counter() for k in ("type", "consequence", "impact", "gene", "sample")}
    total = 0
    field = None
    fmt = {}
    with open_vcf(path) as handle:
        for number, line in enumerate(handle, 1):
            if line.startswith("##INFO=<ID="):
                fid = line[len("##INFO=<ID="):].split(",", 1)[0]
                if fid in ("ANN", "CSQ", "BCSQ"):
                    fields[fid] = header_format(line)
                continue
            if line.startswith("##"):
                continue
            if line.startswith("#CHROM"):
                cols = line.rstrip("\n").split("\t")
                samples = cols[9:]
                field = next((f for f in ("ANN", "CSQ", "BCSQ") if f in fields), None)
                if field is None:
                    fail(f"{path} has no ANN (SnpEff), CSQ (VEP) or BCSQ (bcftools csq) INFO field "
                         "in its header: annotate the variants before summarising them.")
                names = {"ANN": ANN_FIELDS, "BCSQ": BCSQ_FIELDS}.get(field) if field != "CSQ" else fields["CSQ"]
                if field == "ANN" and fields["ANN"]:
                    names = [n.replace(".", "_").replace("/", "_") for n in fields["ANN"]]
                if not names:
                    fail(f"{path}: cannot read the sub-field layout of INFO/{field} from the header.")
                fmt = {name: i for i, name in enumerate(names)}
                LOG.info("%s: using INFO/%s with %d samples", path, field, len(samples))
                continue
            if field is None:
                fail(f"{path} line {number}: a variant record before the #CHROM header line; not a VCF.")
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 8:
                fail(f"{path} line {number}: {len(cols)} columns, a VCF record needs at least 8.")
            total += 1
            counts["type"][variant_type(cols[3], cols[4].split(","))] += 1
            info = dict(kv.split("=", 1) if "=" in kv else (kv, "") for kv in cols[7].split(";"))
            terms, impacts, genes = set(), set(), set()
            if info.get(field):
                for t, impact, gene, _ in parse_annotations(field, info[field], fmt):
                    terms.update(t)
                    if impact:
                        impacts.add(impact)
                    if gene:
                        genes.add(gene)
            if not terms and field == "BCSQ" and not info.get(field):
                terms = {"intergenic"}  # bcftools csq leaves variants outside every transcript bare
            for t in terms or {"none"}:
                counts["consequence"][t] += 1
            for i in impacts:
                counts["impact"][i] += 1
            for g in genes:
                counts["gene"][g] += 1
            if samples and len(cols) > 9:
                keys = cols[8].split(":")
                if "GT" in keys:
                    gi = keys.index("GT")
                    for sample, value in zip(samples, cols[9:]):
                        parts = value.split(":")
                        if gi < len(parts) and carries_alt(parts[gi]):
                            counts["sample"][sample] += 1
    if field is None:
        fail(f"{path} has no #CHROM header line: not a VCF.")

    with open(snakemake.output.table, "w", newline="") as out:
        writer = csv.writer(out, delimiter="\t", lineterminator="\n")
        writer.writerow(["summary", "category", "count"])
        writer.writerow(["total", "variants", total])
        for summary in ("type", "consequence", "impact", "gene"):
            for category, n in sorted(counts[summary].items(), key=lambda kv: (-kv[1], kv[0])):
                writer.writerow([summary, category, n])
        for sample in samples:
            writer.writerow(["sample", sample, counts["sample"][sample]])
    LOG.info("%d records, %d consequence terms, %d genes", total, len(counts["consequence"]), len(counts["gene"]))


main()

"""Cells and columns of delimited tables, shared by the table and quantifier readers."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from bioplan.request.sniffers.base import FASTQ_PATH_RE, id_namespace

# --------------------------------------------------------------------------- tables

NA = frozenset({"", "na", "nan", "-nan", "n/a", "null", "none", "-", "."})  # C's printf writes NaN as '-nan' too
SAMPLE_COLUMNS = ("sample", "sample_id", "sampleid", "sample_name", "samplename", "samples", "sample id",
                  "sample name", "sample.id", "id", "name")
CONDITION_COLUMNS = ("condition", "group", "treatment", "genotype", "status", "disease", "phenotype", "diagnosis",
                     "state", "class", "cell_type", "celltype", "tissue", "timepoint", "time", "stage", "dex",
                     "infection", "strain", "line")
GENE_HEADERS = frozenset({"gene", "genes", "gene_id", "geneid", "gene_name", "genename", "symbol", "gene_symbol",
                          "ensembl", "ensembl_gene_id", "ensembl_id", "entrez", "entrez_id", "entrezid", "entrezgene",
                          "entrezgene_id", "ncbi_gene_id", "feature", "feature_id", "features", "id_ref",
                          "external_gene_name", "hgnc_symbol", "mgi_symbol"})
ENTREZ_HEADERS = frozenset({"entrez", "entrez_id", "entrezid", "entrezgene", "entrezgene_id", "ncbi_gene_id",
                            "ncbi_id", "gene_id_entrez", "geneid_entrez"})
DE_STATS = (("log2foldchange", "logfc", "log2fc", "log2_fold_change"),
            ("pvalue", "p.value", "p_value", "pval", "padj", "fdr", "adj.p.val", "qvalue", "q_value"))
FEATURECOUNTS_COLUMNS = ["geneid", "chr", "start", "end", "strand", "length"]

# numeric columns of gene annotation, not values (BioMart's 'Gene start (bp)', 'Gene % GC content', 'Transcript
# length (including UTRs and CDS)'): a word of the header says so
ANNOTATION_NUMBER_WORDS = frozenset({"start", "end", "length", "gc", "position", "strand", "width", "bp"})


# a count matrix's numeric annotation columns, by their whole (normalised) name
ANNOTATION_NUMBER_COLUMNS = frozenset({"length", "gene_length", "effective_length", "efflength", "start", "end",
                                       "strand", "chr", "chrom", "width", "gc", "gc_content"})


def annotation_number(normed: str) -> bool:
    return bool(ANNOTATION_NUMBER_WORDS & set(re.split(r"[^a-z0-9]+", normed)))


def norm_header(h: str) -> str:
    return h.strip().strip('"').lower().replace(" ", "_").replace("-", "_")


def num(value: str) -> float | None:
    """The finite number `value` holds, or None when it is not one (NA/empty: see `NA`; 'inf', as vcftools writes a
    ratio over zero, is no count and no expression value)."""
    if "_" in value:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


@dataclass
class Column:
    name: str
    values: list[str]
    numeric: bool = False  # every non-missing value is a number (and there is one)
    n_missing: int = 0
    namespace: str = "unknown"
    distinct: int = 0
    paths: bool = False  # FASTQ paths

    @classmethod
    def of(cls, name: str, values: list[str], prefixes: Mapping[str, str]) -> Column:
        present = [v for v in values if v.lower() not in NA]
        col = cls(name, values, n_missing=len(values) - len(present), distinct=len(set(present)))
        col.numeric = bool(present) and all(num(v) is not None for v in present)
        col.namespace = id_namespace(present[:2000], prefixes)[0]
        col.paths = bool(present) and all(FASTQ_PATH_RE.search(v) for v in present)
        return col



# --------------------------------------------------------------------------- estimated counts

# a count matrix's file name saying normalised values (nf-core/rnaseq's salmon.merged.gene_tpm.tsv, DESeq2's
# normalized_counts.tsv, a log2 CPM table), or counts (salmon.merged.gene_counts.tsv and its _length_scaled and
# _scaled twins, rsem.merged.gene_counts.tsv, Salmon's NumReads, RSEM's expected_count, kallisto's est_counts)
NORMALISED_NAME_RE = re.compile(r"tpm|fpkm|rpkm|cpm|normali[sz]|vst|rlog|log2|log10|zscore|z_score|voom")
COUNT_NAME_RE = re.compile(r"count|numreads")
_MIN_FRACTIONAL = 10  # a table of counts with a fraction or two is a typo or a test, not a quantifier's estimate


def estimated_counts(values: list[list[float]], file_name: str, complete: bool) -> tuple[bool, str]:
    """Whether a matrix's non-negative, not all whole values are estimated read counts (Salmon, kallisto or RSEM,
    summed per gene by tximport: nf-core/rnaseq's salmon.merged.gene_counts.tsv), which count-based DE takes
    rounded (DESeq2's advice for estimated counts, as nf-core/differentialabundance does), rather than normalised
    values (TPM, CPM, FPKM, log or size-factor scaled counts); and why. `values`: the sample columns' numbers.
    The same rule is in templates/scripts/bioplan_step.py and bioplan_step.R (run time)."""
    stem = file_name.replace("\\", "/").rsplit("/", 1)[-1].lower()
    if said := NORMALISED_NAME_RE.search(stem):
        return False, f"the file name says '{said.group(0)}'"
    flat = [x for col in values for x in col]
    top = max(flat, default=0.0)
    if top < 100:
        return False, f"values only up to {top:g}: log-scale or normalised values, not read counts"
    if complete and all(abs(sum(col) - 1e6) <= 1e4 for col in values):
        return False, "every sample column sums to a million: TPM or CPM"
    if scaled := _scaled_counts(values):
        return False, scaled
    if COUNT_NAME_RE.search(stem):
        return True, f"the file name '{stem}' says counts, with values up to {top:g}"
    if complete and (totals := read_totals([sum(col) for col in values], len(values[0]) if values else 0)):
        return True, totals
    nonzero = [x for x in flat if x > 0]
    fractional = sum(abs(x - round(x)) > 0.01 for x in nonzero)
    whole = 1 - fractional / len(nonzero)
    if fractional >= _MIN_FRACTIONAL and whole >= 0.5:
        return True, (f"{whole:.0%} of the non-zero values are whole numbers (to 0.01), up to {top:g}: reads "
                      "that map to one gene stay whole in an estimate, never in TPM/CPM/FPKM")
    return False, (f"only {whole:.0%} of the non-zero values are whole numbers" if fractional >= _MIN_FRACTIONAL
                   else f"{fractional} fractional value(s) among whole numbers")


# a quantifier writes each estimate rounded (Salmon's NumReads to 3 decimals): a column's sum of n of them is off
# its whole read total by about sqrt(n) x 0.0003 (the rounding's spread); 3 of those, and 0.01 for the float sums
_ROUNDING_SPREAD = 0.0003
_CHANCE = 1e-3  # the chance that every column of TPM/FPKM-like values sums this close to a whole number


def read_totals(sums: list[float], n_rows: int) -> str | None:
    """Why the columns are estimated read counts under no telling name (tximport's length-scaled or scaled TPM,
    `countsFromAbundance`, whose values keep hardly a whole number): every column of the whole table sums to a
    whole number of reads, as each quantifier's estimates do (one unit per read spread over its features; tximport
    keeps each sample's total), and TPM/FPKM/normalised values do only by chance; enough columns that the chance
    is under `_CHANCE`. None when they do not."""
    tolerance = 0.01 + 3 * math.sqrt(n_rows) * _ROUNDING_SPREAD
    if len(sums) < 2 or min(sums) < 1000 or (2 * tolerance) ** len(sums) > _CHANCE:
        return None
    if any(abs(x - round(x)) > tolerance for x in sums):
        return None
    shown = ", ".join(f"{x:.3f}" for x in sums[:4]) + (", ..." if len(sums) > 4 else "")
    return (f"every sample column sums to a whole number of reads ({shown}, each within {tolerance:.3f}): "
            "a quantifier's estimates spread over the genes keep each read whole in the total (tximport's "
            "length-scaled or scaled counts too); TPM/FPKM do so only by chance")


def _scaled_counts(values: list[list[float]]) -> str | None:
    """Size-factor normalised counts (DESeq2's counts(dds, normalized=TRUE)): a column whose values are whole
    multiples of its smallest non-zero value, itself not whole (1 / the size factor)."""
    for col in values:
        nonzero = [x for x in col if x > 0]
        if len(nonzero) < 20:
            continue
        unit = min(nonzero)
        if unit < 0.01 or abs(unit - round(unit)) <= 0.05:
            continue
        multiples = sum(abs(x / unit - round(x / unit)) <= 0.02 for x in nonzero)
        if multiples >= 0.95 * len(nonzero):
            return f"a column's values are whole multiples of {unit:g}: size-factor normalised counts"
    return None

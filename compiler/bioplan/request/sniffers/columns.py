"""Cells and columns of delimited tables, shared by the table and quantifier readers."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from bioplan.request.sniffers.base import FASTQ_PATH_RE, id_namespace

# --------------------------------------------------------------------------- tables

NA = frozenset({"", "na", "nan", "n/a", "null", "none", "-", "."})
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
    """The number `value` holds, or None when it is not a number (NA/empty: see `NA`)."""
    if "_" in value:
        return None
    try:
        return float(value)
    except ValueError:
        return None


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


"""Cufflinks and Cuffdiff outputs, refused by name, each saying what to give instead. Before this the table reader
took their FPKM tracking and count tracking files for normalised count matrices of samples 'iPS_FPKM',
'iPS_conf_lo', ... (one column per statistic, not per sample), and Cuffdiff's tests (gene_exp.diff) and
per-replicate tables (*.read_group_tracking) for sample sheets. A gene-level Cuffdiff test table's refusal gives
the awk command that writes one comparison as a differential expression table bioplan reads."""

from __future__ import annotations

import shlex

from bioplan.models import SniffedFile
from bioplan.request.sniffers.base import Context, FileSniffer, Notes, Source, unreadable

_DIFF_HEAD = ["test_id", "gene_id", "gene", "locus", "sample_1", "sample_2", "status", "value_1", "value_2"]
_FPKM_HEAD = ["tracking_id", "class_code", "nearest_ref_id", "gene_id", "gene_short_name", "tss_id", "locus"]
_READ_GROUP_HEAD = ["tracking_id", "condition", "replicate", "raw_frags", "internal_scaled_frags"]

COUNTS_HINT = ("give read counts per gene and sample instead: count the BAM files Cufflinks read with featureCounts "
               "(or ask bioplan to, from the BAMs or reads and a GTF) and give the count matrix with a sample sheet")


def _header(src: Source) -> list[str]:
    return [f.strip() for f in src.first_line.split("\t")]


def _kind(src: Source) -> str | None:
    h = _header(src)
    if h[:len(_DIFF_HEAD)] == _DIFF_HEAD and len(h) > 9:
        return "diff"
    if h[:len(_FPKM_HEAD)] == _FPKM_HEAD:
        return "fpkm_tracking"
    if h[:len(_READ_GROUP_HEAD)] == _READ_GROUP_HEAD:
        return "read_group_tracking"
    if h[0] == "tracking_id" and any(f.endswith("_count_variance") for f in h):
        return "count_tracking"
    return None


def _diff_refusal(src: Source) -> tuple[str, list[str]]:
    stat = _header(src)[9]
    if stat != "log2(fold_change)":  # sqrt(JS): splicing, promoter or CDS usage tests
        return (f"Cuffdiff's tests of isoform, promoter or CDS usage ({stat} between conditions)",
                ["bioplan does not test differential isoform usage; for differential expression, " + COUNTS_HINT])
    rows = [ln.split("\t") for ln in src.text_lines[1:] if ln.count("\t") >= 9]
    if rows and rows[0][0] != rows[0][1]:  # isoforms (TCONS_), TSS groups (TSS) or CDS, not genes (XLOC_)
        return ("Cuffdiff's differential expression tests of transcripts, TSS groups or CDS (test_id "
                f"{rows[0][0]!r} of gene {rows[0][1]!r})",
                ["for genes, give Cuffdiff's gene_exp.diff (its refusal says how to write one comparison as a "
                 "differential expression table), or " + COUNTS_HINT])
    a, b = (rows[0][4], rows[0][5]) if rows else ("CONDITION_1", "CONDITION_2")
    program = ("BEGIN{OFS=\"\\t\"; print \"gene\",\"log2FoldChange\",\"pvalue\",\"padj\"} "
               "NR>1 && $5==a && $6==b && $7==\"OK\" && $3!=\"-\" {print $3,$10,$12,$13}")
    command = (f"awk -F'\\t' -v a={shlex.quote(a)} -v b={shlex.quote(b)} '{program}' {shlex.quote(src.name)} "
               "> de.tsv")
    return ("Cuffdiff's differential expression tests (test_id, gene, sample_1, sample_2, status, value_1, value_2, "
            "log2(fold_change), p_value, q_value; one row per feature and pair of conditions)",
            [f"to use one comparison's tests as a differential expression table (gene symbols, log2FoldChange, "
             f"pvalue, padj), write it with {command} and give de.tsv (change a and b for another comparison)",
             "or, to test again from counts, " + COUNTS_HINT])


def _refuse(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    kind = _kind(src)
    if kind == "diff":
        what, hints = _diff_refusal(src)
    elif kind == "fpkm_tracking":
        what, hints = ("a Cufflinks/Cuffdiff FPKM tracking file (FPKM with its confidence bounds per condition, "
                       "not per sample)", [COUNTS_HINT])
    elif kind == "read_group_tracking":
        what, hints = ("Cuffdiff's per-replicate tracking file (estimated fragments and FPKM of each feature in "
                       "each replicate, one row per feature and replicate)", [COUNTS_HINT])
    else:
        what, hints = ("Cuffdiff's count tracking file (estimated fragment counts with their variances per "
                       "condition, not per sample)", [COUNTS_HINT])
    raise unreadable(src.shown, f"is {what}, which bioplan does not take as an input", hints,
                     expected="a recognised input")


CUFFLINKS = FileSniffer("Cufflinks and Cuffdiff outputs (refused)", (), (), lambda src, ctx: _kind(src) is not None,
                        _refuse)

"""Tables of genomic positions: one row per locus or interval (chromosome, position or start and end), never a
genes x samples table. Before this the table reader took their first column (chromosomes) for gene ids and
their coordinate and count columns for samples: DSS's per-CpG methylation counts were a raw count matrix of
samples 'pos', 'N', 'X'; CNVkit bins one of samples 'start', 'end', 'depth', 'log2'; GATK's CNV tables (a SAM
header over a CONTIG, START, END table) were invalid SAM files.

Read: Bismark cytosine reports (chromosome, position, strand, methylated, unmethylated, context, trinucleotide;
no header), whatever their name. Refused by name, each saying what to give instead: copy-number bins and
segments (CNVkit .cnr/.cnn/.cns, SEG files of DNAcopy/CBS, GATK DenoiseReadCounts/ModelSegments/CollectReadCounts
tables), allele counts at SNPs (GATK CollectAllelicCounts, TitanCNA), samtools pileups (mpileup, legacy pileup -c),
DSS's methylation counts, PLINK text files on their own (per-variant output with a CHR SNP header, a .bim or .fam
without its .bed: the genotypes are read through the .bed, `genotypes`; a .ped and .map text fileset, with the command
that makes the .bed), GWAS summary statistics (a chromosome, an effect and a p-value column: regenie, SAIGE,
BOLT-LMM, the GWAS Catalog's format), Oxford .sample files (a BGEN's samples), Picard interval lists, and any
other table whose header starts with a chromosome column and a position column."""

from __future__ import annotations

import re

from bioplan.models import Fact, SniffedFile
from bioplan.request.sniffers.base import (
    CHROM_ACC_RE,
    CHROM_ID_RE,
    INPUT_TYPE_HINT,
    RECOGNISED_HINT,
    Context,
    FileSniffer,
    Notes,
    Source,
    compressed_fact,
    compression_evidence,
    quote_list,
    unreadable,
)

_CHROM = {"chr", "chrom", "chromosome", "contig", "seqnames", "seqname", "seqid", "#chrom", "#chr", "chr_name",
          "chrom_name", "chromosome_name", "#chromosome"}
_POS = {"pos", "position", "start", "bp", "loc.start", "chromstart", "chrom_start", "start_position", "begin",
        "start_pos"}
_SIZE = {"size", "length", "len", "seqlength", "seqlengths", "chrom_size", "chromsize", "chrom_length"}
_END = {"end", "stop", "chromend", "chrom_end", "end_position", "end_pos"}
_COUNT_RE = re.compile(r"^(?:n?ref|alt|nref)_?count$")
_ALLELE_RE = re.compile(r"^(?:[ACGTN]+|[ID]|[0-4]|\.|-)$", re.IGNORECASE)  # PLINK also codes alleles 1-4
_NUMBER_RE = re.compile(r"^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$")

COPY_NUMBER_HINT = ("these are results of copy-number calling, which no step of bioplan reads; to call copy number, "
                    "give the tumour and normal BAMs with a sample sheet and ask for copy-number calling (CNVkit)")
ALLELE_HINT = ("these are the read counts of each allele at known SNPs, an intermediate of copy-number and purity "
               "tools (GATK ModelSegments, TitanCNA, PureCN); to call copy number, give the BAMs and ask for "
               "copy-number calling (CNVkit)")
DSS_HINT = ("bioplan's differential methylation (DSS) reads Bismark coverage files (chromosome, start, end, percent, "
            "methylated, unmethylated): convert each file with awk 'BEGIN{OFS=\"\\t\"} NR>1 && $3>0 "
            "{print $1,$2,$2,100*$4/$3,$4,$3-$4}' FILE > SAMPLE.bismark.cov and give those with a sample sheet")
PILEUP_HINT = ("a pileup is an intermediate of variant callers; give the alignments it was made from (BAM, with the "
               "reference genome FASTA) and ask for variant calling")
PLINK_HINT = ("a genome-wide association study reads the PLINK fileset through its genotype file: give the .bed (its "
              ".bim and .fam beside it) or the .pgen (its .pvar and .psam beside it), with a phenotype table whose "
              "header starts FID IID; PLINK's association results are an output, not an input")

PLINK_TEXT_HINT = ("convert the text fileset to PLINK's binary one with `plink --file PREFIX --make-bed --out PREFIX` "
                   "(PLINK 1.9; or `plink2 --pedmap PREFIX --make-pgen --out PREFIX`) and give the .bed (its .bim and "
                   ".fam beside it) or the .pgen, with a phenotype table whose header starts FID IID")
OXFORD_HINT = ("an Oxford .sample file names the samples of a BGEN or .gen genotype file; bioplan's association study "
               "reads PLINK genotypes: convert them with `plink2 --bgen FILE.bgen ref-first --sample FILE.sample "
               "--make-pgen --out PREFIX` and give PREFIX.pgen (its .pvar and .psam beside it)")
SUMSTATS_HINT = ("bioplan runs the association test itself (PLINK 2 --glm) and draws its Manhattan and QQ plots: give "
                 "the genotypes (a PLINK .bed with its .bim and .fam, or a .pgen with its .pvar and .psam) and a "
                 "phenotype table whose header starts FID IID; analyses of summary statistics alone (fine-mapping, "
                 "LD score regression, colocalisation, Mendelian randomisation) are not bioplan's")
# GWAS summary statistics: a chromosome and a position column, an effect or its standard error, a p-value (or its
# -log10), and none of a differential expression table's columns
_P = {"p", "pval", "p_value", "pvalue", "p.value", "p-value", "log10p", "-log10p", "mlog10p", "log10_p",
      "neg_log10_p_value", "p_bolt_lmm", "p_bolt_lmm_inf", "p_linreg", "p.value.na"}
_EFFECT = {"beta", "or", "se", "z", "zscore", "z_score", "standard_error", "odds_ratio", "log_or", "tstat",
           "t_stat", "z_stat", "chisq"}
_VARIANT_POS = {"pos", "bp", "genpos", "base_pair_location", "position"}
_EXPRESSION = {"log2foldchange", "logfc", "basemean", "aveexpr", "logcpm"}  # a DE table, never summary statistics
_SUMSTATS_TOOLS = (  # (columns that name the writer, its name)
    ({"genpos", "log10p"}, "regenie step 2 association results"),
    ({"markerid", "p.value"}, "SAIGE association results"),
    ({"p_bolt_lmm_inf"}, "BOLT-LMM association results"),
    ({"base_pair_location"}, "GWAS summary statistics in the GWAS Catalog's format"),
)


def _sumstats(header: list[str], h: list[str]) -> tuple[str, str, str] | None:
    cols = set(h)
    if not (cols & _CHROM and cols & _VARIANT_POS and cols & _P and cols & _EFFECT) or cols & _EXPRESSION:
        return None
    name = next((n for cols, n in _SUMSTATS_TOOLS if cols <= set(h)), "association test results")
    return (f"GWAS summary statistics ({name}: columns {quote_list(header, 5)}; one row per variant tested)",
            "sumstats", SUMSTATS_HINT)


def _fields(line: str) -> list[str]:
    """A header or row's fields: tab-separated, else whitespace-separated; quotes (R's write.table) dropped."""
    parts = line.split("\t") if "\t" in line else line.split()
    return [p.strip().strip('"').strip() for p in parts]


def _data_rows(src: Source, limit: int = 50) -> list[list[str]]:
    return [_fields(ln) for ln in src.text_lines[:limit] if ln.strip() and not ln.startswith(("#", "track "))]


def _named(header: list[str]) -> tuple[str, str, str] | None:
    """(what the file is, why, what to give instead) from its header, or None."""
    h = [f.lower() for f in header]
    if h[:3] == ["chromosome", "start", "end"] and "log2" in h:
        return ("CNVkit copy-number bins or segments (.cnr/.cnn/.cns: chromosome, start, end, gene, log2, depth)",
                "cnvkit", COPY_NUMBER_HINT)
    if {"chrom", "loc.start", "loc.end"} <= set(h) and ({"seg.mean", "num.mark"} & set(h)):
        return ("copy-number segments in the SEG format (ID, chrom, loc.start, loc.end, num.mark, seg.mean: "
                "DNAcopy/CBS segmentation, as IGV shows it)", "seg", COPY_NUMBER_HINT)
    if h[:3] == ["contig", "start", "end"]:
        what = "copy ratios or segments (DenoiseReadCounts, ModelSegments: LOG2_COPY_RATIO)" \
            if any("copy_ratio" in f for f in h) else "read counts per interval (CollectReadCounts: COUNT)" \
            if "count" in h else "intervals"
        return f"a GATK CNV table of {what}", "gatk_cnv", COPY_NUMBER_HINT
    if h[:2] == ["contig", "position"] and "ref_count" in h:
        return ("GATK CollectAllelicCounts allele counts (CONTIG, POSITION, REF_COUNT, ALT_COUNT)", "allelic",
                ALLELE_HINT)
    if h[:3] == ["ref", "pos", "cov"] or h[:2] == ["ref", "pos"] and "sample" in h:
        return ("sambamba depth base output (REF, POS, COV and the A/C/G/T/DEL/REFSKIP counts of each position: read "
                "depth per position)", "depth", "give the alignments (BAM) it was computed from")
    if h == ["chr", "pos", "n", "x"]:
        return ("per-CpG methylation counts in DSS's input format (chr, pos, N reads covering the CpG, X of them "
                "methylated), one sample per file", "dss", DSS_HINT)
    if h[:3] == ["id_1", "id_2", "missing"]:
        return ("an Oxford .sample file (ID_1, ID_2, missing and the phenotype columns, under a row of column types: "
                "the samples of a BGEN or .gen genotype file)", "oxford_sample", OXFORD_HINT)
    if h[:2] == ["chr", "snp"]:
        return (f"PLINK per-variant output (columns {quote_list(header, 4)}: association tests, allele frequencies "
                "or genotype counts)", "plink", PLINK_HINT)
    sumstats = _sumstats(header, h)
    if sumstats is not None:
        return sumstats
    if h[0] in _CHROM and len(h) >= 2 and h[1] in _SIZE:
        return (f"a chromosome sizes table (columns {quote_list(header, 3)}: UCSC chromInfo, GenomeInfoDb's "
                "seqinfo)", "sizes", "bioplan derives chromosome sizes from the reference genome FASTA (samtools "
                "faidx): give the genome FASTA instead")
    # a chromosome column first, a position second (an id column first may be a count matrix's gene ids)
    positional = h[0] in _CHROM and h[1] in _POS
    if positional and len(h) > 2 and h[2] in _END:
        positional = False  # a BED-like table with a header: the table reader's (peaks, or refused as BED)
    if positional and any(_COUNT_RE.match(f) for f in h):
        return (f"allele counts at SNP positions (columns {quote_list(header, 6)})", "allelic", ALLELE_HINT)
    if positional:
        return (f"a table of genomic positions (columns {quote_list(header, 5)}): one row per locus, not a genes x "
                "samples table", "positions", f"{RECOGNISED_HINT}; {INPUT_TYPE_HINT}")
    return None


def _cytosine_report(rows: list[list[str]]) -> bool:
    """Bismark's cytosine report: chromosome, position, strand, methylated, unmethylated, context, trinucleotide."""
    return bool(rows) and all(
        len(r) == 7 and r[1].isdigit() and r[2] in ("+", "-") and r[3].isdigit() and r[4].isdigit()
        and r[5] in ("CG", "CHG", "CHH") and _ALLELE_RE.match(r[6]) is not None for r in rows)


def _mpileup(rows: list[list[str]]) -> int:
    """samtools mpileup text: chromosome, position, reference base, then depth, read bases and base qualities of each
    BAM file (3 + 3n columns). The number of BAM files, or 0."""
    width = len(rows[0])
    if width < 6 or (width - 3) % 3:
        return 0
    fine = all(len(r) == width and r[1].isdigit() and len(r[2]) == 1 and r[2] in "ACGTNacgtn"
               and all(r[i].isdigit() for i in range(3, width, 3)) for r in rows)
    return (width - 3) // 3 if fine else 0


def _legacy_pileup(rows: list[list[str]]) -> bool:
    """samtools 0.1 `pileup -c`: chromosome, position, reference base, consensus base, consensus, SNP and RMS mapping
    qualities, depth, read bases, base qualities (an indel's own line, '*' for the reference base, is longer)."""
    snv = [r for r in rows if len(r) == 10]
    return len(snv) >= 0.8 * len(rows) and all(
        r[1].isdigit() and len(r[2]) == 1 and r[2] in "ACGTNacgtn" and all(r[i].isdigit() for i in range(4, 8))
        for r in snv)


def _plink_bim(src: Source, rows: list[list[str]]) -> bool:
    """A PLINK .bim: chromosome, variant id, centimorgans, base-pair position, allele 1, allele 2; no header."""
    return len(rows) >= 1 and all(
        len(r) == 6 and (r[0].isdigit() or CHROM_ID_RE.match(r[0]) is not None) and _NUMBER_RE.match(r[2])
        and r[3].isdigit() and _ALLELE_RE.match(r[4]) and _ALLELE_RE.match(r[5]) for r in rows)


def _plink_fam(src: Source, rows: list[list[str]]) -> bool:
    """A PLINK .fam (family, individual, father, mother, sex, phenotype): by its name and six columns."""
    return src.ext == ".fam" and bool(rows) and all(len(r) == 6 and r[4] in ("0", "1", "2") for r in rows)


def _plink_ped(src: Source, rows: list[list[str]]) -> bool:
    """A PLINK .ped (family, individual, father, mother, sex, phenotype, then two alleles per variant): by its name."""
    return src.ext == ".ped" and bool(rows) and all(
        len(r) >= 8 and len(r) % 2 == 0 and len(r) == len(rows[0]) and r[4] in ("0", "1", "2")
        and all(_ALLELE_RE.match(a) for a in r[6:]) for r in rows)


def _plink_map(src: Source, rows: list[list[str]]) -> bool:
    """A PLINK .map (chromosome, variant id, centimorgans, base-pair position): by its name and four columns."""
    return src.ext == ".map" and bool(rows) and all(
        len(r) == 4 and _NUMBER_RE.match(r[2]) and r[3].lstrip("-").isdigit() for r in rows)


def _kind(src: Source) -> tuple[str, str, str] | None:
    rows = _data_rows(src)
    if not rows:
        return None
    if _cytosine_report(rows[:20]):
        return "a Bismark cytosine report", "cytosine_report", ""
    bams = _mpileup(rows[:20])
    if bams:
        return (f"samtools mpileup text output (chromosome, position, reference base, then the depth, read bases and "
                f"base qualities of each of {bams} BAM file{'s' if bams > 1 else ''})", "pileup", PILEUP_HINT)
    if _legacy_pileup(rows[:20]):
        return ("a samtools pileup -c consensus file (samtools 0.1's pileup format: reference and consensus base, "
                "qualities, depth, read bases)", "pileup", PILEUP_HINT)
    if _plink_bim(src, rows[:20]):
        return ("a PLINK variant table (.bim: chromosome, variant id, centimorgans, position, allele 1, allele 2)",
                "plink", PLINK_HINT)
    if _plink_fam(src, rows[:20]):
        return "a PLINK sample table (.fam: family, individual, father, mother, sex, phenotype)", "plink", PLINK_HINT
    if _plink_ped(src, rows[:20]):
        return (f"a PLINK text genotype file (.ped: family, individual, father, mother, sex, phenotype, then two "
                f"alleles at each of {(len(rows[0]) - 6) // 2} variants)", "plink", PLINK_TEXT_HINT)
    if _plink_map(src, rows[:20]):
        return ("a PLINK text variant map (.map: chromosome, variant id, centimorgans, position; the variants of a "
                ".ped file)", "plink", PLINK_TEXT_HINT)
    return _named(rows[0]) if len(rows[0]) >= 2 else None


def _read(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    kind = _kind(src)
    assert kind is not None  # claimed by _kind
    what, key, hint = kind
    if key == "cytosine_report":
        return _read_cytosine_report(src), Notes()
    raise unreadable(src.shown, f"is {what}, which bioplan does not take as an input", [hint],
                     expected="a recognised input")


def _read_cytosine_report(src: Source) -> SniffedFile:
    rows = _data_rows(src, 200)
    contexts = sorted({r[5] for r in rows if len(r) == 7})
    evidence = ("Bismark cytosine report (coverage2cytosine / --cytosine_report): 7 columns, no header: chromosome, "
                f"position, strand, methylated, unmethylated, context ({', '.join(contexts)}), trinucleotide",
                *compression_evidence(src))
    facts = [Fact(name="cytosine_contexts", value=contexts, evidence=f"context column of the first {len(rows)} rows")]
    return SniffedFile(path=src.shown, datatype="cytosine_report", format="bismark_cytosine_report",
                       evidence=evidence, facts=tuple(facts + compressed_fact(src)))


LOCUS_TABLES = FileSniffer("tables of genomic positions (cytosine reports read; copy-number, allele-count, DSS and "
                           "PLINK tables refused)", ("bismark_cytosine_report",), ("cytosine_report",),
                           lambda src, ctx: _kind(src) is not None, _read)


# --------------------------------------------------------------------------- tables under a SAM header

def refuse_headered_table(src: Source, first_record: str) -> None:
    """A file that starts with SAM header lines (@HD, @SQ) and goes on with a table, not alignments: GATK's CNV
    tables and Picard interval lists. Raises the named refusal; returns for anything else."""
    fields = first_record.split("\t")
    named = _named(fields) if len(fields) >= 2 else None
    if named is not None:
        raise unreadable(src.shown, f"is {named[0]} under a SAM-style header, which bioplan does not take as an "
                         "input", [named[2]], expected="a recognised input")
    if len(fields) == 5 and fields[1].isdigit() and fields[2].isdigit() and fields[3] in ("+", "-") and \
            (CHROM_ID_RE.match(fields[0]) or CHROM_ACC_RE.match(fields[0])):
        raise unreadable(src.shown, "is a Picard/GATK interval list (.interval_list: a SAM-style header, then "
                         "contig, start, end, strand, name; 1-based), which bioplan does not take as an input",
                         ["bioplan takes regions as BED: convert it with `picard IntervalListToBed I=FILE "
                          "O=FILE.bed` (or `gatk IntervalListToBed`) and give the BED"], expected="a recognised input")

"""Reports and logs that tools write beside their data (STAR's Log.final.out and SJ.out.tab, samtools
flagstat/idxstats/stats/depth/coverage, mosdepth's summaries, featureCounts' .summary, MACS2's peaks .xls, Picard
metrics, bcftools stats, deepTools raw counts, quantifiers' run information, FastQC's HTML): recognised by their
content and refused saying what they are and which file to give instead. Without this they fell to the table
reader, which took an idxstats or SJ.out.tab for a count matrix and a Log.final.out for a list of gene ids."""

from __future__ import annotations

import os
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass

from bioplan.models import SniffedFile
from bioplan.request.sniffers.base import Context, FileSniffer, Lines, Notes, Source, unreadable


@dataclass(frozen=True)
class Report:
    what: str  # what the file is, after "is"
    instead: str  # the hint: which file to give instead
    test: Callable[[list[str]], bool]  # on the first non-blank lines of the head
    # MultiQC parses it: a QC report when the request aggregates reports, else refused
    qc: bool = False
    suffix: str = ""  # what the tool appends to the sample name ('_Log.final.out'): the rest names the sample
    beside: str = ""  # what the tool appends to its data file's name ('.summary'): given with the data, a QC report


def _first_field(line: str) -> str:
    """A line's first field, tab- or space-separated, unquoted (Rsubread's summary as R's write.table writes it)."""
    fields = line.split()
    return fields[0].strip('"') if fields else ""


def _rows(lines: list[str], n: int = 20) -> list[list[str]]:
    return [ln.split("\t") for ln in lines[:n]]


def _star_junctions(lines: list[str]) -> bool:
    """SJ.out.tab: chrom, intron start, end, strand 0-2, motif 0-6, annotated 0/1, unique, multi, overhang."""
    rows = _rows(lines)
    return bool(rows) and all(
        len(r) == 9 and all(v.isdigit() for v in r[1:]) and r[3] in "012" and r[4] in "0123456" and r[5] in "01"
        for r in rows)


def _star_gene_counts(lines: list[str]) -> bool:
    firsts = [r[0] for r in _rows(lines, 4)]
    return firsts == ["N_unmapped", "N_multimapping", "N_noFeature", "N_ambiguous"]


def _idxstats(lines: list[str]) -> bool:
    # the last row first: most heads fail it, before every row is split
    if not lines or lines[:10_000][-1].split("\t")[:2] != ["*", "0"]:
        return False
    rows = _rows(lines, 10_000)
    return all(
        len(r) == 4 and all(v.isdigit() for v in r[1:]) for r in rows)


def _samtools_depth(lines: list[str]) -> bool:
    """chrom, position, depth: positions one after another on each sequence (a 3-column BED has start < end)."""
    rows = _rows(lines, 200)
    if len(rows) < 3 or not all(len(r) == 3 and r[1].isdigit() and r[2].isdigit() for r in rows):
        return False
    steps = [int(b[1]) - int(a[1]) for a, b in zip(rows, rows[1:]) if a[0] == b[0]]
    return bool(steps) and sum(s == 1 for s in steps) >= 0.8 * len(steps)


def _mosdepth_dist(lines: list[str]) -> bool:
    """mosdepth's .mosdepth.global.dist.txt: chrom (or 'total'), coverage, proportion of bases at least."""
    rows = _rows(lines, 200)
    return len(rows) >= 2 and all(
        len(r) == 3 and r[1].isdigit() and re.fullmatch(r"[01]\.\d+", r[2]) is not None for r in rows) \
        and all(int(a[1]) > int(b[1]) for a, b in zip(rows, rows[1:]) if a[0] == b[0])


_FLAGSTAT_RE = re.compile(r"^\d+ \+ \d+ in total")
_JSON_RUN_INFO = {'"n_targets"': "kallisto's run_info.json", '"salmon_version"': "Salmon's cmd_info.json",
                  '"expected_format"': "Salmon's lib_format_counts.json", '"sf_version"': "Salmon's meta_info.json"}

REPORTS: tuple[Report, ...] = (
    Report("STAR's alignment summary (Log.final.out), a report rather than data to plan from",
           "give the reads (FASTQ) or the alignments (BAM) STAR wrote",
           lambda ls: "Started job on |" in ls[0], True, r"[._]?Log\.final\.out"),
    Report("STAR's run log (Log.out or Log.progress.out)", "give the reads (FASTQ) or the alignments (BAM) STAR wrote",
           lambda ls: ls[0].startswith("STAR version=") or re.match(r"^\s*Time\s+Speed\s+Read", ls[0]) is not None),
    Report("STAR's splice junctions (SJ.out.tab), which bioplan does not take as an input",
           "give the alignments (BAM); for gene counts use featureCounts or STAR's counts of several samples in one "
           "count matrix", _star_junctions),
    Report("STAR's per-gene read counts of one sample (ReadsPerGene.out.tab: unstranded, forward and reverse "
           "columns, not samples)", "give a count matrix with one column per sample (featureCounts), or the BAMs "
           "to count", _star_gene_counts, True, r"[._]?ReadsPerGene\.out\.tab"),
    Report("a Bowtie2 or HISAT2 alignment summary (its '... reads; of these:' log)",
           "give the reads (FASTQ) or the alignments (BAM) the aligner wrote",
           lambda ls: any(re.match(r"^\d+ reads; of these:$", ln.strip()) for ln in ls[:6]), True,
           r"(?:[._](?:bowtie2|hisat2|align\w*))?[._](?:log|txt|summary)"),
    Report("a samtools flagstat report", "give the alignments (BAM) it describes",
           lambda ls: _FLAGSTAT_RE.match(ls[0]) is not None, True,
           r"(?:\.bam)?[._]flagstats?(?:\.txt)?"),
    Report("a samtools stats report", "give the alignments (BAM) it describes",
           lambda ls: "samtools stats" in ls[0] or ls[0].startswith("CHK\t") and "samtools stats" in " ".join(ls[:3]),
           True, r"(?:\.bam)?[._]stats(?:\.txt)?"),
    Report("a samtools idxstats table (reads per reference sequence), not a count matrix",
           "give the alignments (BAM) it describes", _idxstats, True,
           r"(?:\.bam)?[._]idxstats(?:\.txt)?"),
    Report("featureCounts' read assignment summary (.summary), a report rather than the counts",
           "give the counts table featureCounts wrote beside it (the same name without .summary)",
           lambda ls: len(ls) > 1 and _first_field(ls[0]) == "Status" and _first_field(ls[1]) == "Assigned", True,
           r"(?:[._]featureCounts)?(?:\.txt)?\.summary", r"\.summary"),
    Report("MACS2's peak table (.xls), which bioplan does not read", "give the peaks MACS2 wrote beside it "
           "(NAME_peaks.narrowPeak or NAME_peaks.broadPeak)",
           lambda ls: any(ln.startswith("# This file is generated by MACS") for ln in ls[:3]), True,
           r"_peaks\.xls"),
    Report("samtools depth output (read depth per position)", "give the alignments (BAM) it was computed from",
           _samtools_depth),
    Report("mosdepth's coverage summary (.mosdepth.summary.txt)", "give the alignments (BAM) it describes",
           lambda ls: ls[0].split("\t") == ["chrom", "length", "bases", "mean", "min", "max"],
           True, r"\.mosdepth\.summary\.txt"),
    Report("mosdepth's coverage distribution (.mosdepth.global.dist.txt or .region.dist.txt)",
           "give the alignments (BAM) it describes", _mosdepth_dist, True,
           r"\.mosdepth\.(?:global|region)\.dist\.txt"),
    Report("a Picard or GATK metrics file (htsjdk '## METRICS CLASS' tables: duplication, alignment summary, insert "
           "size, hybrid selection, ...)", "give the alignments (BAM) it describes",
           lambda ls: ls[0].startswith(("## htsjdk.samtools.metrics.StringHeader", "## METRICS CLASS\t",
                                        "## net.sf.picard.metrics.StringHeader")), True,
           r"(?:\.bam)?[._](?:[a-z_]*[._])?metrics(?:\.txt)?"),
    Report("a bcftools stats report", "give the variant calls (VCF or BCF) it describes",
           lambda ls: ls[0].startswith("# This file was produced by bcftools stats"), True,
           r"(?:\.vcf(?:\.gz)?|\.bcf)?[._](?:bcftools[._])?stats(?:\.txt)?"),
    Report("a samtools coverage table (reads, covered bases and mean depth per reference sequence), not a count "
           "matrix", "give the alignments (BAM) it describes",
           lambda ls: ls[0].startswith("#rname\tstartpos\tendpos\tnumreads")),
    Report("deepTools plotFingerprint raw counts (--outRawCounts)", "give the alignments (BAM) it was computed from",
           lambda ls: ls[0].startswith("#plotFingerprint --outRawCounts"), True,
           r"[._](?:plot)?fingerprint\w*(?:\.tab|\.txt)?"),
    Report("deepTools multiBamSummary or multiBigwigSummary raw counts (reads or scores per bin in each file), not a "
           "count matrix of genes", "give the alignments (BAM) or coverage tracks (bigWig) it was computed from",
           lambda ls: ls[0].startswith("#'chr'\t'start'\t'end'\t")),
    # the logs and reports of read trimmers, FastQC and aligners that MultiQC parses, given as data
    Report("a read trimming report (cutadapt's, Trim Galore's or Trimmomatic's log), a report rather than the reads",
           "give the reads (FASTQ) to trim, or the trimmed reads the trimmer wrote",
           lambda ls: ls[0].startswith("This is cutadapt ") or ls[0].strip() == "SUMMARISING RUN PARAMETERS"
           or any(ln.startswith(("TrimmomaticPE: Started", "TrimmomaticSE: Started")) for ln in ls[:3]), True,
           r"(?:[._](?:cutadapt|trimmomatic|trimming_report))?(?:\.log|\.txt|\.err)?"),
    Report("FastQC's (or Falco's) data file (fastqc_data.txt: its modules' tables), a report rather than the reads",
           "give the reads (FASTQ) it describes, or the whole FastQC archive (_fastqc.zip) to aggregate",
           lambda ls: ls[0].startswith(("##FastQC\t", "##Falco\t")), True, r"(?:_fastqc)?[._]?fastqc_data\.txt"),
    Report("a HISAT2 alignment summary (--new-summary)", "give the reads (FASTQ) or the alignments (BAM) HISAT2 wrote",
           lambda ls: ls[0].strip() == "HISAT2 summary stats:", True, r"(?:[._]hisat2)?[._]summary(?:\.txt)?"),
    Report("a Bismark alignment report", "give the reads (FASTQ) or the alignments (BAM) Bismark wrote",
           lambda ls: ls[0].startswith("Bismark report for: "), True, r"_bismark\w*_[SP]E_report\.txt"),
    Report("a Qualimap report (bamqc's genome_results.txt or rnaseq's rnaseq_qc_results.txt)",
           "give the alignments (BAM) it describes", lambda ls: ls[0].strip() in ("BamQC report", "RNA-Seq QC report"),
           True, r"(?:genome_results|rnaseq_qc_results)\.txt"),
    Report("an RSeQC report (infer_experiment.py, read_distribution.py or bam_stat.py output)",
           "give the alignments (BAM) it describes",
           lambda ls: ls[0].strip() in ("This is PairEnd Data", "This is SingleEnd Data")
           or any(ln.startswith(("Total Tags", "#All numbers are READ count")) for ln in ls[:6]), True,
           r"(?:[._](?:infer_experiment|read_distribution|bam_stat)\w*)?(?:\.txt|\.out)?"),
    Report("a FastQ Screen report (_screen.txt: the share of reads mapping to each screened genome)",
           "give the reads (FASTQ) it describes", lambda ls: ls[0].startswith("#Fastq_screen version:"), True,
           r"_screen\.txt"),
    Report("Salmon's run log (logs/salmon_quant.log)", "give the Salmon output folder (quant.sf, "
           "lib_format_counts.json, aux_info/ and logs/ together), or each sample's quant.sf",
           lambda ls: "] [jointLog] [" in ls[0]),
    # vcftools' tables of one VCF (MultiQC parses them): Ts/Tv by alternative allele count, by quality, by
    # substitution, and pairwise relatedness; their counts and ratios (-nan, inf) are no count matrix
    Report("a vcftools report (--TsTv-by-count, --TsTv-by-qual, --TsTv-summary or --relatedness2 table), not a count "
           "matrix", "give the variant calls (VCF) it describes",
           lambda ls: ls[0].startswith(("ALT_ALLELE_COUNT\tN_Ts\tN_Tv", "QUAL_THRESHOLD\tN_Ts_LT_QUAL_THRESHOLD",
                                        "INDV1\tINDV2\tN_AaAa\t"))
           or ls[0] == "MODEL\tCOUNT" and len(ls) > 1 and ls[1].startswith(("AC\t", "AG\t", "Ts\t")), True,
           r"\.(?:TsTv\.(?:count|qual|summary)|relatedness2?)"),
    Report("Ensembl VEP's run statistics (its --stats_text summary: '[VEP run statistics]', consequences, SIFT and "
           "PolyPhen counts), a report rather than the annotated variants",
           "give the variant calls (VCF) to annotate, or the annotated VCF VEP wrote beside this summary",
           lambda ls: ls[0].strip() == "[VEP run statistics]", True, r"(?:[._]vep)?(?:[._]summary)?\.txt"),
    Report("HOMER's peak file (findPeaks: '# HOMER Peaks' parameter lines, then PeakID, chr, start, end, strand, "
           "normalized tag count, ...), which bioplan does not read",
           "convert it to BED (HOMER's pos2bed.pl PEAKS.txt > PEAKS.bed, or awk 'BEGIN{OFS=\"\\t\"} !/^#/ "
           "{print $2, $3-1, $4, $1, int($6), $5}' PEAKS.txt > PEAKS.bed) and give the BED",
           lambda ls: ls[0].startswith("# HOMER Peaks")),
    Report("an HTML page (a report, e.g. FastQC's or MultiQC's)", "give the data the report describes",
           lambda ls: ls[0].lstrip().lower().startswith(("<html", "<!doctype html"))),
)


def _first_lines(src: Source) -> list[str]:
    return src.nonblank_lines


def _report_of(src: Source) -> Report | None:
    lines = _first_lines(src)
    return next((r for r in REPORTS if lines and r.test(lines)), None) if lines else None


def _json_run_info(src: Source) -> str | None:
    lines = _first_lines(src)
    if not lines or not lines[0].lstrip().startswith("{"):
        return None
    head = " ".join(lines[:40])
    return next((what for key, what in _JSON_RUN_INFO.items() if key in head), None)


def _claims(src: Source, ctx: Context) -> bool:
    return _report_of(src) is not None or _json_run_info(src) is not None


def _aggregated(ctx: Context) -> bool:
    """The request aggregates QC reports (MultiQC): a report it parses is an input then, not a misplaced file."""
    return any("qc_report" in level for level in ctx.expected)


def _as_qc_report(src: Source, report: Report) -> SniffedFile:
    """MultiQC names the samples from the reports' contents; the workflow keeps one report per sheet row, so
    each report is its own row, keyed by its file name (a sample's STAR log and samtools stats both kept)."""
    stem = re.sub(report.suffix + r"$", "", src.name, flags=re.IGNORECASE) if report.suffix else ""
    what = report.what.split(", ")[0]
    return SniffedFile(path=src.shown, datatype="qc_report", format="txt", sample=src.name,
                       evidence=(f"{what}: a QC report MultiQC parses, read as one because the request aggregates "
                                 "QC reports" + (f" (of sample '{stem}', by its name)" if stem else ""),))


def _beside_its_data(src: Source, report: Report, ctx: Context) -> str | None:
    """The data file the report describes, given among the inputs (featureCounts' NAME.summary beside NAME)."""
    if not report.beside:
        return None
    data = re.sub(report.beside + "$", "", os.path.abspath(src.path))
    return re.sub(report.beside + "$", "", src.shown) if data in ctx.inputs else None


def _refuse(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    report = _report_of(src)
    if report is not None and report.qc and _aggregated(ctx):
        return _as_qc_report(src, report), Notes()
    data = _beside_its_data(src, report, ctx) if report is not None and report.qc else None
    if report is not None and data is not None:
        kind = report.what.split(", ")[0]
        return SniffedFile(path=src.shown, datatype="qc_report", format="txt", sample=src.name,
                           evidence=(f"{kind}: a QC report MultiQC parses, given beside the data it describes "
                                     f"({data}); no requested step reads it",)), Notes()
    if report is not None:
        raise unreadable(src.shown, f"is {report.what}", [report.instead], expected="a recognised input")
    what = _json_run_info(src)
    raise unreadable(src.shown, f"is {what}, a quantifier's run information, not its estimates",
                     ["give the quantifier's output folder (or its quant.sf / abundance.tsv)"],
                     expected="a recognised input")


REPORTS_AND_LOGS = FileSniffer("tool reports and logs (STAR, samtools, featureCounts summary, MACS2 xls; refused "
                               "unless the request aggregates QC reports)",
                               ("txt",), ("qc_report",), _claims, _refuse)


# --------------------------------------------------------------------------- read QC reports MultiQC aggregates
# FastQC's archive (NAME_fastqc.zip holding NAME_fastqc/fastqc_data.txt) and fastp's JSON report are read QC
# reports: "aggregate these FastQC reports with MultiQC" plans from them.
_FASTQC_SUFFIX = re.compile(r"_fastqc\.zip$", re.IGNORECASE)


def _fastqc_member(src: Source) -> str | None:
    if not src.head.startswith(b"PK\x03\x04") or src.compression:
        return None
    try:
        with zipfile.ZipFile(src.path) as z:
            return next((n for n in z.namelist() if n.endswith("/fastqc_data.txt")), None)
    except (zipfile.BadZipFile, OSError):
        return None


def _is_fastp_json(src: Source) -> bool:
    head = " ".join(_first_lines(src)[:4])
    return head.lstrip().startswith("{") and '"fastp_version"' in head


def _read_qc_report(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    member = _fastqc_member(src)
    if member is not None:
        sample = _FASTQC_SUFFIX.sub("", src.name) or src.name
        found = SniffedFile(path=src.shown, datatype="read_qc_report", format="zip", sample=sample,
                            evidence=(f"FastQC report archive: holds {member}", f"sample '{sample}' from the file "
                                      "name"))
    else:
        sample = re.sub(r"(?:[._]fastp)?\.json$", "", src.name, flags=re.IGNORECASE) or src.name
        found = SniffedFile(path=src.shown, datatype="read_qc_report", format="json", sample=sample,
                            evidence=("fastp JSON report: its summary names fastp_version",
                                      f"sample '{sample}' from the file name"))
    if _aggregated(ctx) and "read_qc_report" not in next(iter(ctx.expected), {}):
        # beside other tools' reports MultiQC reads them all as QC reports, one sheet row per report file
        found = found.model_copy(update={"datatype": "qc_report", "sample": src.name, "evidence": found.evidence[:1] + (
            "read as a QC report because the request aggregates QC reports",)})
    return found, Notes()


READ_QC_REPORTS = FileSniffer("FastQC report archive, fastp JSON report", ("zip", "json"),
                              ("read_qc_report", "qc_report"),
                              lambda src, ctx: _fastqc_member(src) is not None or _is_fastp_json(src),
                              _read_qc_report)


# --------------------------------------------------------------------------- HTSeq-count output of one sample
# 'gene<TAB>count' without a header, closed by HTSeq's counters (__no_feature, __ambiguous, __too_low_aQual,
# __not_aligned, __alignment_not_unique): one sample's counts, which the table reader took for a count matrix.
_HTSEQ_COUNTERS = ("__no_feature", "__ambiguous", "__too_low_aQual", "__not_aligned", "__alignment_not_unique")
_HTSEQ_BUDGET = 16 << 20  # a genome's genes are ~60,000 short lines (about 1.5 MB)


def _gene_count_rows(src: Source) -> bool:
    rows = [ln.split("\t") for ln in _first_lines(src)[:50]]
    return bool(rows) and all(len(r) == 2 and r[1].strip().isdigit() and r[0] for r in rows)


def _htseq_counters(src: Source) -> list[str]:
    """The HTSeq counters the file ends with (read through, bounded: the table is one sample's genes)."""
    if not _gene_count_rows(src):
        return []
    found = [ln.split("\t", 1)[0] for ln in Lines(src, _HTSEQ_BUDGET) if ln.startswith("__")]
    return [c for c in found if c in _HTSEQ_COUNTERS]


def _read_htseq(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    counters = _htseq_counters(src)
    said = f"HTSeq-count output of one sample (gene, count, then its {', '.join(counters[:2])} counters)"
    if _aggregated(ctx):
        return SniffedFile(path=src.shown, datatype="qc_report", format="txt", sample=src.name,
                           evidence=(f"{said}: MultiQC parses its counters, read as a QC report because the request "
                                     "aggregates QC reports",)), Notes()
    raise unreadable(src.shown, f"is {said}, not a count matrix of samples",
                     ["join the samples' HTSeq files into one matrix with a column per sample (as DESeq2's "
                      "DESeqDataSetFromHTSeqCount does) and give it, or give the BAMs to count"],
                     expected="a count matrix")


HTSEQ_COUNTS = FileSniffer("HTSeq-count output of one sample (refused, or a QC report under aggregation)", ("txt",),
                           ("qc_report",), lambda src, ctx: bool(_htseq_counters(src)), _read_htseq)


# --------------------------------------------------------------------------- MultiQC's own tables
# MultiQC writes its parsed metrics beside its report (multiqc_data/): one row per sample, one column per metric. The
# table reader took the general statistics for a normalised count matrix of 'genes' ctrl_1, ctrl_2 and the
# per-tool tables for sample sheets or count matrices. Named by the general statistics' '<tool>-<metric>' columns,
# or by MultiQC's 'multiqc_' file names.
_MULTIQC_NAME_RE = re.compile(r"^multiqc_[\w.-]+\.(?:txt|tsv|csv|json)$", re.IGNORECASE)
_GENERAL_STAT_RE = re.compile(r"^[A-Za-z0-9_]+-\S")


def _numbers_only(rows: list[list[str]]) -> bool:
    cells = [c for r in rows for c in r[1:] if c.strip()]
    return bool(cells) and all(re.fullmatch(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?", c.strip()) for c in cells)


def _multiqc_table(src: Source) -> str | None:
    lines = _first_lines(src)
    header = lines[0].split("\t") if lines else []
    if header and header[0] == "Sample" and len(header) > 1 and all(_GENERAL_STAT_RE.match(h) for h in header[1:]) \
            and _numbers_only([ln.split("\t") for ln in lines[1:50]]):
        return "MultiQC's general statistics table (one row per sample, a '<tool>-<metric>' column per metric)"
    if _MULTIQC_NAME_RE.match(src.name):
        return f"a file MultiQC wrote beside its report ({src.name}: the QC metrics it parsed, per sample)"
    return None


def _refuse_multiqc(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    raise unreadable(src.shown, f"is {_multiqc_table(src)}, which bioplan does not read",
                     ["MultiQC's tables summarise the samples' QC; give the data they describe (reads, alignments, "
                      "counts) for an analysis, or the tools' own reports to aggregate them again"],
                     expected="a recognised input")


MULTIQC_TABLES = FileSniffer("MultiQC's data tables (refused)", (), (),
                             lambda src, ctx: _multiqc_table(src) is not None, _refuse_multiqc)

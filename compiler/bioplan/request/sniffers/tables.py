"""Delimited tables: count matrices (featureCounts too), differential expression tables, peak
calls, gene id mappings, sample sheets, one-column gene lists and GMT gene set libraries."""

from __future__ import annotations

import csv
import re
import shlex
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

from bioplan.errors import AmbiguousInputError
from bioplan.models import Fact, SniffedFile
from bioplan.request.same_names import indistinguishable_names, lookalikes_in
from bioplan.request.sniffers.base import (
    BARCODE_RE,
    CHROM_ACC_RE,
    CHROM_ID_RE,
    FASTQ_PATH_RE,
    INPUT_TYPE_HINT,
    NAMESPACE_WORDS,
    RECOGNISED_HINT,
    FileSniffer,
    Lines,
    Notes,
    Source,
    ambiguous,
    compressed_fact,
    compression_evidence,
    count_noun,
    decode,
    id_namespace,
    is_ensembl_gene,
    organism_fact,
    quote_list,
    unreadable,
)
from bioplan.request.sniffers.columns import (
    ANNOTATION_NUMBER_COLUMNS,
    CONDITION_COLUMNS,
    DE_STATS,
    ENTREZ_HEADERS,
    FEATURECOUNTS_COLUMNS,
    GENE_HEADERS,
    NA,
    SAMPLE_COLUMNS,
    Column,
    annotation_number,
    estimated_counts,
    norm_header,
    num,
)
from bioplan.request.sniffers.diversity import refuse_diversity_results
from bioplan.request.sniffers.quantification import QUANT_LAYOUTS, quant_table, tx2gene_table

_TABLE_BUDGET = 16 << 20
_TABLE_ROWS = 200_000
_TABLE_MAX_COLUMNS = 20_000  # columns of a delimited table the classifier reads (each costs it time)
_TABLE_CELLS = 1_000_000  # cells it reads at most: wide tables are read for fewer rows


ROW_NAMES = "(row names)"  # the header cell R's write.table leaves out over the row names


def _semicolon_conversion(shown: str, sample: Sequence[str]) -> list[str]:
    """The command that turns a semicolon-separated table into TSV, when it is safe: no tab and no decimal
    comma ('1,5') in the lines read (a field holding ';' inside quotes is rare in sample sheets)."""
    if any("\t" in ln or re.search(r"(?<![\w.])\d+,\d+(?![\w.])", ln) for ln in sample):
        return []
    path = Path(shown)
    out = path.with_suffix(".tsv") if path.suffix.lower() != ".tsv" else path.with_name(path.stem + ".tabs.tsv")
    return [f"convert it: tr ';' '\\t' < {shlex.quote(shown)} > {shlex.quote(str(out))}"]


def _split_delimiter(src: Source, lines: list[str]) -> str | None:
    """Tab, comma or None (one column); raises for semicolon- or space-separated tables."""
    sample = [ln for ln in lines[:200] if ln.strip()]
    if not sample:
        return None
    if all("\t" in ln for ln in sample):
        return "\t"
    if sum("\t" in ln for ln in sample) >= 0.8 * len(sample) and src.ext in (".tsv", ".tab", ".txt", ".gmt"):
        return "\t"
    if all("," in ln for ln in sample):
        return ","
    if all(";" in ln for ln in sample):
        raise unreadable(src.shown, "looks semicolon-separated (Excel's CSV where the decimal mark is a comma); "
                         "the workflow's steps read tab- or comma-separated text", [
            "save it as comma- (CSV) or tab-separated (TSV) text (Excel: Save As 'Text (Tab delimited)')",
            *_semicolon_conversion(src.shown, sample)], expected="TSV/CSV table")
    widths = {len(ln.split()) for ln in sample}
    if len(widths) == 1 and widths.pop() > 1:
        raise unreadable(src.shown, "looks like a table separated by spaces", [
            "save it tab-separated (TSV) or comma-separated (CSV)"], expected="TSV/CSV table")
    return None


def _table_format(src: Source, delim: str | None) -> str:
    if delim == ",":
        return "csv"
    if delim == "\t":
        return "tsv"
    return "csv" if src.ext == ".csv" else "tsv" if src.ext in (".tsv", ".tab") else "txt"


def _read_table_lines(src: Source) -> tuple[list[str], list[str], bool]:
    """(leading comment lines, other non-empty lines, whole file read)."""
    reader = Lines(src, _TABLE_BUDGET)
    comments: list[str] = []
    body: list[str] = []
    for line in reader:
        if not body and line.startswith("#"):
            comments.append(line)
            continue
        if line.startswith("#") and "\t" not in line and "," not in line:
            continue  # a comment line among the rows (QIIME 2's manifest allows them anywhere)
        if line.strip():
            body.append(line)
            if len(body) >= _TABLE_ROWS:
                break
    return comments, _join_quoted(body), reader.complete and len(body) < _TABLE_ROWS


_QUOTED_LINES = 20  # a quoted field spans at most this many lines (else the quote is a stray '"': 5" in a cell)


def _join_quoted(lines: list[str]) -> list[str]:
    """The lines as records: a quoted field holding a line break (Excel writes one for Alt+Enter in a cell, a
    sample sheet's notes) joins its lines into one record, as csv.reader reads them; a quote left open for more
    than _QUOTED_LINES lines is a stray one and joins nothing."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        record, j = lines[i], i + 1
        if record.count('"') % 2:
            while j < len(lines) and j - i <= _QUOTED_LINES and record.count('"') % 2:
                record, j = record + "\n" + lines[j], j + 1
            if record.count('"') % 2:
                record, j = lines[i], i + 1
        out.append(record)
        i = j
    return out


def _within_cell_budget(src: Source, body: list[str], delim: str, complete: bool) -> tuple[list[str], bool]:
    """The rows the classifier reads: each column costs it time, so a table wider than _TABLE_MAX_COLUMNS
    is refused (a 3 MB .gz of '1\\t' ran for minutes: half a million columns), and a wide one is read
    for at most _TABLE_CELLS cells (fewer rows; `complete` is then False)."""
    width = body[0].count(delim) + 1  # quoted delimiters only over-count
    if width > _TABLE_MAX_COLUMNS:
        raise unreadable(src.shown, f"has {width:,} columns in its first line; bioplan reads tables of up to "
                         f"{_TABLE_MAX_COLUMNS:,} columns (a matrix of more cells belongs in 10x MTX or h5ad)",
                         ["give the matrix as a 10x MTX folder or an AnnData .h5ad"])
    keep = max(2, _TABLE_CELLS // width)
    return (body[:keep], False) if len(body) > keep else (body, complete)


def _sniff_table(src: Source, prefixes: Mapping[str, str]) -> SniffedFile:
    comments, body, complete = _read_table_lines(src)
    if not body:
        raise unreadable(src.shown, "holds no data (only blank or '#' comment lines)", [RECOGNISED_HINT])
    featurecounts = any("featureCounts" in c for c in comments)
    delim = _split_delimiter(src, body)
    # a '#'-prefixed header line ("#sample<TAB>condition") counts as the header
    if comments and delim and not featurecounts:
        last = comments[-1].lstrip("#").strip()
        if last and len(last.split(delim)) == len(body[0].split(delim)) > 1:
            body.insert(0, last)
    fmt = _table_format(src, delim)
    if delim is None:
        return _sniff_gene_list(src, [ln.strip() for ln in body], fmt, prefixes, complete)
    body, complete = _within_cell_budget(src, body, delim, complete)
    rows = [[c.strip() for c in row] for row in csv.reader(body, delimiter=delim)]
    rows = [r for r in rows if any(r)]
    if not rows:
        raise unreadable(src.shown, "holds only delimiters, no values", [RECOGNISED_HINT])
    widths = Counter(len(r) for r in rows)
    if delim == "\t" and all(len(r) >= 3 for r in rows) and (src.ext == ".gmt" or len(widths) > 2):
        gmt = _sniff_gmt(src, rows, prefixes)
        if gmt is not None:
            return gmt
    width = max(widths, key=lambda w: (widths[w], w))
    if len(rows[0]) == width - 1 and len(rows) > 1:  # R write.table: no header cell over the row names
        rows[0] = [ROW_NAMES] + rows[0]
    for i, r in enumerate(rows):
        if len(r) != width:
            raise unreadable(src.shown, f"malformed table: row {i + 1} has {len(r)} fields but most rows have {width}",
                             ["every row of a table needs the same number of columns (check quoting and "
                               "stray delimiters)"], expected="TSV/CSV table")
    keep = [j for j in range(width) if any(r[j] for r in rows)]  # trailing delimiters make empty columns
    if len(keep) < width:
        rows = [[r[j] for j in keep] for r in rows]
    if len(keep) == 1:
        return _sniff_gene_list(src, [r[0] for r in rows], fmt, prefixes, complete)
    return _classify_table(src, rows, fmt, prefixes, complete, featurecounts, comments)


def _has_header(rows: list[list[str]], prefixes: Mapping[str, str]) -> bool:
    first = rows[0]
    if len(rows) < 2:  # one row: data when it holds a number
        return not any(num(c) is not None for c in first)
    if any(norm_header(c) in GENE_HEADERS or norm_header(c) in SAMPLE_COLUMNS
           or norm_header(c) in CONDITION_COLUMNS for c in first):
        return True
    body = rows[1:2001]
    for j, cell in enumerate(first):
        col = [r[j] for r in body if r[j].lower() not in NA]
        if not col:
            continue
        if all(num(v) is not None for v in col) and num(cell) is None and cell.lower() not in NA:
            return True
        ns = id_namespace(col, prefixes)[0]
        if ns == "ensembl" and not is_ensembl_gene(cell, prefixes):
            return True
    # a table of words only: sheets and mappings have a header row by convention
    return not any(num(c) is not None for c in first)


def _classify_table(src: Source, rows: list[list[str]], fmt: str, prefixes: Mapping[str, str], complete: bool,
                    featurecounts: bool, comments: Sequence[str] = ()) -> SniffedFile:
    header = _has_header(rows, prefixes)
    names = rows[0] if header else [f"column_{j + 1}" for j in range(len(rows[0]))]
    data = rows[1:] if header else rows
    if not data:
        raise unreadable(src.shown, "table with a header row but no data rows", expected="TSV/CSV table")
    cols = [Column.of(names[j], [r[j] for r in data], prefixes) for j in range(len(names))]
    normed = [norm_header(n) for n in names]
    evidence = [f"{fmt.upper()} table: {len(data)}{'' if complete else '+'} row{'' if len(data) == 1 else 's'} x "
                f"{count_noun(len(cols), 'column')}"
                + ("" if header else ", no header row")] + compression_evidence(src)

    if header and normed == FEATURECOUNTS_COLUMNS[:5]:  # featureCounts' annotation, not its counts
        raise unreadable(src.shown, "is an SAF annotation (featureCounts' simplified format: GeneID, Chr, Start, End, "
                         "Strand), which bioplan does not take as an input",
                         ["give the gene annotation as GTF or GFF3 (featureCounts reads it directly)"],
                         expected="a recognised input")
    if normed[:6] == FEATURECOUNTS_COLUMNS or featurecounts and "geneid" in normed:
        # its annotation columns, all six or those a `cut -f1,6-` or `cut -f1,7-` left
        annotation = next((i for i, n in enumerate(normed) if i and n not in FEATURECOUNTS_COLUMNS[1:]), len(cols))
        kept = ", ".join(c.name for c in cols[:annotation])
        return _count_matrix(src, cols, fmt, prefixes, complete, evidence + [
            f"featureCounts output: {kept} column{'s' if annotation > 1 else ''}"], annotation=annotation)
    layout = next((q for q in QUANT_LAYOUTS if header and tuple(normed[:len(q.columns)]) == q.columns), None)
    if layout is not None:
        return quant_table(src, layout, names, cols, evidence, comments, prefixes)
    tx2gene = tx2gene_table(src, rows, fmt, prefixes, evidence)
    if tx2gene is not None:
        return tx2gene
    has_fc = any(n in DE_STATS[0] for n in normed)
    has_p = any(n in DE_STATS[1] for n in normed)
    if header and has_fc and has_p:
        return _de_table(src, cols, normed, fmt, prefixes, evidence)
    peaks = None if header and normed[0] not in ("chrom", "chr", "seqnames", "seqname") else \
        _peak_table(src, cols, fmt, evidence, header)
    if peaks is not None:
        return peaks
    mapping = _mapping_table(src, cols, normed, fmt, prefixes, evidence, header)
    if mapping is not None:
        return mapping

    _refuse_contrasts_file(src, cols, normed)
    refuse_diversity_results(src, names, data, header, complete)
    # count matrix (mostly numbers) vs sample sheet (mostly words)
    rest = cols[1:]
    numeric = [c for c in rest if c.numeric]
    score = _matrix_score(cols, normed, len(data))
    if abs(score) < 0.2:
        raise ambiguous(
            src.shown,
            f"could be a count matrix or a sample sheet: {len(numeric)} of {len(rest)} value columns are numeric and "
            f"neither the ids ({quote_list([r[0] for r in data], 3)}) nor the column names settle it",
            ["raw_count_matrix", "sample_metadata"],
            ["a sample sheet needs a 'sample' column and a 'condition' (or group/treatment) column",
             "a count matrix needs gene ids (Ensembl, Entrez or symbols) in the first column",
             f"or declare it: --input-type {src.shown}=raw_count_matrix (or sample_metadata)"])
    if score > 0:
        return _count_matrix(src, cols, fmt, prefixes, complete, evidence, annotation=None)
    return _sample_sheet(src, cols, normed, fmt, evidence, header)


def _refuse_contrasts_file(src: Source, cols: list[Column], normed: list[str]) -> None:
    """nf-core/differentialabundance's contrasts file (variable, reference, target[, blocking]) is no sample
    sheet (it was "2 input files are 'sample_metadata'"): the compared levels come from the request."""
    if not {"variable", "reference", "target"} <= set(normed):
        return
    by = dict(zip(normed, cols))
    rows = list(dict.fromkeys(zip(by["variable"].values, by["target"].values, by["reference"].values)))
    said = "; ".join(f"{v}: {t} against {r}" for v, t, r in rows[:3]) + (" ..." if len(rows) > 3 else "")
    blocking = sorted({b for b in by["blocking"].values if b.lower() not in NA}) if "blocking" in by else []
    hints = [f"leave it out and say the contrast in the request, e.g. '{rows[0][1]} vs {rows[0][2]}' (the "
             f"condition column '{rows[0][0]}' of the sample sheet holds the levels)" if rows else
             "leave it out and say the contrast in the request ('KO vs WT')"]
    if blocking:
        hints.append(f"a blocking factor ({quote_list(blocking)}) is a paired or covariate design, which bioplan "
                     "does not plan: its DE compares the condition's levels alone")
    raise unreadable(src.shown, f"is an nf-core/differentialabundance contrasts file ({said}), not a sample sheet "
                     "or a count matrix; bioplan takes one contrast from the request", hints, override=False)


def _matrix_score(cols: list[Column], normed: list[str], n_rows: int) -> float:
    """> 0: a count matrix (numbers, gene ids); < 0: a sample sheet (words, sample and condition columns)."""
    rest = cols[1:]
    numeric = [c for c in rest if c.numeric]
    sheet_signal = 0.0
    if any(n in CONDITION_COLUMNS for n in normed) or any(c.paths for c in cols):
        sheet_signal = 1.0
    elif any(n in SAMPLE_COLUMNS[:-2] for n in normed):
        sheet_signal = 0.5
    count_signal = 0.0
    ids_unique = cols[0].distinct == n_rows - cols[0].n_missing
    row_numbers = cols[0].values == [str(i) for i in range(1, n_rows + 1)]
    if ids_unique and (cols[0].namespace == "ensembl" or cols[0].namespace == "entrez" and not row_numbers
                       and normed[0] not in SAMPLE_COLUMNS):
        count_signal = 1.0
    elif normed[0] in GENE_HEADERS:
        count_signal = 0.5
    score = (len(numeric) / len(rest) - 0.5) * 2 + count_signal - sheet_signal
    if n_rows > 200:
        score += 0.3  # sheets rarely have hundreds of rows; gene tables have thousands
    return min(score, -1.0) if not numeric else score


def _first_non_count(value_cols: list[Column], ids: Column) -> tuple[tuple[str, str, str] | None, int]:
    """((value, column, row id) of the first value that is not a non-negative integer, or None; the
    number of missing values seen). Reading stops at the end of a column once a negative value was
    seen (the matrix cannot be counts), so `missing` is a lower bound then."""
    integer, negative = True, False
    example = None
    missing = 0
    for c in value_cols:
        for i, v in enumerate(c.values):
            x = num(v)
            if x is None:
                missing += 1
                continue
            if x < 0:
                negative = True
            if x < 0 or not x.is_integer():
                if integer:
                    example = (v, c.name, ids.values[i])
                integer = False
        if not integer and negative:
            break
    return example, missing


def _count_values(src: Source, value_cols: list[Column], ids: Column,
                  complete: bool) -> tuple[str, list[Fact], int]:
    """Raw counts (whole numbers), estimated counts (Salmon/kallisto/RSEM via tximport: not whole, read as raw
    counts the count-based steps round) or normalised values: the datatype, the facts saying which (the first
    one's evidence is the reading's), and the number of missing values."""
    example, missing = _first_non_count(value_cols, ids)
    if example is None:
        why = f"integer values in all {len(value_cols)} numeric columns"
        return "raw_count_matrix", [Fact(name="integer_counts", value=True, evidence=why),
                                    Fact(name="read_counts", value=True, evidence=why)], missing
    v, col, row = example
    if (num(v) or 0.0) < 0:
        why = f"negative values (e.g. {v} in column '{col}', row '{row}'): log-scale or centred, not read counts"
        estimated = False
    else:
        numbers = [[x for x in map(num, c.values) if x is not None] for c in value_cols]
        estimated, because = estimated_counts(numbers, src.shown, complete)
        why = (f"non-integer values (e.g. {v} in column '{col}', row '{row}'): "
               + (f"estimated read counts (Salmon/kallisto/RSEM via tximport; {because}), rounded to whole numbers "
                  "by the count-based steps (DESeq2's advice for estimated counts)" if estimated
                  else f"normalised, not read counts ({because})"))
    facts = [Fact(name="integer_counts", value=False, evidence=why),
             Fact(name="read_counts", value=estimated, evidence=why)]
    if estimated:
        facts.append(Fact(name="estimated_counts", value=True, evidence=why))
    return ("raw_count_matrix" if estimated else "normalized_count_matrix"), facts, missing


_COUNTER_ROWS = ("__no_feature", "__ambiguous", "__too_low_aqual", "__not_aligned", "__alignment_not_unique",
                 "n_unmapped", "n_multimapping", "n_nofeature", "n_ambiguous")


_COUNTER_PATTERN = '^"?(__|N_(unmapped|multimapping|noFeature|ambiguous)\\b)'


def _refuse_counter_rows(src: Source, ids: Column) -> None:
    """HTSeq's counters (the last rows) or STAR ReadsPerGene's (the first) kept in a matrix pasted from the
    per-sample files reach the DE steps as genes: refused with the grep that drops them. The head's ids and,
    for an uncompressed file, its last 4 KB are looked at."""
    tail: list[str] = []
    if src.compression is None:
        with open(src.path, "rb") as fh:
            fh.seek(max(0, src.path.stat().st_size - 4096))
            tail = [ln.split("\t")[0].split(",")[0].strip('"') for ln in decode(fh.read()).splitlines()[1:]]
    found = list(dict.fromkeys(i for i in [*ids.values, *tail] if i.lower() in _COUNTER_ROWS))
    if found:
        shown = shlex.quote(src.shown)
        raise unreadable(src.shown, f"count matrix holding the counting tool's summary rows {quote_list(found)} "
                         "(HTSeq's __no_feature.., STAR's N_unmapped..), which the DE steps would take for genes",
                         [f"drop them: grep -v -E '{_COUNTER_PATTERN}' {shown} > "
                          f"{shlex.quote(str(Path(src.shown).with_name('genes_' + Path(src.shown).name)))}"],
                         expected="count matrix")


def _count_matrix(src: Source, cols: list[Column], fmt: str, prefixes: Mapping[str, str], complete: bool,
                  evidence: list[str], annotation: int | None) -> SniffedFile:
    ids = cols[0]
    if annotation is None:  # numbers under an annotation's name (a gene's length, start, end) are not a sample
        value_cols = [c for c in cols[1:] if c.numeric and norm_header(c.name) not in ANNOTATION_NUMBER_COLUMNS]
        annot = [c for c in cols[1:] if c not in value_cols]
    else:
        value_cols = cols[annotation:]
        annot = cols[1:annotation]
        bad = [c.name for c in value_cols if not c.numeric]
        if bad:
            raise unreadable(src.shown,
                             f"featureCounts table whose count column(s) {quote_list(bad)} are not numeric",
                             expected="count matrix")
    if not value_cols:
        raise unreadable(src.shown, "table without numeric sample columns", expected="count matrix")
    gene_named = [c.name for c in value_cols if is_ensembl_gene(c.name, prefixes)]
    if len(gene_named) >= 0.9 * len(value_cols) and ids.namespace != "ensembl":
        raise unreadable(
            src.shown, f"genes are columns ({quote_list(gene_named, 3)}) and samples are rows: bioplan takes "
            "count matrices with one row per gene and one column per sample",
            ["transpose it (e.g. pandas: df.T.to_csv(...)) so that gene ids are the first column"],
            expected="count matrix")
    _refuse_counter_rows(src, ids)
    n = len(value_cols)
    datatype, facts, missing = _count_values(src, value_cols, ids, complete)
    evidence.append(facts[0].evidence)
    ns, share = id_namespace(ids.values[:2000], prefixes)
    facts += [
        Fact(name="id_namespace", value=ns,
             evidence=f"first column '{ids.name}' ids like {quote_list(ids.values, 3)}"
             + (f" ({share:.0%} {ns})" if ns != "unknown" else "")),
    ]
    org = organism_fact(ids.values[:2000], prefixes, "ids")
    if org:
        facts.append(org)
        evidence.append(org.evidence)
    names = [c.name for c in value_cols]
    facts += [
        Fact(name="n_genes", value=len(ids.values),
             evidence=f"{'' if complete else 'at least '}{count_noun(len(ids.values), 'row')}"),
        Fact(name="n_samples", value=n, evidence=f"{n} numeric columns"),
        *([Fact(name="header_without_id_cell", value=True, evidence="the header line has one field fewer than the "
                "rows (R's write.table with row names)")] if ids.name == ROW_NAMES else []),
        Fact(name="sample_names", value=names, evidence=f"numeric column names {quote_list(names)}"),
    ]
    more_facts, more_evidence = _matrix_notes(src, annot, annotation is not None, missing, complete)
    return SniffedFile(path=src.shown, datatype=datatype, format=fmt, evidence=tuple(evidence + more_evidence),
                       facts=tuple(facts + more_facts))


def _matrix_notes(src: Source, annot: list[Column], featurecounts: bool, missing: int,
                  complete: bool) -> tuple[list[Fact], list[str]]:
    """Annotation columns, the featureCounts layout, missing values, a partial read, compression."""
    facts: list[Fact] = []
    evidence: list[str] = []
    if annot:
        a = [c.name for c in annot]
        facts.append(Fact(name="annotation_columns", value=a, evidence=f"non-sample columns {quote_list(a)}"))
        evidence.append(f"annotation column(s) besides the counts: {quote_list(a)}")
    if featurecounts:
        facts.append(Fact(name="featurecounts", value=True, evidence="featureCounts column layout"))
    if missing:
        evidence.append(f"{missing} missing (NA/empty) values")
    if not complete:
        facts.append(Fact(name="scanned_whole_file", value=False,
                          evidence=f"stopped after {_TABLE_BUDGET >> 20} MB / {_TABLE_ROWS} rows"))
    return facts + compressed_fact(src), evidence


def _de_table(src: Source, cols: list[Column], normed: list[str], fmt: str, prefixes: Mapping[str, str],
              evidence: list[str]) -> SniffedFile:
    stats = [c.name for c, n in zip(cols, normed) if n in DE_STATS[0] or n in DE_STATS[1]]
    evidence.append(f"differential expression statistics columns {quote_list(stats)}")
    ns, _ = id_namespace(cols[0].values[:2000], prefixes)
    facts = [Fact(name="id_namespace", value=ns, evidence=f"first column ids like {quote_list(cols[0].values, 3)}"),
             Fact(name="n_genes", value=len(cols[0].values), evidence=count_noun(len(cols[0].values), "row"))]
    org = organism_fact(cols[0].values[:2000], prefixes, "ids")
    if org:
        facts.append(org)
    return SniffedFile(path=src.shown, datatype="differential_expression_table", format=fmt,
                       evidence=tuple(evidence), facts=tuple(facts + compressed_fact(src)))




def _peak_table(src: Source, cols: list[Column], fmt: str, evidence: list[str],
                header: bool = False) -> SniffedFile | None:
    """narrowPeak/broadPeak are peak calls; other BED-like interval files are refused."""
    if len(cols) < 3 or not (cols[1].numeric and cols[2].numeric):
        return None
    starts_ok = all(v.isdigit() for v in cols[1].values) and all(v.isdigit() for v in cols[2].values)
    if not starts_ok or not all(CHROM_ID_RE.match(v) or CHROM_ACC_RE.match(v) for v in cols[0].values[:200]):
        return None
    if not all(int(e) >= int(s) for s, e in zip(cols[1].values[:200], cols[2].values[:200])):
        return None
    ext = src.ext
    if ext in (".narrowpeak", ".broadpeak") or len(cols) in (9, 10) and fmt == "tsv":
        peak_fmt = "narrowpeak" if ext == ".narrowpeak" or (ext != ".broadpeak" and len(cols) == 10) else "broadpeak"
        return SniffedFile(path=src.shown, datatype="peak_calls", format=peak_fmt,
                           evidence=tuple(evidence + [f"{peak_fmt} intervals: chrom, start <= end, "
                                                      f"{len(cols)} columns"]),
                           facts=tuple([Fact(name="n_peaks", value=len(cols[0].values),
                                             evidence=count_noun(len(cols[0].values), "row"))] + compressed_fact(src)))
    if header and fmt == "tsv":
        # R's write.table / pandas' to_csv of a GRanges-like frame: the intervals are BED's but the first line names
        # the columns, which bedtools and MACS2 would read as an interval; a '#' makes it a comment line they skip
        named = ", ".join(f"'{c.name}'" for c in cols[:4]) + (", ..." if len(cols) > 4 else "")
        fixed = re.sub(r"(\.(bed|txt|tsv|tab))?(\.b?gz)?$", "", src.shown, count=1, flags=re.IGNORECASE) \
            + ".commented.bed"
        given = f"zcat {shlex.quote(src.shown)} | sed '1s/^/#/'" if src.compression else \
            f"sed '1s/^/#/' {shlex.quote(src.shown)}"
        raise unreadable(src.shown, f"is a BED interval file under a column-header line ({named}); BED has no header "
                         "row (bedtools and MACS2 would read it as an interval)",
                         [f"comment the header line out and give that file: {given} > {shlex.quote(fixed)}"],
                         expected="BED intervals")
    raise unreadable(src.shown, "looks like a BED interval file (chromosome, start, end), which bioplan does not "
                     "take as an input", [RECOGNISED_HINT, INPUT_TYPE_HINT], expected="a recognised input")


def _mapping_table(src: Source, cols: list[Column], normed: list[str], fmt: str, prefixes: Mapping[str, str],
                   evidence: list[str], header: bool) -> SniffedFile | None:
    if any(n in CONDITION_COLUMNS or n in SAMPLE_COLUMNS[:-2] for n in normed):
        return None
    spaces: dict[str, str] = {}
    for c, n in zip(cols, normed):
        ns = c.namespace
        rows = len(c.values) - c.n_missing
        unique = c.distinct >= 0.8 * max(1, rows)
        if c.numeric and header and annotation_number(n):
            continue  # coordinates, lengths, GC content beside the ids (a BioMart export)
        if ns == "entrez" or (c.numeric and n in ENTREZ_HEADERS):
            # integers are Entrez ids when the header says so, or (headerless) beside Ensembl ids, all distinct
            if n in ENTREZ_HEADERS or (not header and unique and len(cols) == 2):
                spaces.setdefault("entrez", c.name)
                continue
            if c.numeric:
                return None  # a numeric value column: not a mapping
        elif c.numeric:
            return None
        elif ns == "ensembl":
            spaces.setdefault("ensembl", c.name)
        elif ns == "symbol" and (unique or n in GENE_HEADERS):
            spaces.setdefault("symbol", c.name)
    if len(spaces) < 2 or not ({"ensembl", "entrez"} & set(spaces)):
        return None
    desc = ", ".join(f"'{col}' ({ns})" for ns, col in spaces.items())
    facts = [Fact(name="namespaces", value=dict(spaces), evidence=f"id columns {desc}"),
             Fact(name="n_genes", value=len(cols[0].values), evidence=count_noun(len(cols[0].values), "row"))]
    if "ensembl" in spaces:
        ens = next(c for c in cols if c.name == spaces["ensembl"])
        org = organism_fact(ens.values[:2000], prefixes, "Ensembl ids")
        if org:
            facts.append(org)
    return SniffedFile(path=src.shown, datatype="gene_id_mapping", format=fmt,
                       evidence=tuple(evidence + [f"gene ids of {len(spaces)} namespaces side by side: {desc}"]),
                       facts=tuple(facts + compressed_fact(src)))


def _condition_column(cols: list[Column], normed: list[str], sample_col: Column,
                      evidence: list[str]) -> tuple[Column | None, str]:
    """The column holding each sample's condition and why it was chosen: by its name, else the one other
    categorical column; when that is ambiguous or absent, (None, "") with the reason added to `evidence`."""
    by_name = {n: c for c, n in zip(cols, normed) if c is not sample_col}
    # GEOquery's pData names a characteristic 'treatment:ch1' (channel 1): read as 'treatment'
    geo = {re.sub(r":ch\d$", "", n): c for n, c in by_name.items() if re.search(r":ch\d$", n)}
    by_name.update({n: c for n, c in geo.items() if n not in by_name})
    for name in CONDITION_COLUMNS:
        if name in by_name:
            return by_name[name], f"column named '{by_name[name].name}'"
    candidates = [c for c, n in zip(cols, normed) if c is not sample_col and not c.numeric and not c.paths
                  and n not in LANE_COLUMNS and 1 < c.distinct < len(c.values) - c.n_missing]
    if len(candidates) == 1:
        return candidates[0], f"the only other categorical column, '{candidates[0].name}'"
    if candidates:
        evidence.append(f"several candidate condition columns ({quote_list([c.name for c in candidates])}); "
                        "name one 'condition'")
    else:
        evidence.append("no condition column (condition/group/treatment/...) found")
    return None, ""


def _replicate_facts(sample_col: Column, condition: Column, why: str, evidence: list[str]) -> list[Fact]:
    """The condition column and samples per level (a sample's first non-missing level counts)."""
    per_sample: dict[str, str] = {}
    for s, level in zip(sample_col.values, condition.values):
        if s.lower() not in NA and level.lower() not in NA:
            per_sample.setdefault(s, level)
    counts = Counter(per_sample.values())
    replicates = {level: counts[level] for level in dict.fromkeys(per_sample.values())}
    shown = ", ".join(f"{k}: {v}" for k, v in replicates.items())
    evidence.append(f"condition column '{condition.name}' ({why}): {shown}")
    return [
        Fact(name="condition_column", value=condition.name, evidence=why),
        Fact(name="replicates", value=replicates, evidence=f"samples per level of '{condition.name}': {shown}"),
        Fact(name="min_replicates", value=min(replicates.values()) if replicates else 0,
             evidence=f"fewest samples in one level of '{condition.name}'"),
    ]


def _refuse_indistinguishable_levels(shown: str, sample_col: Column, condition: Column) -> None:
    """Levels of the condition column that differ only in case, Unicode form, lookalike letters of another script
    or characters that draw nothing (`control`, `Control`, `сontrol` with a Cyrillic Es, `control` + U+200B) are
    refused: every DE and grouping step reads them as distinct groups, so a sample the sheet shows as `control`
    was silently compared as a third group (or the replicates check failed naming no cause). Said with the file,
    the column, the levels (their lookalike and invisible characters named) and the samples of each."""
    rows: dict[str, list[str]] = {}
    for s, level in zip(sample_col.values, condition.values):
        if s.lower() not in NA and level.lower() not in NA:
            rows.setdefault(level, []).append(s)
    clashes = indistinguishable_names(list(rows))
    if not clashes:
        return
    shown_levels = "; ".join(" and ".join(
        f"{lv!r}{lookalikes_in(lv)} (sample{'s' if len(rows[lv]) > 1 else ''} {quote_list(rows[lv][:3])}"
        f"{', ...' if len(rows[lv]) > 3 else ''})" for lv in group) for group in clashes[:5])
    raise AmbiguousInputError(
        f"{shown}: levels of the condition column '{condition.name}' that differ only in letter case, Unicode "
        f"form, letters of another script drawn like Latin ones or characters that draw nothing: {shown_levels}: "
        "a reader sees one group, the differential and grouping steps compare them as different groups",
        [f"to resolve, write each group's level the same way in column '{condition.name}' of {shown} (e.g. all "
         "'control'), or rename one so that the groups differ in more than case, encoding and lookalike letters"],
        {"path": shown, "column": condition.name, "levels": clashes})


def _refuse_indistinguishable_samples(shown: str, column: str, samples: list[str]) -> None:
    """Sample names of a sheet naming no files (the columns of a count matrix, an h5ad's samples) that differ only as
    condition levels may (`S1` and `s1`, `ctrl_1` and `сtrl_1` with a Cyrillic Es): every step and result table
    keeps them apart, every reader of those results takes them for one sample."""
    clashes = indistinguishable_names(samples)
    if clashes:
        shown_names = "; ".join(" and ".join(f"{n!r}{lookalikes_in(n)}" for n in group) for group in clashes[:5])
        raise AmbiguousInputError(
            f"{shown}: sample names in column '{column}' that differ only in letter case, Unicode form, letters of "
            f"another script drawn like Latin ones or characters that draw nothing: {shown_names}: a reader of the "
            "results takes them for one sample",
            [f"to resolve, rename one of each pair in {shown} and in the data it describes (e.g. the count matrix's "
             "columns) so that they differ in more than case, encoding and lookalike letters, or merge them if they "
             "are one sample"],
            {"path": shown, "column": column, "samples": clashes})


def _sample_sheet(src: Source, cols: list[Column], normed: list[str], fmt: str, evidence: list[str],
                  header: bool) -> SniffedFile:
    by_header = dict(zip(normed, cols))
    sample_col = next((by_header[n] for n in SAMPLE_COLUMNS if n in by_header), cols[0])
    samples = list(dict.fromkeys(v for v in sample_col.values if v.lower() not in NA))
    if ".." in (s.strip() for s in samples):
        raise unreadable(src.shown, f"the sample name '..' in column '{sample_col.name}' cannot name a sample "
                         "(outputs go to one folder per sample)",
                         ["rename the sample to letters, digits, '_' or '-' (and the matching count column)"],
                         override=False)
    numeric = sum(c.numeric for c in cols)
    evidence.append(f"mostly words: {numeric} of {len(cols)} columns numeric")
    evidence.append(f"sample column '{sample_col.name}' ({len(samples)} samples)")
    fastq_cols = [c.name for c in cols if c.paths]
    if not fastq_cols:  # ids of FASTQ rows become file names: codegen/names.py refuses those, naming their files
        _refuse_indistinguishable_samples(src.shown, sample_col.name, samples)
    facts = [Fact(name="samples", value=samples, evidence=f"column '{sample_col.name}': {quote_list(samples)}"),
             Fact(name="sample_column", value=sample_col.name, evidence="the column holding the sample names")]
    condition, why = _condition_column(cols, normed, sample_col, evidence)
    if condition is not None:
        _refuse_indistinguishable_levels(src.shown, sample_col, condition)
        facts += _replicate_facts(sample_col, condition, why, evidence)
    without_data = _rows_without_data(sample_col, condition, [c for c in cols if c is not sample_col])
    if without_data:  # left out by every step: said, never dropped silently
        facts.append(Fact(name="rows_without_data", value=without_data,
                          evidence=f"{count_noun(len(without_data), 'row')} without data: "
                          + "; ".join(without_data[:10])))
    if fastq_cols:
        facts.append(Fact(name="fastq_columns", value=fastq_cols,
                          evidence=f"columns of FASTQ paths {quote_list(fastq_cols)}"))
        # each row's FASTQ paths (nf-core/sarek's fastq_1, fastq_2): the reads the sheet names
        listed = [[s.strip(), *(c.values[i].strip() for c in cols if c.paths)]
                  for i, s in enumerate(sample_col.values) if s.lower() not in NA]
        facts.append(Fact(name="fastq_files", value=listed, evidence=f"FASTQ paths of {len(listed)} rows"))
        lane = next((by_header[n] for n in LANE_COLUMNS if n in by_header), None)
        if lane is not None:  # nf-core/sarek's lane: each row one lane of its sample, merged per sample
            lanes = [lane.values[i].strip() for i, s in enumerate(sample_col.values) if s.lower() not in NA]
            facts.append(Fact(name="fastq_lanes", value=lanes, evidence=f"lane column '{lane.name}'"))
        evidence.append(f"FASTQ paths in {quote_list(fastq_cols)}")
    facts.append(Fact(name="columns", value=[c.name for c in cols],
                      evidence="header row" if header else "no header row: columns numbered"))
    facts += _patient_facts(by_header, sample_col)
    facts += compressed_fact(src)
    return SniffedFile(path=src.shown, datatype="sample_metadata", format=fmt, evidence=tuple(evidence),
                       facts=tuple(facts))


# the lane (or run) of a sample each row's FASTQ files are (nf-core/sarek's `lane` column)
LANE_COLUMNS = ("lane", "lane_id", "run", "run_id")
# the individual each sample comes from (nf-core/sarek's `patient` column)
PATIENT_COLUMNS = ("patient", "patient_id", "individual", "individual_id", "subject", "subject_id", "donor",
                   "donor_id", "case_id", "case")
# whether a sample is a tumour or the matched normal (sarek's `status`: 1 tumour, 0 normal)
STATUS_COLUMNS = ("status", "tumour_normal", "tumor_normal", "tumour_status", "tumor_status", "sample_type",
                  "tissue_type", "type")


def _patient_facts(by_header: Mapping[str, Column], sample_col: Column) -> list[Fact]:
    """The individuals a sheet's patient column names (tumour/normal cohorts: several patients) and,
    with a status column beside it, each row's (row number, sample, patient, status as written):
    what pairs each patient's tumour with its normal (request/passes/individuals.py reads the values)."""
    column = next((by_header[n] for n in PATIENT_COLUMNS if n in by_header), None)
    facts = []
    if column is not None:
        patients = list(dict.fromkeys(v for v in column.values if v.lower() not in NA))
        facts = [Fact(name="patients", value=patients, evidence=f"column '{column.name}': {quote_list(patients)}"),
                 Fact(name="patient_column", value=column.name, evidence="column named after the individual")]
    status = next((by_header[n] for n in STATUS_COLUMNS if n in by_header and by_header[n] is not column), None)
    if status is None or status is sample_col:
        return facts
    # no patient column: the samples of one individual (patient '' here, named by the pairing pass)
    individuals = column.values if column is not None else [""] * len(sample_col.values)
    rows = [[i + 1, s.strip(), p.strip(), t.strip()] for i, (s, p, t)
            in enumerate(zip(sample_col.values, individuals, status.values)) if s.lower() not in NA]
    return facts + [Fact(name="status_column", value=status.name, evidence="tumour/normal status column"),
                    Fact(name="patient_rows", value=rows,
                         evidence=f"sample '{sample_col.name}', patient '{column.name if column else '(one)'}', "
                                  f"status '{status.name}' of {count_noun(len(rows), 'row')}")]


def _rows_without_data(sample_col: Column, condition: Column | None, others: list[Column]) -> list[str]:
    """Sheet rows the workflow cannot use: no sample id, or a sample with no condition level (no values at all
    when there is no condition column). Blank rows are not rows."""
    missing: list[str] = []
    for i, sample in enumerate(sample_col.values):
        if sample.lower() in NA:
            missing.append(f"data row {i + 1}: no sample id in column '{sample_col.name}'")
        elif condition is not None and condition.values[i].lower() in NA:
            missing.append(f"sample '{sample}': no value in column '{condition.name}'")
        elif condition is None and others and all(c.values[i].lower() in NA for c in others):
            missing.append(f"sample '{sample}': no values")
    return missing


_LIST_DATATYPES = {"ensembl": "ensembl_gene_list", "entrez": "entrez_gene_list", "symbol": "gene_symbol_list"}



_REGION_RE = re.compile(r"^[\w.|*-]+:\d[\d,]*-\d[\d,]*$")  # samtools' chr:start-end (no gene id holds a ':')


def _refuse_region_list(src: Source, values: list[str]) -> None:
    """A one-column list of regions ('q:0-5000', freebayes' and samtools' --region notation) was read as gene
    symbols."""
    sample = values[:2000]
    if sample and sum(bool(_REGION_RE.match(v)) for v in sample) >= 0.9 * len(sample):
        # samtools' regions count from 1 (BED's start is start - 1), freebayes' from 0 as BED does: a start of 0 says so
        zero = any(_REGION_RE.match(v) and v.rsplit(":", 1)[1].split("-")[0] == "0" for v in sample)
        start, base = ("$2", "they count from 0, as BED does") if zero else ("$2 - 1", "samtools' regions count "
                                                                              "from 1, BED from 0")
        raise unreadable(src.shown, f"is a list of genomic regions ({quote_list(values, 3)}: chr:start-end, as "
                         "samtools, bcftools and freebayes --region read them), not gene ids", [
                             f"give the regions as a BED file: tr -d , < {src.shown} | awk -F'[:-]' -v OFS='\\t' "
                             f"'{{print $1, {start}, $3}}' > regions.bed ({base})"], expected="gene list")


def _refuse_barcode_list(src: Source, values: list[str]) -> None:
    """A one-column list of cell barcodes (Cell Ranger's barcodes.tsv, a Drop-seq or STARsolo cell list given
    alone) was read as gene symbols."""
    sample = values[:2000]
    if len(sample) >= 2 and sum(bool(BARCODE_RE.match(v)) for v in sample) >= 0.9 * len(sample):
        raise unreadable(src.shown, f"is a list of {len(values)} cell barcodes ({quote_list(values, 3)}: Cell Ranger's "
                         "barcodes.tsv, a Drop-seq or STARsolo list of cells), not gene ids", [
                             "give the cells' count matrix: the whole 10x folder (matrix.mtx.gz with its "
                             "features.tsv.gz or genes.tsv and this barcodes file), a Cell Ranger .h5, an .h5ad or a "
                             "Drop-seq DGE matrix"], expected="gene list")


def _sniff_gene_list(src: Source, values: list[str], fmt: str, prefixes: Mapping[str, str],
                     complete: bool) -> SniffedFile:
    values = [v.strip().strip('"') for v in values if v.strip()]
    header = None
    if len(values) > 1:
        rest_ns, _ = id_namespace(values[1:2001], prefixes)
        head_ns, _ = id_namespace(values[:1], prefixes)
        if norm_header(values[0]) in GENE_HEADERS or (rest_ns in ("ensembl", "entrez") and head_ns != rest_ns):
            header, values = values[0], values[1:]
    _refuse_region_list(src, values)
    _refuse_barcode_list(src, values)
    ns, share = id_namespace(values[:2000], prefixes)
    if ns == "unknown" or not values:
        example = quote_list(values, 3)
        hints = [RECOGNISED_HINT, INPUT_TYPE_HINT]
        if values and all(FASTQ_PATH_RE.search(v) for v in values[:50]):
            hints.insert(0, "give the FASTQ files themselves, or a sample sheet with a 'sample' column")
        raise unreadable(src.shown, f"one-column file whose values ({example}) are not gene ids of one namespace "
                         "(Ensembl, Entrez or symbols)", hints, expected="gene list")
    evidence = [f"one column of {len(values)}{'' if complete else '+'} {NAMESPACE_WORDS[ns]} ({share:.0%}), e.g. "
                f"{quote_list(values, 3)}"] + compression_evidence(src)
    if header:
        evidence.append(f"header '{header}'")
    facts = [Fact(name="id_namespace", value=ns, evidence=evidence[0]),
             Fact(name="n_genes", value=len(values), evidence=f"{len(values)} ids")]
    org = organism_fact(values[:2000], prefixes, "ids")
    if org:
        facts.append(org)
        evidence.append(org.evidence)
    facts += compressed_fact(src)
    return SniffedFile(path=src.shown, datatype=_LIST_DATATYPES[ns], format=fmt, evidence=tuple(evidence),
                       facts=tuple(facts))


def _sniff_gmt(src: Source, rows: list[list[str]], prefixes: Mapping[str, str]) -> SniffedFile | None:
    names = [r[0] for r in rows]
    genes = [g for r in rows for g in r[2:] if g]
    ns, share = id_namespace(genes[:5000], prefixes)
    if ns == "unknown" or len(set(names)) < len(names) or (ns == "entrez" and src.ext != ".gmt"):
        if src.ext == ".gmt":
            raise unreadable(src.shown, "not a valid GMT file: each line must be a unique set name, a description, "
                             "then gene ids of one namespace", expected="GMT")
        return None
    sizes = [len([g for g in r[2:] if g]) for r in rows]
    evidence = [f"GMT: {len(rows)} gene sets (name, description, {min(sizes)}-{max(sizes)} genes each)",
                f"genes are {NAMESPACE_WORDS[ns]} ({share:.0%})"] + compression_evidence(src)
    facts = [Fact(name="n_sets", value=len(rows), evidence=count_noun(len(rows), "line")),
             Fact(name="id_namespace", value=ns, evidence=f"genes like {quote_list(genes, 3)}")]
    org = organism_fact(genes[:5000], prefixes, "gene ids")
    if org:
        facts.append(org)
    return SniffedFile(path=src.shown, datatype="gene_set_library", format="gmt", evidence=tuple(evidence),
                       facts=tuple(facts + compressed_fact(src)))


# --------------------------------------------------------------------------- registry entries

# The fallback for text nothing else took: every table reading, quantifier tables and tx2gene
# maps included (quantification.py reads those once the columns say so).
TABLE = FileSniffer(
    "delimited table", ("csv", "tsv", "txt", "narrowpeak", "broadpeak", "gmt", "salmon_quant", "kallisto_quant",
                        "rsem_quant", "tx2gene"),
    ("raw_count_matrix", "normalized_count_matrix", "differential_expression_table", "peak_calls", "gene_id_mapping",
     "sample_metadata", *_LIST_DATATYPES.values(), "gene_set_library", "transcript_quantification",
     "transcript_gene_map"),
    lambda src, ctx: True,
    lambda src, ctx: (_sniff_table(src, ctx.prefixes), Notes()))

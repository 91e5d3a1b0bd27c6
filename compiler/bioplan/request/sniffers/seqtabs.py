"""DADA2 sequence tables as R writes them (`write.table`, `write.csv` or `saveRDS` then a CSV export of
`makeSequenceTable`'s or `removeBimeraDenovo`'s matrix, the tutorial's `seqtab.nochim`): the amplicon sequence
variants named by their exact sequences, in the column names (samples in rows, DADA2's own orientation) or in the
row names (`t(seqtab)`), with no id column. Before this the table reader took them for a genes x samples count
matrix or, space-separated, for a one-column file; the abundance reader for a generic taxa table. bioplan's DADA2
steps and diversity read one ASV per row with `asv_id` and `sequence` columns, so these are refused by name with the
R command that writes that layout, which is then read as the ASV table (`abundance.py`)."""

from __future__ import annotations

import csv
import re
import shlex

from bioplan.models import SniffedFile
from bioplan.request.sniffers.base import Context, FileSniffer, Notes, Source, count_noun, quote_list, unreadable

# an exact ASV: bases only, longer than any primer or barcode (V4 ASVs are ~250 nt, ITS ones 100-500 nt)
_ASV_RE = re.compile(r"^[ACGTN]{50,}$")
ASV_RUN_RE = re.compile(r"[ACGTN]{50}")  # the registry's cheap test of the head
_SEPARATORS = {"\t": '"\\t"', ",": '","', " ": '""'}  # the delimiter -> read.table's sep


def _cells(line: str) -> tuple[list[str], str]:
    delim = "\t" if "\t" in line else "," if "," in line else " "
    row = next(csv.reader([line], delimiter=delim, skipinitialspace=delim == " "), [])
    return [c.strip().strip('"') for c in row if delim != " " or c], delim


def orientation(src: Source) -> tuple[str, list[str], str] | None:
    """('columns', the other names, delimiter) when the header names ASVs by their sequences (samples in rows),
    ('rows', the sample names, delimiter) when the rows do (the first cell of every data row read), else None."""
    lines = [ln for ln in src.text_lines if ln.strip()]
    if not lines:
        return None
    header, delim = _cells(lines[0])
    named = [c for c in header if c]
    if len(named) >= 1 and all(_ASV_RE.match(c) for c in named):
        rows = [_cells(ln)[0][0] for ln in lines[1:] if _cells(ln)[0]]
        return "columns", rows, delim
    firsts = [_cells(ln)[0][0] for ln in lines[1:21] if _cells(ln)[0]]
    if firsts and all(_ASV_RE.match(c) for c in firsts):
        return "rows", [c for c in header if c], delim
    return None


def _claims(src: Source, ctx: Context) -> bool:
    return orientation(src) is not None


def conversion_command(shown: str, delim: str) -> str:
    """The R command that writes bioplan's ASV table (asv_id, sequence, one count column per sample) from a DADA2
    sequence table in either orientation."""
    out = re.sub(r"(\.(txt|tsv|csv|tab))?(\.gz)?$", "", shown, flags=re.IGNORECASE) + ".asv_table.tsv"
    code = ("a <- commandArgs(TRUE); m <- as.matrix(read.table(a[1], header = TRUE, sep = " + _SEPARATORS[delim]
            + ", row.names = 1, check.names = FALSE)); if (all(grepl(\"^[ACGTN]+$\", colnames(m)))) m <- t(m); "
            "write.table(data.frame(asv_id = sprintf(\"ASV_%d\", seq_len(nrow(m))), sequence = rownames(m), m, "
            "check.names = FALSE), a[2], sep = \"\\t\", quote = FALSE, row.names = FALSE)")
    return f"Rscript -e {shlex.quote(code)} {shlex.quote(shown)} {shlex.quote(out)}"


def _read(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    found = orientation(src)
    assert found is not None  # _claims took it
    layout, names, delim = found
    where = ("samples in rows, one column per ASV named by its exact sequence, as R writes makeSequenceTable's "
             "matrix" if layout == "columns" else
             "one row per ASV named by its exact sequence, no id column (R's t(seqtab))")
    samples = f"; samples {quote_list(names, 5)}" if names else ""
    raise unreadable(
        src.shown, f"is a DADA2 sequence table ({where}{samples}), a layout bioplan's amplicon steps do not read",
        [f"write it as an ASV table, one ASV per row with asv_id and sequence columns then a count column per "
         f"sample ({count_noun(len(names), 'sample')} here), and give that: "
         f"{conversion_command(src.shown, delim)}"],
        expected="ASV table (asv_id, sequence, one count column per sample)")


SEQTABS = FileSniffer("DADA2 sequence tables named by the ASVs' sequences (refused with the conversion)", (), (),
                      _claims, _read)

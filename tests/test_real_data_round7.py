"""Real files, round 7: DADA2 sequence tables, tximport's length-scaled counts under a plain name, a cells x
genes table exported with numbered cells, and the encodings spreadsheets and gzip give them
(tests/data/real_round7, README: sources and commands).

Before round 7 a DADA2 seqtab written by R (write.table, write.csv, t(seqtab)) was read as a genes x samples count
matrix of its sequences, or as a "one-column file"; bioplan's own ASV table layout (asv_id, sequence, samples) as a
generic abundance table; tximport's length-scaled counts named matrix.tsv as normalised values (DESeq2 refused); a
cells x genes table whose cells are numbered (singleCellTab.csv) as a bulk count matrix of its genes. Now a seqtab
is refused by name with the R command that writes the ASV table, which is then read as one (chimera-free when its
name says nochim); a complete matrix whose every column sums to a whole number of reads is estimated counts; the
numbered cells over gene columns, mostly zeros, are a single-cell matrix.
"""

from __future__ import annotations

import gzip
import importlib.util
import math
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from bioplan.compile import plan_request
from bioplan.errors import BioplanError
from bioplan.request.sniff import sniff_inputs
from bioplan.request.sniffers.columns import read_totals

ROOT = Path(__file__).resolve().parents[1]
R7 = Path(__file__).parent / "data" / "real_round7"
DADA2, TXI, SC = R7 / "dada2", R7 / "tximport", R7 / "single_cell"
DE = "differential expression analysis with DESeq2"
DIVERSITY = "alpha and beta diversity of the ASVs"


def one(path: Path):
    return sniff_inputs([str(path)], {"ENSG": "organism_human", "ENST": "organism_human"}).files[0]


def refused(path: Path) -> BioplanError:
    with pytest.raises(BioplanError) as e:
        one(path)
    return e.value


def tools(result) -> list[str]:
    return [s.tool for s in result.plans[0].steps]


# ------------------------------------------------------------------------------------------- DADA2 sequence tables

SEQTABS = [("seqtab.nochim.txt", "samples in rows", '""'),  # write.table: space-separated, quoted, short header
           ("seqtab.nochim.csv", "samples in rows", '","'),  # write.csv
           ("seqtab.nochim.t.tsv", "one row per ASV", '"\\t"')]  # write.table(t(seqtab), sep = "\t")


@pytest.mark.parametrize("name, layout, sep", SEQTABS)
def test_a_dada2_seqtab_is_refused_by_name_with_the_command_that_writes_the_asv_table(name, layout, sep):
    e = refused(DADA2 / name)
    assert e.code == "unreadable_input" and str(DADA2 / name) in str(e)
    assert "DADA2 sequence table" in str(e) and layout in str(e) and "'sam1', 'sam2'" in str(e)
    command = next(h for h in e.hints if "Rscript -e" in h)
    assert f"sep = {sep}," in command and "asv_id" in command and "2 samples here" in command


@pytest.mark.e2e  # runs R three times
def test_the_seqtab_conversion_command_writes_the_asv_table_bioplan_reads(tmp_path):
    if shutil.which("Rscript") is None:
        pytest.skip("Rscript is not installed")
    for name, _, _ in SEQTABS:
        given = shutil.copy(DADA2 / name, tmp_path / name)
        hint = next(h for h in refused(Path(given)).hints if "Rscript -e" in h)
        subprocess.run(shlex.split(hint[hint.index("Rscript -e"):]), check=True, capture_output=True, timeout=60)
    for written in sorted(tmp_path.glob("*.asv_table.tsv")):  # either orientation gives the same table
        assert written.read_text() == (DADA2 / "seqtab.nochim.asv_table.tsv").read_text()
    assert len(list(tmp_path.glob("*.asv_table.tsv"))) == 2  # seqtab.nochim.{txt,csv} write one name


def test_a_gzipped_excel_saved_seqtab_is_refused_the_same_way(tmp_path):
    raw = (DADA2 / "seqtab.nochim.csv").read_bytes()
    excel = tmp_path / "seqtab.csv"
    excel.write_bytes(b"\xef\xbb\xbf" + raw.replace(b"\n", b"\r\n"))  # UTF-8 BOM, CRLF
    packed = tmp_path / "seqtab.nochim.csv.gz"
    packed.write_bytes(gzip.compress(raw, mtime=0))
    for path in (excel, packed):
        assert "DADA2 sequence table" in str(refused(path))


def test_the_asv_table_is_read_as_one_and_nochim_in_its_name_says_chimeras_removed(knowledge, tmp_path):
    f = one(DADA2 / "seqtab.nochim.asv_table.tsv")
    assert f.datatype == "nonchimeric_asv_table" and f.fact("sample_names") == ["sam1", "sam2"]
    assert any("'nochim'" in e for e in f.evidence)
    plain = one(shutil.copy(DADA2 / "seqtab.nochim.asv_table.tsv", tmp_path / "asvs.tsv"))
    assert plain.datatype == "asv_table" and any("exact sequence" in e for e in plain.evidence)
    result = plan_request(DIVERSITY, [str(DADA2 / "seqtab.nochim.asv_table.tsv")], knowledge=knowledge)
    assert tools(result) == ["diversity_metrics"]
    assert [i.datatype for i in result.spec.inputs] == ["nonchimeric_asv_table"]


# ------------------------------------------------------------------------------- tximport, length-scaled TPM

def test_length_scaled_counts_under_a_plain_name_are_estimated_counts_by_their_read_totals(knowledge):
    f = one(TXI / "gene_matrix.tsv")
    assert f.datatype == "raw_count_matrix" and f.fact("estimated_counts") is True
    assert "sums to a whole number of reads" in f.facts[0].evidence
    result = plan_request(DE, [str(TXI / "gene_matrix.tsv"), str(TXI / "samples.csv")], knowledge=knowledge)
    assert tools(result) == ["deseq2"]
    assert any("round them to whole numbers" in w for w in result.warnings)


def test_transcript_level_length_scaled_counts_with_r_row_names_are_counts_too():
    f = one(TXI / "tx_matrix.csv")
    assert f.datatype == "raw_count_matrix" and f.fact("estimated_counts") is True


def test_tpm_from_the_same_run_stays_normalised():
    f = one(TXI / "gene_abundance.tsv")  # tximport's abundance: TPM summed per gene
    assert f.datatype == "normalized_count_matrix" and f.fact("read_counts") is False


def test_the_read_total_rule_needs_enough_columns_for_chance_to_be_ruled_out():
    assert read_totals([2320.001, 2324.002, 2323.999, 2321.001], 10)  # this run's four samples
    assert read_totals([2320.001, 2324.002], 10)  # two columns of 10 genes: a chance of 0.0007
    assert read_totals([2320.3, 2324.002, 2323.999, 2321.001], 10) is None  # one column off a whole total
    assert read_totals([12e6 + 0.05] * 3, 20000) is None  # 3 columns of 20,000 genes: chance not ruled out
    assert read_totals([12e6 + 0.05] * 8, 20000)
    assert read_totals([100.0, 100.0, 100.0, 100.0], 10) is None  # percentages


def test_the_run_time_twin_reads_the_same_totals():
    spec = importlib.util.spec_from_file_location("bioplan_step_round7", ROOT / "templates" / "scripts" /
                                                  "bioplan_step.py")
    assert spec is not None and spec.loader is not None
    step = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(step)
    import pandas as pd

    values = pd.read_csv(TXI / "gene_matrix.tsv", sep="\t", index_col=0)
    estimated, why = step.estimated_counts(values, TXI / "gene_matrix.tsv")
    assert estimated and "whole number of reads" in why
    tpm = pd.read_csv(TXI / "gene_abundance.tsv", sep="\t", index_col=0)
    assert step.estimated_counts(tpm, TXI / "gene_abundance.tsv")[0] is False


# ------------------------------------------------------------------------------------ single-cell tables

def test_a_cells_x_genes_table_with_numbered_cells_is_a_single_cell_matrix(knowledge):
    f = one(SC / "singleCellTab.csv")
    assert f.datatype == "single_cell_matrix" and f.fact("orientation") == "cells x genes"
    assert "numbered cells" in f.evidence[0] and "'cell1'" in f.evidence[0]
    result = plan_request("cluster the cells and find marker genes", [str(SC / "singleCellTab.csv")],
                          knowledge=knowledge)
    assert result.spec.inputs[0].datatype == "single_cell_matrix" and "scanpy_qc" in tools(result)


def test_a_dense_bulk_table_with_numbered_samples_is_not_a_cell_table(tmp_path):
    """A bulk samples x genes table has few zeros: numbered rows under gene columns alone do not make cells."""
    lines = (SC / "singleCellTab.csv").read_text().splitlines()
    dense = [lines[0]] + [",".join([row.split(",")[0]] + [str(int(v) + 5) for v in row.split(",")[1:]])
                          for row in lines[1:]]
    path = tmp_path / "samples_by_genes.csv"
    path.write_text("\n".join(dense) + "\n")
    assert one(path).datatype != "single_cell_matrix"


# ------------------------------------------------------------------ encodings a count matrix arrives in

def _variants(src: Path, tmp: Path) -> dict[str, Path]:
    raw = src.read_bytes()
    out = {"gzip": tmp / "counts.tsv.gz", "crlf_bom": tmp / "counts_excel.tsv", "comments": tmp / "counts_c.tsv"}
    out["gzip"].write_bytes(gzip.compress(raw, mtime=0))
    out["crlf_bom"].write_bytes(b"\xef\xbb\xbf" + raw.replace(b"\n", b"\r\n"))
    out["comments"].write_bytes(b"# exported from R\n# tximport lengthScaledTPM\n" + raw)
    return out


@pytest.mark.parametrize("kind", ["gzip", "crlf_bom", "comments"])
def test_length_scaled_counts_are_read_alike_gzipped_from_excel_or_under_comment_lines(tmp_path, kind):
    f = one(_variants(TXI / "gene_matrix.tsv", tmp_path)[kind])
    assert f.datatype == "raw_count_matrix" and f.fact("estimated_counts") is True
    assert f.fact("sample_names") == ["S1", "S2", "S3", "S4"]


def test_a_semicolon_excel_csv_and_an_xlsx_workbook_are_refused_naming_the_file_and_the_remedy(tmp_path):
    semi = tmp_path / "samples.csv"
    semi.write_text((TXI / "samples.csv").read_text().replace(",", ";"))
    e = refused(semi)
    assert str(semi) in str(e) and "semicolon" in str(e) and any("tr ';'" in h for h in e.hints)
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    for row in (TXI / "samples.csv").read_text().splitlines():
        book.active.append(row.split(","))
    xlsx = tmp_path / "samples.xlsx"
    book.save(xlsx)
    e = refused(xlsx)
    assert str(xlsx) in str(e) and "Excel workbook" in str(e) and any("CSV" in h for h in e.hints)


# ------------------------------------------------------------------------ BED under a column-header line

BEDTOOLS = R7 / "bedtools"


@pytest.mark.parametrize("name", ["t.bed", "values3.unmarked_header.bed"])
def test_a_bed_under_a_header_row_is_refused_with_the_sed_that_comments_it_out(tmp_path, name):
    """bedtools' own test files: 'chrom chromStart chromEnd name score strand' and 'Chrom start end A B C' above
    the intervals (was "looks like a BED interval file, which bioplan does not take as an input")."""
    e = refused(BEDTOOLS / name)
    assert str(BEDTOOLS / name) in str(e) and "under a column-header line" in str(e)
    hint = next(h for h in e.hints if "sed '1s/^/#/'" in h)
    fixed = tmp_path / "fixed.bed"  # what the hint's command writes
    fixed.write_text("#" + (BEDTOOLS / name).read_text())
    assert hint.endswith(".commented.bed")
    with pytest.raises(BioplanError) as settled:  # a plain BED: peaks or a blacklist, as any other BED
        one(fixed)
    assert settled.value.code == "ambiguous_input" and "BED file of" in str(settled.value)


def test_the_commented_bed_is_the_blacklist_of_a_blacklist_filtering(knowledge, tmp_path):
    fixed = tmp_path / "t.commented.bed"
    fixed.write_text("#" + (BEDTOOLS / "t.bed").read_text())
    peaks = tmp_path / "sample1_peaks.narrowPeak"
    peaks.write_text("chr14\t24800100\t24800200\tpeak1\t100\t.\t5.0\t10.0\t8.0\t50\n")
    result = plan_request("filter the peaks against the blacklist", [str(peaks), str(fixed)], knowledge=knowledge)
    assert [i.datatype for i in result.spec.inputs] == ["peak_calls", "genome_blacklist"]
    assert tools(result) == ["bedtools_intersect_blacklist"]


def test_a_gzipped_bed_under_a_header_row_gets_a_zcat_in_its_command(tmp_path):
    packed = tmp_path / "t.bed.gz"
    packed.write_bytes(gzip.compress((BEDTOOLS / "t.bed").read_bytes(), mtime=0))
    hint = next(h for h in refused(packed).hints if "sed" in h)
    assert f"zcat {packed} | sed '1s/^/#/' > {tmp_path / 't.commented.bed'}" in hint


# ---------------------------------------------------------------------------- per-cell metadata tables

def test_an_anndata_obs_export_is_refused_as_cell_metadata_naming_what_to_give():
    """scanpy's pbmc68k_reduced obs written with to_csv (n_genes, n_counts, phase, louvain per barcode): it was a raw
    count matrix of 200 'genes' x 4 'samples'."""
    e = refused(SC / "pbmc68k_reduced.obs.csv")
    assert str(SC / "pbmc68k_reduced.obs.csv") in str(e) and "per-cell metadata table" in str(e)
    assert "'AAAGCCTGGCTAAC-1'" in str(e) and any(".h5ad" in h for h in e.hints)


def test_a_seurat_meta_data_export_with_numbered_cells_is_refused_the_same_way(tmp_path):
    lines = ["," + ",".join(["orig.ident", "nCount_RNA", "nFeature_RNA", "seurat_clusters"])]
    lines += [f"cell{i},SeuratProject,{900 + i},{400 + i},{i % 3}" for i in range(1, 31)]
    meta = tmp_path / "singleCellTab.csv"
    meta.write_text("\n".join(lines) + "\n")
    assert "per-cell metadata table" in str(refused(meta))


def test_numbered_rows_that_repeat_are_no_cells(tmp_path):
    """A cells x genes table written without its cell names: the first gene's counts are no cell ids."""
    lines = (SC / "singleCellTab.csv").read_text().splitlines()
    headless = [lines[0].split(",", 1)[1]] + [row.split(",", 1)[1] for row in lines[1:]]
    path = tmp_path / "no_names.csv"
    path.write_text("\n".join(headless) + "\n")
    assert one(path).datatype != "single_cell_matrix"


def test_sambamba_depth_base_output_is_refused_by_name():
    """covtobed's example output of `sambamba depth base` (REF POS COV A C G T DEL REFSKIP SAMPLE): it was read as a
    raw count matrix of positions."""
    path = R7 / "covtobed" / "sambamba.txt"
    e = refused(path)
    assert str(path) in str(e) and "sambamba depth base output" in str(e)
    assert any("give the alignments (BAM)" in h for h in e.hints)


def _lognormalised(tmp_path: Path) -> Path:
    """singleCellTab.csv as Seurat's NormalizeData / scanpy's log1p leave it: log(1 + 10,000 x count / total)."""
    lines = (SC / "singleCellTab.csv").read_text().splitlines()
    out = [lines[0]]
    for row in lines[1:]:
        name, *values = row.split(",")
        counts = [int(v) for v in values]
        total = sum(counts) or 1
        out.append(",".join([name] + [f"{math.log1p(1e4 * c / total):.4f}" for c in counts]))
    path = tmp_path / "singleCellTab.csv"
    path.write_text("\n".join(out) + "\n")
    return path


def test_a_lognormalised_cell_table_is_refused_with_the_command_that_writes_its_anndata(tmp_path):
    """It was a bulk normalised count matrix of its genes."""
    path = _lognormalised(tmp_path)
    e = refused(path)
    assert str(path) in str(e) and "dense single-cell table (cells x genes" in str(e) and "normalised values" in str(e)
    hint = next(h for h in e.hints if "python -c" in h)
    assert "write_h5ad(sys.argv[2])" in hint and hint.endswith(f"{path} {tmp_path / 'singleCellTab.h5ad'})")


def test_the_anndata_written_from_the_lognormalised_table_is_normalised_cells(tmp_path):
    anndata = pytest.importorskip("anndata")
    pd = pytest.importorskip("pandas")
    path = _lognormalised(tmp_path)
    anndata.AnnData(pd.read_csv(path, sep=",", index_col=0)).write_h5ad(tmp_path / "cells.h5ad")  # the hint's code
    assert one(tmp_path / "cells.h5ad").datatype == "normalized_single_cell_matrix"


def test_an_asv_table_without_nochim_in_its_name_gets_its_chimeras_removed_when_asked(knowledge, tmp_path):
    table = shutil.copy(DADA2 / "seqtab.nochim.asv_table.tsv", tmp_path / "seqtab.asv_table.tsv")
    result = plan_request("remove chimeras, assign taxonomy with the SILVA training set and compute alpha diversity",
                          [str(table)], knowledge=knowledge)
    assert [i.datatype for i in result.spec.inputs] == ["asv_table"]
    assert set(tools(result)) == {"dada2_rmchimera", "dada2_assigntaxonomy", "diversity_metrics"}


def test_a_barcode_list_alone_is_no_normalised_cell_table():
    """Cell Ranger 2's barcodes.tsv given by itself: one column of barcodes, no values to call normalised."""
    path = ROOT / "tests" / "data" / "real_studies" / "seurat" / "cr2" / "barcodes.tsv"
    try:
        found = one(path).datatype
    except BioplanError as e:
        found = str(e)
    assert "normalised values" not in found

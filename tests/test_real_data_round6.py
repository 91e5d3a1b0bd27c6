"""Real files, round 6: count matrices and sample sheets as they are downloaded and hand-made
(tests/data/real_round6, README: sources and what was cut or derived).

Before round 6 a sheet whose sample names column is not called 'sample' (pasilla's `file`), or whose names
differ from the matrix's columns by case, by R's make.names or by a suffix (pasilla's 'treated1fb' against
'treated1'), was planned with a warning and the DE step stopped at run time ("has no 'sample' column", "samples
... are not columns of the count matrix"); nf-core/differentialabundance's contrasts file was "2 input files are
'sample_metadata'"; a semicolon-separated sheet was refused without a way to convert it. Now each is refused
naming the problem and the renaming or conversion that works, and the fixed files plan.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bioplan.compile import plan_request
from bioplan.errors import BioplanError
from bioplan.request.sniffers.sheet_matrix import make_names, name_mapping

R6 = Path(__file__).parent / "data" / "real_round6"
DE = "differential expression analysis with DESeq2"


def _plan(knowledge, request: str, *names: str | Path):
    return plan_request(request, [str(n if isinstance(n, Path) else R6 / n) for n in names], knowledge=knowledge)


def _refused(knowledge, request: str, *names: str | Path) -> BioplanError:
    with pytest.raises(BioplanError) as e:
        _plan(knowledge, request, *names)
    return e.value


def _tools(result) -> list[str]:
    return [s.tool for s in result.plans[0].steps]


# count matrix, sample sheet, the condition column DESeq2 compares
PLANNED = [
    ("SRP254919.gene_counts.head30.tsv", "SRP254919.samplesheet.csv", "treatment"),  # nf-core's own test data
    ("SRP254919.gene_counts.head30.tsv", "SRP254919.samplesheet.fastq.csv", "treatment"),  # fetchngs sheet, s3 FASTQs
    ("SRP254919.gene_counts.head30.tsv", "SRP254919.samplesheet.condition_1.tsv", "condition_1"),  # levels w/ spaces
    ("SRP254919.gene_counts.versions.tsv", "SRP254919.samplesheet.csv", "treatment"),  # ENSMUSG.5, biotype, length
]


@pytest.mark.parametrize("counts, sheet, condition", PLANNED)
def test_real_sheets_and_matrices_that_match_plan_deseq2(knowledge, counts, sheet, condition):
    result = _plan(knowledge, DE, counts, sheet)
    assert _tools(result) == ["deseq2"] and result.spec.condition_column == condition
    assert [i.datatype for i in result.spec.inputs] == ["raw_count_matrix", "sample_metadata"]


def test_the_contrast_the_request_names_sets_the_levels_of_the_nfcore_sheet(knowledge):
    result = _plan(knowledge, "differential expression hND6 vs mCherry with DESeq2",
                   "SRP254919.gene_counts.head30.tsv", "SRP254919.samplesheet.csv")
    assert any("DESeq2 reference_level mCherry, DESeq2 test_level hND6" in w for w in result.warnings)


def test_pasilla_sheet_is_refused_with_both_renames(knowledge):
    """pasilla's own annotation: names in column 'file', each the matrix's column plus 'fb'."""
    e = _refused(knowledge, "differential expression treated vs untreated",
                 "pasilla_gene_counts.head30.tsv", "pasilla_sample_annotation.csv")
    assert e.code == "ambiguous_input"
    assert "column 'file'" in e.message and "the suffix 'fb'" in e.message and "stop at run time" in e.message
    assert any("rename the column 'file'" in h and "to 'sample'" in h for h in e.hints)
    assert any("'treated1fb' -> 'treated1'" in h for h in e.hints)
    assert e.details["renames"]["untreated4fb"] == "untreated4"


def test_pasilla_sheet_plans_once_renamed_as_the_hints_say(knowledge, tmp_path):
    text = (R6 / "pasilla_sample_annotation.csv").read_text()
    fixed = tmp_path / "annotation.csv"
    fixed.write_text(re.sub(r'"(\w+)fb"', r'"\1"', text.replace('"file"', '"sample"', 1)))
    result = _plan(knowledge, DE, "pasilla_gene_counts.head30.tsv", fixed)
    assert _tools(result) == ["deseq2"] and result.spec.condition_column == "condition"
    assert not [w for w in result.warnings if "not columns" in w or "does not list" in w]


@pytest.mark.parametrize("counts, sheet, rule, pair", [
    ("SRP254919.gene_counts.lowercase.tsv", "SRP254919.samplesheet.csv", "case", ("SRX8042381", "srx8042381")),
    ("pasilla_gene_counts.write_csv.csv", "pasilla_sheet.digits.csv", "make.names", ("1_untreated1", "X1_untreated1")),
])
def test_names_that_differ_by_a_rule_are_refused_with_the_renames(knowledge, counts, sheet, rule, pair):
    e = _refused(knowledge, DE, counts, sheet)
    assert e.code == "ambiguous_input" and rule in e.message and "match sample names exactly" in e.message
    assert e.details["renames"][pair[0]] == pair[1]
    assert any(f"'{pair[0]}' -> '{pair[1]}'" in h for h in e.hints)


def test_nfcore_contrasts_file_is_named_with_the_contrast_to_write(knowledge):
    e = _refused(knowledge, DE, "SRP254919.gene_counts.head30.tsv", "SRP254919.samplesheet.csv",
                 "SRP254919.contrasts.csv")
    assert e.code == "unreadable_input" and "nf-core/differentialabundance contrasts file" in e.message
    assert "treatment: hND6 against mCherry" in e.message
    assert any("'hND6 vs mCherry'" in h for h in e.hints)
    assert any("blocking factor ('sample_number')" in h for h in e.hints)


@pytest.mark.parametrize("sheet", ["GSE60450_SampleInfo.csv", "SRP254919.samplesheet.excel.csv"])
def test_semicolon_sheets_are_refused_with_a_conversion_that_plans(knowledge, tmp_path, sheet):
    """GSE60450's SampleInfo.csv as a course ships it, and an Excel export (BOM, CRLF, trailing empty columns)."""
    shutil.copy(R6 / sheet, tmp_path / sheet)
    e = _refused(knowledge, DE, "SRP254919.gene_counts.head30.tsv", tmp_path / sheet)
    assert e.code == "unreadable_input" and "semicolon-separated" in e.message
    command = next(h for h in e.hints if h.startswith("convert it: "))[len("convert it: "):]
    if shutil.which("tr"):
        subprocess.run(command, shell=True, check=True, cwd=tmp_path, timeout=10)
        converted = tmp_path / Path(sheet).with_suffix(".tsv").name
        assert converted.exists()
        if sheet.startswith("SRP"):
            assert _tools(_plan(knowledge, DE, "SRP254919.gene_counts.head30.tsv", converted)) == ["deseq2"]


def test_a_semicolon_table_with_decimal_commas_gets_no_tr_command(knowledge, tmp_path):
    sheet = tmp_path / "s.csv"
    sheet.write_text("sample;condition;rin\nA;wt;7,5\nB;wt;8,1\nC;ko;6,9\nD;ko;9,0\n")
    e = _refused(knowledge, DE, "SRP254919.gene_counts.head30.tsv", sheet)
    assert "semicolon-separated" in e.message and not [h for h in e.hints if h.startswith("convert it")]


def test_a_sheet_alone_asks_for_the_count_matrix(knowledge):
    e = _refused(knowledge, "differential expression lactate vs virgin", "GSE60450_SampleInfo.txt")
    assert e.code == "unsatisfiable" and any("raw_count_matrix" in h for h in e.hints)


@pytest.mark.parametrize("name, r", [("1_wt", "X1_wt"), ("MCL1-DG", "MCL1.DG"), ("a b", "a.b"), (".5x", "X.5x"),
                                     ("_a", "X_a"), ("ok.name_1", "ok.name_1")])
def test_make_names_is_rs(name, r):
    assert make_names(name) == r  # as R 4's make.names() returns them


def test_no_rename_is_offered_when_a_rule_maps_two_names_to_one_column():
    assert name_mapping(["A", "a"], ["a"]) is None
    assert name_mapping(["s1x", "s2y"], ["s1", "s2"]) is None  # two different suffixes: no one rule
    assert name_mapping(["s1x", "s2x"], ["s1", "s2"]) == ("the suffix 'x'", {"s1x": "s1", "s2x": "s2"})


@pytest.mark.parametrize("counts, sheet, said", [
    # R's write.table(counts): the header has no cell over the row names (the DE steps took a sample for the ids)
    ("pasilla_gene_counts.write_table.tsv", "pasilla_sheet.csv", "no name over the gene ids"),
    # R's write.csv(colData): the sample names under an empty "" header cell
    ("pasilla_gene_counts.head30.tsv", "pasilla_coldata.write_csv.csv", "first column, which has no name"),
])
def test_r_written_tables_are_refused_with_a_sed_that_plans(knowledge, tmp_path, counts, sheet, said):
    for name in (counts, sheet):
        shutil.copy(R6 / name, tmp_path / name)
    e = _refused(knowledge, DE, tmp_path / counts, tmp_path / sheet)
    assert e.code == "ambiguous_input" and said in e.message and "stop at run time" in e.message
    command = next(h for h in e.hints if "sed " in h).split(": ", 1)[1]
    if not shutil.which("sed"):
        pytest.skip("no sed here")
    subprocess.run(command, shell=True, check=True, timeout=10)
    named = {n: tmp_path / re.sub(r"(\.\w+)$", r".named\1", n) for n in (counts, sheet)}
    fixed = [named[n] if named[n].exists() else tmp_path / n for n in (counts, sheet)]
    result = _plan(knowledge, DE, *fixed)
    assert _tools(result) == ["deseq2"]
    assert not [w for w in result.warnings if "not columns" in w or "does not list" in w]


def test_geoquery_pdata_characteristics_are_condition_columns(knowledge, tmp_path):
    """GEOquery's pData of GSE18508 (pasilla's GEO series) as a user writes it out: 'treatment:ch1' is the
    condition; its sample names are under 'title', named as the DE steps need once renamed."""
    e = _refused(knowledge, DE, "pasilla_gene_counts.head30.tsv", "pasilla_geo_pdata.tsv")
    assert "the column 'title'" in e.message and any("rename the column 'title' to 'sample'" in h for h in e.hints)
    fixed = tmp_path / "pdata.tsv"
    fixed.write_text((R6 / "pasilla_geo_pdata.tsv").read_text().replace("title", "sample", 1))
    result = _plan(knowledge, DE, "pasilla_gene_counts.head30.tsv", fixed)
    assert _tools(result) == ["deseq2"] and result.spec.condition_column == "treatment:ch1"


def test_a_sheet_with_two_candidate_condition_columns_is_refused_before_the_run(knowledge, tmp_path):
    sheet = tmp_path / "s.tsv"
    sheet.write_text("sample\tbatch\tgenotype_group\n" + "".join(
        f"{s}\tb{i % 2}\t{'ko' if s.startswith('treated') else 'wt'}\n"
        for i, s in enumerate(["untreated1", "untreated2", "untreated3", "untreated4", "treated1", "treated2",
                               "treated3"])))
    e = _refused(knowledge, DE, "pasilla_gene_counts.head30.tsv", sheet)
    assert e.code == "ambiguous_input" and "'batch', 'genotype_group'" in e.message
    assert any("to 'condition'" in h for h in e.hints)


def test_htseq_counters_pasted_into_a_matrix_are_refused_with_the_grep_that_drops_them(knowledge, tmp_path):
    name = "pasilla_gene_counts.htseq_counters.tsv"  # the per-sample HTSeq files pasted: its last rows __no_feature..
    shutil.copy(R6 / name, tmp_path / name)
    e = _refused(knowledge, DE, tmp_path / name, "pasilla_sheet.csv")
    assert e.code == "unreadable_input" and "'__no_feature'" in e.message and "take for genes" in e.message
    command = next(h for h in e.hints if h.startswith("drop them: "))[len("drop them: "):]
    if not shutil.which("grep"):
        pytest.skip("no grep here")
    subprocess.run(command, shell=True, check=True, timeout=10)
    assert _tools(_plan(knowledge, DE, tmp_path / f"genes_{name}", "pasilla_sheet.csv")) == ["deseq2"]

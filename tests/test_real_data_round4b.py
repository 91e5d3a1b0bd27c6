"""Real files, round 4b: estimated counts (Salmon via tximport, as nf-core/rnaseq merges them).

tests/data/real_round4b/ holds the first 300 genes of a real nf-core/rnaseq run's salmon.merged.gene_counts.tsv,
salmon.merged.gene_tpm.tsv and salmon.merged.gene_counts_length_scaled.tsv (README there). Before round 4b the
counts, whose estimates are not all whole (1862.999), were read as a normalised matrix and DESeq2 was refused with
a hint recommending "salmon NumReads", which are not whole either. Now they are read counts that the count-based
steps round (DESeq2's advice for estimated counts), said as a warning, and TPM, log values and size-factor
normalised counts are still refused for count-based DE, with a hint naming what to give instead.
"""

from __future__ import annotations

import importlib.util
import math
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from bioplan.compile import plan_request
from bioplan.errors import BioplanError
from bioplan.request.sniff import sniff_inputs
from bioplan.request.sniffers import columns

if TYPE_CHECKING:  # pandas loaded by the tests that read a table, not at import (conftest.SHARED_GROUPS)
    import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data" / "real_round4b"
SCRIPTS = ROOT / "templates" / "scripts"
COUNTS, TPM = DATA / "salmon.merged.gene_counts.tsv", DATA / "salmon.merged.gene_tpm.tsv"
SCALED = DATA / "salmon.merged.gene_counts_length_scaled.tsv"
SAMPLES = ["X1O", "X2O", "X3O", "P11_1", "P11_2", "P11_3"]
DESEQ2 = "differential expression with DESeq2 between P11 and control"


@pytest.fixture(scope="module")
def step_lib():
    """templates/scripts/bioplan_step.py, the emitted steps' helper module (its run-time twin of the rule)."""
    spec = importlib.util.spec_from_file_location("bioplan_step_round4b", SCRIPTS / "bioplan_step.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def one(path: Path):
    return sniff_inputs([str(path)], {"ENSG": "organism_human"}).files[0]


def table(path: Path) -> pd.DataFrame:
    import pandas as pd

    return pd.read_csv(path, sep="\t")


def write(frame: pd.DataFrame, path: Path) -> Path:
    frame.to_csv(path, sep="\t", index=False)
    return path


@pytest.mark.parametrize("path", [COUNTS, SCALED])
def test_nfcore_estimated_counts_are_read_counts(path):
    f = one(path)
    assert f.datatype == "raw_count_matrix"  # was normalized_count_matrix
    assert (f.fact("integer_counts"), f.fact("read_counts"), f.fact("estimated_counts")) == (False, True, True)
    assert f.fact("sample_names") == SAMPLES and f.fact("n_genes") == 300 and f.fact("organism") == "organism_human"
    why = f.facts[0].evidence
    assert "estimated read counts" in why and "says counts" in why and "rounded to whole numbers" in why


def test_estimated_counts_under_a_plain_name_are_read_by_their_whole_values(tmp_path):
    """Reads that map to one gene stay whole in an estimate (82% of the non-zero values of this slice)."""
    f = one(shutil.copy(COUNTS, tmp_path / "matrix.tsv"))
    assert f.datatype == "raw_count_matrix" and f.fact("estimated_counts") is True
    assert re.search(r"8\d% of the non-zero values are whole numbers", f.facts[0].evidence)
    # length-scaled counts have hardly a whole value left: without their name they are not told from FPKM
    g = one(shutil.copy(SCALED, tmp_path / "matrix2.tsv"))
    assert g.datatype == "normalized_count_matrix" and g.fact("read_counts") is False


def test_tpm_is_normalised_by_name_by_whole_values_and_by_column_sums(tmp_path):
    f = one(TPM)
    assert f.datatype == "normalized_count_matrix" and f.fact("read_counts") is False
    assert "the file name says 'tpm'" in f.facts[0].evidence
    neutral = one(shutil.copy(TPM, tmp_path / "matrix.tsv"))
    assert neutral.datatype == "normalized_count_matrix" and "% of the non-zero values" in neutral.facts[0].evidence
    tpm = table(TPM)
    tpm[SAMPLES] = tpm[SAMPLES] / tpm[SAMPLES].sum() * 1e6  # the whole file's columns sum to a million
    tpm[SAMPLES] = tpm[SAMPLES].round(6)
    summed = one(write(tpm, tmp_path / "gene_counts.tsv"))  # even named counts
    assert summed.datatype == "normalized_count_matrix" and "sums to a million" in summed.facts[0].evidence


def test_log_values_and_size_factor_normalised_counts_are_not_read_counts(tmp_path):
    counts = table(COUNTS)
    logged = counts.copy()
    logged[SAMPLES] = (logged[SAMPLES] + 1).map(math.log2).round(4)
    f = one(write(logged, tmp_path / "gene_counts.tsv"))
    assert f.datatype == "normalized_count_matrix" and "values only up to" in f.facts[0].evidence
    scaled = counts.copy()  # DESeq2's counts(dds, normalized = TRUE): whole counts over size factors
    for sample, factor in zip(SAMPLES, (0.83, 1.21, 0.97, 1.37, 0.74, 1.09)):
        scaled[sample] = (scaled[sample].round() / factor).round(6)
    g = one(write(scaled, tmp_path / "gene_counts.tsv"))
    assert g.datatype == "normalized_count_matrix" and "size-factor normalised" in g.facts[0].evidence


def test_a_fraction_or_two_among_whole_counts_is_not_an_estimate(tmp_path):
    counts = table(COUNTS)
    counts[SAMPLES] = counts[SAMPLES].round()
    counts.loc[3, "X1O"] += 0.5
    f = one(write(counts, tmp_path / "matrix.tsv"))
    assert f.datatype == "normalized_count_matrix" and "1 fractional value(s)" in f.facts[0].evidence


def _sheet(tmp_path: Path) -> str:
    sheet = tmp_path / "samples.tsv"
    sheet.write_text("sample\tcondition\n" + "".join(f"{s}\t{'P11' if s.startswith('P11') else 'control'}\n"
                                                   for s in SAMPLES))
    return str(sheet)


def test_deseq2_plans_on_estimated_counts_and_says_the_rounding(knowledge, tmp_path):
    result = plan_request(DESEQ2, [str(COUNTS), _sheet(tmp_path)], knowledge=knowledge)
    steps = {s.operation: s.tool for s in result.plans[0].steps}
    assert steps.get("differential_expression") == "deseq2"
    said = [w for w in result.warnings if "estimated counts" in w]
    assert said and "round them to whole numbers" in said[0] and "salmon.merged.gene_counts.tsv" in said[0]


def test_deseq2_on_tpm_is_refused_with_what_to_give(knowledge, tmp_path):
    with pytest.raises(BioplanError) as e:
        plan_request(DESEQ2, [str(TPM), _sheet(tmp_path)], knowledge=knowledge)
    assert e.value.code == "constraint_violation" and "requires_raw_integer_counts" in e.value.message
    hint = " ".join(e.value.hints)
    assert "salmon.merged.gene_counts.tsv" in hint and "TPM" in hint
    assert "NumReads" not in hint  # Salmon's NumReads are not whole either: the old hint's wrong advice


def _variants(tmp_path: Path) -> list[Path]:
    counts = table(COUNTS)
    logged = counts.copy()
    logged[SAMPLES] = (logged[SAMPLES] + 1).map(math.log2).round(4)
    return [COUNTS, SCALED, TPM, shutil.copy(COUNTS, tmp_path / "matrix.tsv"),
            shutil.copy(SCALED, tmp_path / "plain.tsv"), write(logged, tmp_path / "gene_counts_log.tsv")]


def test_the_run_time_rule_agrees_with_the_compiler(step_lib, tmp_path):
    """bioplan_step.estimated_counts (check_integer_counts.py, pydeseq2_de.py) reads as the sniffer does."""
    seen = []
    for path in _variants(tmp_path):
        values = table(path)[SAMPLES]
        at_run_time, _ = step_lib.estimated_counts(values, path)
        compiled, _ = columns.estimated_counts([values[s].tolist() for s in SAMPLES], str(path), True)
        assert at_run_time == compiled, path
        seen.append(compiled)
    assert seen == [True, True, False, True, False, False]


def test_the_three_copies_of_the_rules_are_the_same():
    """The name patterns and annotation columns: the compiler's, bioplan_step.py's and bioplan_step.R's."""
    py = (SCRIPTS / "bioplan_step.py").read_text(encoding="utf-8")
    r = (SCRIPTS / "bioplan_step.R").read_text(encoding="utf-8")
    assert columns.NORMALISED_NAME_RE.pattern in py and f'"{columns.NORMALISED_NAME_RE.pattern}"' in r
    assert columns.COUNT_NAME_RE.pattern in py and f'grepl("{columns.COUNT_NAME_RE.pattern}"' in r
    r_columns = re.search(r"ANNOTATION_NUMBER_COLUMNS <- c\(([^)]*)\)", r)
    assert r_columns and set(re.findall(r'"([^"]+)"', r_columns.group(1))) == columns.ANNOTATION_NUMBER_COLUMNS


def test_numeric_annotation_columns_are_not_samples_at_run_time(step_lib):
    names = ["Length", "effective length", "GC-content", "Start", "sample_1", "lengthy", "S2"]
    assert step_lib.annotation_columns(names) == ["Length", "effective length", "GC-content", "Start"]
    assert step_lib.annotation_columns(["gc", "Chr", "End", "Strand", "width"]) == ["gc", "Chr", "End", "Strand",
                                                                                  "width"]

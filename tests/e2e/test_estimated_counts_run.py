"""Real DESeq2 (Bioconductor, and PyDESeq2) on real estimated counts with planted differential genes.

The matrix is the 300-gene slice of a real nf-core/rnaseq salmon.merged.gene_counts.tsv (tests/data/real_round4b/)
with twelve well-expressed genes multiplied by 8 in the three P11 samples (their fractions kept: 1862.999 becomes
14903.992). The emitted step scripts, run as the Nextflow target runs them (templates/nextflow/bin/bioplan_run.R and
bioplan_run.py), read the estimates as counts, round them (said in the log) and find the planted genes; the
precondition check passes them and still fails the run's TPM; the R count-table reader drops a Length column.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

import test_step_scripts
from helpers import r_packages_installed, require_r_packages, run_r_session

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "templates" / "scripts"
RUNNER_R = ROOT / "templates" / "nextflow" / "bin" / "bioplan_run.R"
DATA = ROOT / "tests" / "data" / "real_round4b"
SAMPLES = ["X1O", "X2O", "X3O", "P11_1", "P11_2", "P11_3"]
TREATED = SAMPLES[3:]


def _argv(tmp_path: Path, script: str, inputs: dict, outputs: dict, params: dict, rule: str) -> list[str]:
    """The runner's arguments for one step script (params and log in tmp_path, named after the rule)."""
    argv = [str(SCRIPTS / script)]
    for name, value in inputs.items():
        argv += ["--input", f"{name}={value}"]
    for name, value in outputs.items():
        argv += ["--output", f"{name}={value}"]
    params_file = tmp_path / f"{rule}.params.json"
    params_file.write_text(json.dumps(params))
    return argv + ["--params", str(params_file), "--log", str(tmp_path / f"{rule}.log"), "--rule", rule]


def _said(tmp_path: Path, terminal: str, rule: str) -> str:
    log = tmp_path / f"{rule}.log"
    return terminal + (log.read_text(encoding="utf-8") if log.exists() else "")


# step(script, inputs, outputs, params, rule): a Python step script run in this process through the Nextflow runner's
# functions (tests/test_step_scripts.py's fixture): PyDESeq2 and pandas imported once for the module, not in a new
# Python per run (~5 CPU-s a PyDESeq2 run before)
step = test_step_scripts.step


def _run(step, script: str, inputs: dict, outputs: dict, params: dict, rule: str = "step") -> tuple[int, str]:
    """Run one Python step script as the Nextflow target does; (exit status, terminal + log)."""
    run = step(script, inputs, outputs, params, rule)
    return run.code, run.terminal + run.log


def run_r_steps(tmp_path: Path, steps: dict[str, tuple[str, dict, dict, dict]],
                prelude: str = "") -> dict[str, tuple[int | None, str]]:
    """Each R step (rule: (script, inputs, outputs, params)), run as the Nextflow target does, in one R session
    (helpers.run_r_session: DESeq2 loads once), in order after the R code `prelude`; a step expected to fail goes
    last."""
    argvs = [_argv(tmp_path, *step, rule) for rule, step in steps.items()]
    runs = run_r_session(tmp_path, RUNNER_R, argvs, prelude)
    return {rule: (code, _said(tmp_path, terminal, rule)) for rule, (code, terminal) in zip(steps, runs)}


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> tuple[Path, Path, list[str]]:
    tmp_path = tmp_path_factory.mktemp("planted")
    counts = pd.read_csv(DATA / "salmon.merged.gene_counts.tsv", sep="\t")
    expressed = counts[(counts[SAMPLES] >= 300).all(axis=1)]
    genes = list(expressed["gene_id"][::3][:12])
    rows = counts["gene_id"].isin(genes)
    counts.loc[rows, TREATED] = (counts.loc[rows, TREATED] * 8).round(3)
    assert len(genes) == 12 and (counts[SAMPLES] % 1 != 0).to_numpy().sum() > 100  # estimates, not whole
    path = tmp_path / "salmon.merged.gene_counts.tsv"
    counts.to_csv(path, sep="\t", index=False)
    sheet = tmp_path / "samples.tsv"
    sheet.write_text("sample\tcondition\n" + "".join(f"{s}\t{'P11' if s in TREATED else 'control'}\n"
                                                   for s in SAMPLES))
    return path, sheet, genes


def _found(table: Path, genes: list[str]) -> set[str]:
    de = pd.read_csv(table, sep="\t")
    hits = de[(de["padj"] < 0.05) & (de["log2FoldChange"] > 2)]
    return set(hits["gene_id"]) & set(genes)


PARAMS = {"condition_column": "condition", "reference_level": "control", "test_level": "P11", "alpha": 0.05}
SALMON_RUNS = ROOT / "tests" / "data" / "real_studies" / "isoformswitch_salmon"
SALMON_NAMES = ["data_cond1_rep1", "data_cond1_rep2", "data_cond2_rep1", "data_cond2_rep2"]


@pytest.fixture(scope="module")
def r_runs(tmp_path_factory, planted) -> tuple[Path, dict[str, tuple[int | None, str]]]:
    """The R runs of this module in one R session, DESeq2 loading once instead of four times (the folder, and each
    run's exit status and terminal + log by its rule): DESeq2 DE on the planted estimates ("planted"); the VST of
    the counts with a Length column ("length"); when tximport is installed, tximport merging the four Salmon runs
    into a transcript-level matrix (the prelude) and DESeq2 DE on it ("tximport"); last, as it fails, DESeq2 DE on
    the run's TPM ("tpm")."""
    require_r_packages("DESeq2")
    tmp_path = tmp_path_factory.mktemp("r_runs")
    counts, sheet, _ = planted
    with_length = pd.read_csv(DATA / "salmon.merged.gene_counts.tsv", sep="\t")
    with_length.insert(2, "Length", [1000 + 7 * i for i in range(len(with_length))])
    with_length.to_csv(tmp_path / "gene_counts.tsv", sep="\t", index=False)
    steps = {"planted": ("deseq2_de.R", {"counts": counts, "samples": sheet}, {"table": tmp_path / "de.tsv"}, PARAMS),
             "length": ("deseq2_vst.R", {"counts": tmp_path / "gene_counts.tsv"},
                        {"normalized": tmp_path / "vst.tsv"}, {"fit_type": "parametric", "blind": True})}
    prelude = ""
    if r_packages_installed(("tximport",)):
        matrix = tmp_path / "salmon.merged.transcript_counts.tsv"
        prelude = (f'suppressMessages(library(tximport)); s <- c({", ".join(repr(n) for n in SALMON_NAMES)}); '
                   f'f <- setNames(file.path("{SALMON_RUNS}", s, "quant.sf.gz"), s); '
                   'm <- tximport(f, type = "salmon", txOut = TRUE)$counts; '
                   'write.table(data.frame(transcript_id = rownames(m), m, check.names = FALSE), '
                   f'"{matrix}", sep = "\\t", quote = FALSE, row.names = FALSE)')
        tx_sheet = tmp_path / "tx_samples.tsv"
        tx_sheet.write_text("sample\tcondition\n" + "".join(f"{n}\t{n[5:10]}\n" for n in SALMON_NAMES))
        steps["tximport"] = ("deseq2_de.R", {"counts": matrix, "samples": tx_sheet},
                             {"table": tmp_path / "tx_de.tsv"}, {"condition_column": "condition", "alpha": 0.05})
    tpm = shutil.copy(DATA / "salmon.merged.gene_tpm.tsv", tmp_path / "salmon.merged.gene_tpm.tsv")
    steps["tpm"] = ("deseq2_de.R", {"counts": tpm, "samples": sheet}, {"table": tmp_path / "x.tsv"}, PARAMS)
    return tmp_path, run_r_steps(tmp_path, steps, prelude)


def test_deseq2_r_rounds_estimated_counts_and_finds_the_planted_genes(planted, r_runs):
    genes = planted[2]
    folder, runs = r_runs
    code, said = runs["planted"]
    assert code == 0, said
    assert "read as estimated counts" in said and "rounded to whole numbers" in said, said
    found = _found(folder / "de.tsv", genes)
    assert len(found) >= 11, (sorted(found), said)
    code, said = runs["tpm"]
    assert code != 0 and "not a raw count" in said and "salmon.merged.gene_counts.tsv" in said, said


def test_pydeseq2_rounds_estimated_counts_and_finds_the_planted_genes(tmp_path, planted, step):
    pytest.importorskip("pydeseq2")
    counts, sheet, genes = planted
    code, said = _run(step, "pydeseq2_de.py", {"counts": counts, "samples": sheet}, {"table": tmp_path / "de.tsv"},
                      PARAMS)
    assert code == 0, said
    assert "read as estimated counts" in said, said
    assert len(_found(tmp_path / "de.tsv", genes)) >= 11


def test_the_precondition_check_passes_estimates_and_fails_tpm(tmp_path, planted, step):
    counts = planted[0]
    params = {"constraint": "requires_raw_integer_counts", "guarded_step": "differential_expression",
              "datatypes": {"counts": "raw_count_matrix"}}
    code, said = _run(step, "check_integer_counts.py", {"counts": counts}, {"ok": tmp_path / "ok"}, params)
    assert code == 0, said
    assert "estimated counts" in (tmp_path / "ok").read_text()
    tpm = shutil.copy(DATA / "salmon.merged.gene_tpm.tsv", tmp_path / "salmon.merged.gene_tpm.tsv")
    code, said = _run(step, "check_integer_counts.py", {"counts": tpm}, {"ok": tmp_path / "ok2"}, params, rule="tpm")
    assert code != 0 and "the file name says 'tpm'" in said, said


def test_the_r_count_table_reader_drops_a_length_column(r_runs):
    """read_count_table (bioplan_step.R) without a sample sheet: 'Length' is annotation, not a sample."""
    folder, runs = r_runs
    code, said = runs["length"]
    assert code == 0, said
    assert "dropping numeric annotation columns (not samples): Length" in said, said
    assert list(pd.read_csv(folder / "vst.tsv", sep="\t").columns) == ["gene_id", *SAMPLES]


def test_a_tximport_matrix_of_real_salmon_runs_is_read_and_deseq2_runs_on_it(r_runs):
    """tximport (R) merges the four IsoformSwitchAnalyzeR Salmon runs of tests/data/real_studies/ into
    transcript-level estimated counts (99% of them not whole), written as nf-core/rnaseq names them: bioplan
    reads them as read counts, and DESeq2 runs on them rounded."""
    require_r_packages("DESeq2", "tximport")
    folder, runs = r_runs
    matrix = folder / "salmon.merged.transcript_counts.tsv"
    assert matrix.exists(), runs["tximport"][1]  # the prelude's tximport wrote it (its error is in the terminal)
    from bioplan.request.sniff import sniff_inputs

    f = sniff_inputs([str(matrix)], {}).files[0]
    assert (f.datatype, f.fact("estimated_counts"), f.fact("sample_names")) == ("raw_count_matrix", True, SALMON_NAMES)
    code, said = runs["tximport"]
    assert code == 0 and "read as estimated counts" in said, said
    assert len(pd.read_csv(folder / "tx_de.tsv", sep="\t")) == 300


def test_the_python_count_table_reader_drops_a_length_column(tmp_path, step):
    """pydeseq2_vst.py's reader without a sample sheet: 'Length' and 'GC content' are annotation, not samples."""
    pytest.importorskip("pydeseq2")
    counts = pd.read_csv(DATA / "salmon.merged.gene_counts.tsv", sep="\t")
    counts.insert(2, "Length", [1000 + 7 * i for i in range(len(counts))])
    counts.insert(3, "GC content", [0.4 + (i % 10) / 100 for i in range(len(counts))])
    path = tmp_path / "gene_counts.tsv"
    counts.to_csv(path, sep="\t", index=False)
    code, said = _run(step, "pydeseq2_vst.py", {"counts": path}, {"normalized": tmp_path / "vst.tsv"},
                      {"fit_type": "parametric"})
    assert code == 0, said
    assert "dropping numeric annotation columns (not samples): Length, GC content" in said, said
    assert list(pd.read_csv(tmp_path / "vst.tsv", sep="\t").columns) == ["gene_id", *SAMPLES]

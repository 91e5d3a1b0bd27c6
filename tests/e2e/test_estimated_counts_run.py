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
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from helpers import require_r_packages

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "templates" / "scripts"
RUNNER_R = ROOT / "templates" / "nextflow" / "bin" / "bioplan_run.R"
RUNNER_PY = ROOT / "templates" / "nextflow" / "bin" / "bioplan_run.py"
DATA = ROOT / "tests" / "data" / "real_round4b"
SAMPLES = ["X1O", "X2O", "X3O", "P11_1", "P11_2", "P11_3"]
TREATED = SAMPLES[3:]


def run_step(tmp_path: Path, script: str, inputs: dict, outputs: dict, params: dict,
             rule: str = "step") -> tuple[int, str]:
    """Run one step script as the Nextflow target does; (exit status, terminal + log)."""
    argv = [str(SCRIPTS / script)]
    for name, value in inputs.items():
        argv += ["--input", f"{name}={value}"]
    for name, value in outputs.items():
        argv += ["--output", f"{name}={value}"]
    params_file = tmp_path / f"{rule}.params.json"
    params_file.write_text(json.dumps(params))
    log = tmp_path / f"{rule}.log"
    argv += ["--params", str(params_file), "--log", str(log), "--rule", rule]
    runner = ["Rscript", str(RUNNER_R)] if script.endswith(".R") else [sys.executable, str(RUNNER_PY)]
    proc = subprocess.run([*runner, *argv], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    return proc.returncode, proc.stderr + (log.read_text(encoding="utf-8") if log.exists() else "")


@pytest.fixture
def planted(tmp_path) -> tuple[Path, Path, list[str]]:
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


def test_deseq2_r_rounds_estimated_counts_and_finds_the_planted_genes(tmp_path, planted):
    require_r_packages("DESeq2")
    counts, sheet, genes = planted
    code, said = run_step(tmp_path, "deseq2_de.R", {"counts": counts, "samples": sheet},
                          {"table": tmp_path / "de.tsv"}, PARAMS)
    assert code == 0, said
    assert "read as estimated counts" in said and "rounded to whole numbers" in said, said
    found = _found(tmp_path / "de.tsv", genes)
    assert len(found) >= 11, (sorted(found), said)
    tpm = shutil.copy(DATA / "salmon.merged.gene_tpm.tsv", tmp_path / "salmon.merged.gene_tpm.tsv")
    code, said = run_step(tmp_path, "deseq2_de.R", {"counts": tpm, "samples": sheet},
                          {"table": tmp_path / "x.tsv"}, PARAMS, rule="tpm")
    assert code != 0 and "not a raw count" in said and "salmon.merged.gene_counts.tsv" in said, said


def test_pydeseq2_rounds_estimated_counts_and_finds_the_planted_genes(tmp_path, planted):
    pytest.importorskip("pydeseq2")
    counts, sheet, genes = planted
    code, said = run_step(tmp_path, "pydeseq2_de.py", {"counts": counts, "samples": sheet},
                          {"table": tmp_path / "de.tsv"}, PARAMS)
    assert code == 0, said
    assert "read as estimated counts" in said, said
    assert len(_found(tmp_path / "de.tsv", genes)) >= 11


def test_the_precondition_check_passes_estimates_and_fails_tpm(tmp_path, planted):
    counts = planted[0]
    params = {"constraint": "requires_raw_integer_counts", "guarded_step": "differential_expression",
              "datatypes": {"counts": "raw_count_matrix"}}
    code, said = run_step(tmp_path, "check_integer_counts.py", {"counts": counts}, {"ok": tmp_path / "ok"}, params)
    assert code == 0, said
    assert "estimated counts" in (tmp_path / "ok").read_text()
    tpm = shutil.copy(DATA / "salmon.merged.gene_tpm.tsv", tmp_path / "salmon.merged.gene_tpm.tsv")
    code, said = run_step(tmp_path, "check_integer_counts.py", {"counts": tpm}, {"ok": tmp_path / "ok2"}, params,
                          rule="tpm")
    assert code != 0 and "the file name says 'tpm'" in said, said


def test_the_r_count_table_reader_drops_a_length_column(tmp_path):
    """read_count_table (bioplan_step.R) without a sample sheet: 'Length' is annotation, not a sample."""
    require_r_packages("DESeq2")
    counts = pd.read_csv(DATA / "salmon.merged.gene_counts.tsv", sep="\t")
    counts.insert(2, "Length", [1000 + 7 * i for i in range(len(counts))])
    path = tmp_path / "gene_counts.tsv"
    counts.to_csv(path, sep="\t", index=False)
    code, said = run_step(tmp_path, "deseq2_vst.R", {"counts": path}, {"normalized": tmp_path / "vst.tsv"},
                          {"fit_type": "parametric", "blind": True})
    assert code == 0, said
    assert "dropping numeric annotation columns (not samples): Length" in said, said
    assert list(pd.read_csv(tmp_path / "vst.tsv", sep="\t").columns) == ["gene_id", *SAMPLES]


def test_a_tximport_matrix_of_real_salmon_runs_is_read_and_deseq2_runs_on_it(tmp_path):
    """tximport (R) merges the four IsoformSwitchAnalyzeR Salmon runs of tests/data/real_studies/ into
    transcript-level estimated counts (99% of them not whole), written as nf-core/rnaseq names them: bioplan
    reads them as read counts, and DESeq2 runs on them rounded."""
    require_r_packages("DESeq2", "tximport")
    runs = ROOT / "tests" / "data" / "real_studies" / "isoformswitch_salmon"
    names = ["data_cond1_rep1", "data_cond1_rep2", "data_cond2_rep1", "data_cond2_rep2"]
    matrix = tmp_path / "salmon.merged.transcript_counts.tsv"
    script = (f'suppressMessages(library(tximport)); s <- c({", ".join(repr(n) for n in names)}); '
              f'f <- setNames(file.path("{runs}", s, "quant.sf.gz"), s); '
              'm <- tximport(f, type = "salmon", txOut = TRUE)$counts; '
              'write.table(data.frame(transcript_id = rownames(m), m, check.names = FALSE), '
              f'"{matrix}", sep = "\\t", quote = FALSE, row.names = FALSE)')
    proc = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    from bioplan.request.sniff import sniff_inputs

    f = sniff_inputs([str(matrix)], {}).files[0]
    assert (f.datatype, f.fact("estimated_counts"), f.fact("sample_names")) == ("raw_count_matrix", True, names)
    sheet = tmp_path / "samples.tsv"
    sheet.write_text("sample\tcondition\n" + "".join(f"{n}\t{n[5:10]}\n" for n in names))
    code, said = run_step(tmp_path, "deseq2_de.R", {"counts": matrix, "samples": sheet},
                          {"table": tmp_path / "de.tsv"}, {"condition_column": "condition", "alpha": 0.05})
    assert code == 0 and "read as estimated counts" in said, said
    assert len(pd.read_csv(tmp_path / "de.tsv", sep="\t")) == 300


def test_the_python_count_table_reader_drops_a_length_column(tmp_path):
    """pydeseq2_vst.py's reader without a sample sheet: 'Length' and 'GC content' are annotation, not samples."""
    pytest.importorskip("pydeseq2")
    counts = pd.read_csv(DATA / "salmon.merged.gene_counts.tsv", sep="\t")
    counts.insert(2, "Length", [1000 + 7 * i for i in range(len(counts))])
    counts.insert(3, "GC content", [0.4 + (i % 10) / 100 for i in range(len(counts))])
    path = tmp_path / "gene_counts.tsv"
    counts.to_csv(path, sep="\t", index=False)
    code, said = run_step(tmp_path, "pydeseq2_vst.py", {"counts": path}, {"normalized": tmp_path / "vst.tsv"},
                          {"fit_type": "parametric"})
    assert code == 0, said
    assert "dropping numeric annotation columns (not samples): Length, GC content" in said, said
    assert list(pd.read_csv(tmp_path / "vst.tsv", sep="\t").columns) == ["gene_id", *SAMPLES]

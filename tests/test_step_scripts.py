"""Unit tests of the step scripts (templates/scripts/), run in-process through the `snakemake`
object that the Nextflow runner (templates/nextflow/bin/bioplan_run.py) builds from a command
line, on tiny hand-made inputs: each script's output on good input, and its one-line
"ERROR [rule]: ..." message (exit status 1) on bad input.

In-process, so that pandas, scanpy and matplotlib are imported once for the whole file (a
subprocess per case would cost a second or more each). R scripts run through bin/bioplan_run.R
when Rscript and the script's R packages are installed, else they are skipped; a test's several R runs share
one R session (helpers.run_r_session: a Bioconductor package loads once, not once per run). The steps whose
libraries take tens of seconds to start (PyDESeq2, scanpy's graph and Leiden, DESeq2) are marked
e2e; the rest run in the fast tier.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import logging
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from helpers import require_r_packages, run_r_session, split_r_session
from test_honesty_round7 import _study, assert_threshold_and_levels

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "templates" / "scripts"
RUNNER_PY = ROOT / "templates" / "nextflow" / "bin" / "bioplan_run.py"
RUNNER_R = ROOT / "templates" / "nextflow" / "bin" / "bioplan_run.R"


def _load_runner():
    spec = importlib.util.spec_from_file_location("bioplan_run", RUNNER_PY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RUNNER = _load_runner()


@dataclass
class StepRun:
    code: int  # 0: the script ended normally; 1: fail() or an uncaught exception
    terminal: str  # what the step printed on the terminal (stderr)
    log: str  # the rule's log file


def _argv(script: str, tmp_path: Path, inputs: dict, outputs: dict, params: dict, rule: str) -> list[str]:
    argv = [str(SCRIPTS / script)]
    for name, value in inputs.items():
        if isinstance(value, list):
            argv += [x for path in value for x in ("--list-input", f"{name}={path}")]
        else:
            argv += ["--input", f"{name}={value}"]
    for name, value in outputs.items():
        argv += ["--output", f"{name}={value}"]
    params_file = tmp_path / f"{rule}.params.json"
    params_file.write_text(json.dumps(params))
    return argv + ["--params", str(params_file), "--log", str(tmp_path / f"{rule}.log"), "--rule", rule]


def _restream_library_loggers() -> None:
    """A library logger that keeps its own stream handler (anndata's, bound to sys.stderr when anndata was
    first imported) points at this test's stderr: an earlier test's captured stream is closed by now, and
    logging to it prints '--- Logging error ---' with a traceback, which no real run (one process per step,
    one stderr) can show."""
    for logger in [logging.getLogger(), *(v for v in logging.Logger.manager.loggerDict.values()
                                          if isinstance(v, logging.Logger))]:
        for handler in logger.handlers:
            if type(handler) is logging.StreamHandler and getattr(handler.stream, "closed", False):
                handler.stream = sys.stderr  # not setStream(): it flushes the closed stream first


@pytest.fixture
def step(tmp_path, capfd):
    """step(script, inputs, outputs, params) runs one step script in this process and returns
    StepRun; an uncaught exception goes through the script's excepthook, as the interpreter would."""

    def run(script: str, inputs: dict, outputs: dict, params: dict | None = None, rule: str = "step") -> StepRun:
        smk = RUNNER.build_snakemake(RUNNER.parse_args(_argv(script, tmp_path, inputs, outputs, params or {}, rule)))
        saved, saved_path = (sys.stdout, sys.stderr, sys.excepthook), list(sys.path)
        # a script sets thread counts and caches in os.environ (bioplan_step.limit_threads) as its own process
        # would; restored after it, so no later tool this worker starts inherits them (OMP_NUM_THREADS=1 left
        # here made a later kraken2 database build fail and plink2 p-values differ in the last digit)
        saved_env = dict(os.environ)
        _restream_library_loggers()
        code = 0
        try:
            RUNNER.run_script(str(SCRIPTS / script), smk)
        except SystemExit as exc:
            code = int(exc.code or 0)
        except Exception as exc:  # what Python does with an uncaught exception: the hook, status 1
            sys.excepthook(type(exc), exc, exc.__traceback__)
            code = 1
        finally:
            import bioplan_step

            bioplan_step.finish()
            sys.stdout, sys.stderr, sys.excepthook = saved
            sys.path[:] = saved_path  # the scripts' folder was put first, as Snakemake does
            os.environ.clear()
            os.environ.update(saved_env)
        return StepRun(code, capfd.readouterr().err, (tmp_path / f"{rule}.log").read_text(encoding="utf-8"))

    return run


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def tsv(rows: list[list]) -> str:
    return "".join("\t".join(map(str, r)) + "\n" for r in rows)


def assert_failed(run: StepRun, *fragments: str, rule: str = "step") -> None:
    """One clear message: exit 1, 'ERROR [rule]: ...' on the terminal naming what is wrong, no traceback there."""
    assert run.code == 1, run.terminal + run.log
    assert f"ERROR [{rule}]: " in run.terminal, run.terminal
    for fragment in fragments:
        assert fragment in run.terminal, (fragment, run.terminal)
    assert "Traceback" not in run.terminal


def read_tsv(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]


# --- the helper module itself ---------------------------------------------------------------------
def test_an_unforeseen_exception_is_one_message_with_the_traceback_in_the_log(step, tmp_path):
    # de_rank with a metric column that parses but a table whose gene ids clash is not this; use a
    # directory where a file is expected: open() raises IsADirectoryError, which no check foresaw
    run = step("table_to_csv.py", {"table": tmp_path}, {"csv": tmp_path / "out.csv"})
    assert_failed(run, "unexpected IsADirectoryError", "traceback in")
    assert "Traceback (most recent call last)" in run.log


def test_a_missing_python_package_names_the_tools_extra(step, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "gseapy", None)  # `import gseapy` raises ModuleNotFoundError
    genes = write(tmp_path / "genes.txt", "1\n2\n")
    gmt = write(tmp_path / "sets.gmt", "SET\tdesc\t1\t2\t3\n")
    run = step("gseapy_enrich.py", {"genes": genes, "gene_sets": gmt}, {"table": tmp_path / "out.tsv"},
               {"min_size": 1, "max_size": 500})
    assert_failed(run, "Python package 'gseapy' is not installed: pip install 'bioplan[tools]'")


# --- tables ---------------------------------------------------------------------------------------
def test_table_to_csv(step, tmp_path):
    table = write(tmp_path / "t.tsv", tsv([["gene", "note"], ["g1", "a,b"], ["g2", ""]]))
    run = step("table_to_csv.py", {"table": table}, {"csv": tmp_path / "t.csv"})
    assert run.code == 0, run.log
    assert (tmp_path / "t.csv").read_text() == 'gene,note\ng1,"a,b"\ng2,\n'
    empty = write(tmp_path / "empty.tsv", "")
    assert_failed(step("table_to_csv.py", {"table": empty}, {"csv": tmp_path / "e.csv"}), "is empty", str(empty))


DE_TABLE = tsv([["gene_id", "baseMean", "log2FoldChange", "stat", "pvalue", "padj"],
                ["ENSG1", 100, 3.0, 8.0, 1e-10, 1e-8],
                ["ENSG2", 100, -2.5, -6.0, 1e-6, 1e-4],
                ["ENSG3", 100, 0.2, 0.5, 0.6, 0.8],
                ["ENSG4", 100, 1.5, 3.0, 0.01, 0.2]])


def test_de_filter_keeps_significant_genes_of_the_direction(step, tmp_path):
    table = write(tmp_path / "de.tsv", DE_TABLE)
    run = step("de_filter.py", {"table": table}, {"genes": tmp_path / "up.txt"},
               {"alpha": 0.05, "lfc_threshold": 1.0, "direction": "up"})
    assert run.code == 0, run.log
    assert "ENSG1" in (tmp_path / "up.txt").read_text() and "ENSG2" not in (tmp_path / "up.txt").read_text()
    run = step("de_filter.py", {"table": table}, {"genes": tmp_path / "x.txt"},
               {"alpha": 0.05, "lfc_threshold": 1.0, "direction": "sideways"})
    assert_failed(run, "params.direction must be both, up or down")


def test_de_rank_orders_by_the_statistic(step, tmp_path):
    table = write(tmp_path / "de.tsv", DE_TABLE)
    run = step("de_rank.py", {"table": table}, {"ranked": tmp_path / "ranked.rnk"}, {"metric": "stat"})
    assert run.code == 0, run.log
    genes = [r[0] for r in read_tsv(tmp_path / "ranked.rnk") if r[0] != "gene_id"]
    assert genes[0] == "ENSG1" and genes[-1] == "ENSG2"
    no_lfc = write(tmp_path / "bad.tsv", tsv([["gene_id", "something"], ["g1", "1"]]))
    assert_failed(step("de_rank.py", {"table": no_lfc}, {"ranked": tmp_path / "r.rnk"}, {"metric": "stat"}),
                  "lacks ['log2FoldChange', 'pvalue'], needed for the signed_p ranking", str(no_lfc))


def test_volcano_plot(step, tmp_path):
    table = write(tmp_path / "de.tsv", DE_TABLE)
    params = {"alpha": 0.05, "lfc_threshold": 1.0, "label_top": 2, "title": None}
    run = step("volcano_plot.py", {"table": table}, {"plot": tmp_path / "v.png"}, params)
    assert run.code == 0, run.log
    assert (tmp_path / "v.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "1 up, 1 down" in run.log
    no_p = write(tmp_path / "nop.tsv", tsv([["gene_id", "log2FoldChange"], ["g1", "1"]]))
    assert_failed(step("volcano_plot.py", {"table": no_p}, {"plot": tmp_path / "x.png"}, params),
                  "has neither a pvalue nor a padj column")


COUNTS = tsv([["gene_id", "s1", "s2", "s3", "s4", "s5", "s6"]]
             + [[f"ENSG{i:011d}", *(10 + (i * k) % 37 + (30 if k > 3 and i % 3 == 0 else 0) for k in range(1, 7))]
                for i in range(1, 41)])
SAMPLES = tsv([["sample", "condition"], ["s1", "control"], ["s2", "control"], ["s3", "control"],
               ["s4", "treated"], ["s5", "treated"], ["s6", "treated"]])


def test_sample_pca_plot(step, tmp_path):
    counts, samples = write(tmp_path / "norm.tsv", COUNTS), write(tmp_path / "samples.tsv", SAMPLES)
    params = {"condition_column": "condition", "ntop": 500, "title": None}
    run = step("sample_pca_plot.py", {"normalized": counts, "samples": samples},
               {"plot": tmp_path / "pca.png", "table": tmp_path / "pca.tsv"}, params)
    assert run.code == 0, run.log
    assert (tmp_path / "pca.png").read_bytes()[:4] == b"\x89PNG"
    rows = read_tsv(tmp_path / "pca.tsv")
    assert rows[0][:4] == ["sample", "condition", "PC1", "PC2"] and rows[-1][0] == "percent_variance"
    pc1 = {r[0]: float(r[2]) for r in rows[1:-1]}
    # the planted shift of the treated samples is the first component: the two conditions on either side
    assert max(pc1[s] for s in ("s1", "s2", "s3")) < min(pc1[s] for s in ("s4", "s5", "s6")) or \
        min(pc1[s] for s in ("s1", "s2", "s3")) > max(pc1[s] for s in ("s4", "s5", "s6"))
    assert abs(sum(float(v) for v in rows[-1][2:]) - 100) < 0.01
    run = step("sample_pca_plot.py", {"normalized": counts, "samples": samples},
               {"plot": tmp_path / "x.png", "table": tmp_path / "x.tsv"}, {**params, "condition_column": "group"})
    assert_failed(run, "group")
    two = write(tmp_path / "two.tsv", "sample\tcondition\ns1\tcontrol\ns4\ttreated\n")
    run = step("sample_pca_plot.py", {"normalized": counts, "samples": two},
               {"plot": tmp_path / "x.png", "table": tmp_path / "x.tsv"}, params)
    assert_failed(run, "only 2 matrix columns match the sample metadata; a PCA needs at least 3 samples")


def test_sample_distance_clustering(step, tmp_path):
    counts, samples = write(tmp_path / "norm.tsv", COUNTS), write(tmp_path / "samples.tsv", SAMPLES)
    params = {"condition_column": "condition", "ntop": None, "method": "complete", "title": None}
    outputs = {"plot": tmp_path / "d.png", "distances": tmp_path / "d.tsv", "tree": tmp_path / "t.nwk"}
    run = step("sample_distance_clustering.py", {"normalized": counts, "samples": samples}, outputs, params)
    assert run.code == 0, run.log
    assert (tmp_path / "d.png").read_bytes()[:4] == b"\x89PNG"
    rows = read_tsv(tmp_path / "d.tsv")
    order = rows[0][1:]
    assert sorted(order) == ["s1", "s2", "s3", "s4", "s5", "s6"] and [r[0] for r in rows[1:]] == order
    distance = {(r[0], s): float(v) for r in rows[1:] for s, v in zip(order, r[1:])}
    assert all(distance[(s, s)] == 0 and distance[(s, t)] == distance[(t, s)] for s in order for t in order)
    # the leaf order keeps each condition together, and the tree's two top branches are the conditions
    groups = ["control" if s in ("s1", "s2", "s3") else "treated" for s in order]
    assert groups in (["control"] * 3 + ["treated"] * 3, ["treated"] * 3 + ["control"] * 3)
    tree = (tmp_path / "t.nwk").read_text().strip()
    assert tree.endswith(";") and all(s in tree for s in order)
    run = step("sample_distance_clustering.py", {"normalized": counts, "samples": samples}, outputs,
               {**params, "method": "median-ish"})
    assert_failed(run, "params.method 'median-ish'")
    two = write(tmp_path / "two.tsv", "sample\tcondition\ns1\tcontrol\ns4\ttreated\n")
    run = step("sample_distance_clustering.py", {"normalized": counts, "samples": two}, outputs, params)
    assert_failed(run, f"only 2 columns of '{counts}' match the sample metadata; clustering needs at least 3 samples")


PEAK_GENES = (("G1", "T1", "Alpha", 1001, 2000, "+"), ("G2", "T2", "Beta", 9001, 12000, "-"),
              ("G3", "T3", "Gamma", 20001, 21000, "+"))
PEAK_GTF = "".join(
    f'chr1\tsrc\t{feature}\t{start}\t{end}\t.\t{strand}\t.\tgene_id "{gene}"; transcript_id "{tx}"; '
    f'gene_name "{name}";\n' for gene, tx, name, start, end, strand in PEAK_GENES for feature in ("transcript", "exon"))


def test_peak_nearest_genes(step, tmp_path):
    gtf = write(tmp_path / "genes.gtf", PEAK_GTF)
    # TSSs (0-based): G1 1000 (+), G2 11999 (-), G3 20000 (+)
    peaks = write(tmp_path / "peaks.narrowPeak", tsv([
        ["chr1", 900, 1100, "p_on_g1", 0, ".", 5, 3, 2, 100],      # holds G1's TSS: 0
        ["chr1", 12500, 12700, "p_up_g2", 0, ".", 5, 3, 2, 100],   # 501 bp upstream of G2's minus-strand TSS
        ["chr1", 16000, 16200, "p_far", 0, ".", 5, 3, 2, 100],     # > 3 kb from every TSS
        ["chr1", 22000, 22100, "p_down_g3", 0, ".", 5, 3, 2, 100],  # 2000 bp downstream of G3's TSS
        ["chr2", 100, 200, "p_other_chrom", 0, ".", 5, 3, 2, 100]]))
    outputs = {"genes": tmp_path / "genes.tsv", "table": tmp_path / "pairs.tsv"}
    run = step("peak_nearest_genes.py", {"peaks": peaks, "annotation": gtf}, outputs,
               {"max_distance": 3000, "assign": "nearest"})
    assert run.code == 0, run.log
    genes = read_tsv(tmp_path / "genes.tsv")
    assert genes == [["gene_id", "gene_name", "peaks", "min_distance"], ["G1", "Alpha", "1", "0"],
                     ["G2", "Beta", "1", "-501"], ["G3", "Gamma", "1", "2000"]]
    pairs = {r[3]: r[4:] for r in read_tsv(tmp_path / "pairs.tsv")[1:]}
    assert pairs["p_far"] == ["", "", ""] and pairs["p_other_chrom"] == ["", "", ""]
    # a tighter window (ChIPseeker's +-1 kb promoter) keeps the peaks on and near the TSSs only
    run = step("peak_nearest_genes.py", {"peaks": peaks, "annotation": gtf}, outputs,
               {"max_distance": 1000, "assign": "nearest"})
    assert run.code == 0, run.log
    assert [r[0] for r in read_tsv(tmp_path / "genes.tsv")[1:]] == ["G1", "G2"]
    other = write(tmp_path / "ucsc.bed", "1\t900\t1100\n")
    assert_failed(step("peak_nearest_genes.py", {"peaks": other, "annotation": gtf}, outputs,
                       {"max_distance": 3000, "assign": "nearest"}), "no chromosome of the peaks (1)")


def test_expression_heatmap(step, tmp_path):
    counts = write(tmp_path / "norm.tsv", COUNTS)
    genes = write(tmp_path / "genes.txt", "gene_id\nENSG00000000001\nENSG00000000002\nENSG00000000003\n")
    params = {"max_genes": 50, "title": None}
    run = step("expression_heatmap.py", {"normalized": counts, "genes": genes}, {"plot": tmp_path / "h.png"}, params)
    assert run.code == 0, run.log
    assert (tmp_path / "h.png").read_bytes()[:4] == b"\x89PNG"
    empty = write(tmp_path / "empty.tsv", "")
    run = step("expression_heatmap.py", {"normalized": empty, "genes": genes}, {"plot": tmp_path / "x.png"}, params)
    assert_failed(run, str(empty))


# PyDESeq2's fit, scanpy's neighbour graph and Leiden, and DESeq2 in R take tens of seconds even on
# tiny inputs (library start-up, numba compilation): integration runs, in the e2e tier.
heavy = pytest.mark.e2e


@heavy
def test_pydeseq2_de_and_vst(step, tmp_path):
    pytest.importorskip("pydeseq2")
    counts, samples = write(tmp_path / "counts.tsv", COUNTS), write(tmp_path / "samples.tsv", SAMPLES)
    params = {"condition_column": "condition", "reference_level": None, "test_level": None, "alpha": 0.05}
    run = step("pydeseq2_de.py", {"counts": counts, "samples": samples}, {"table": tmp_path / "de.tsv"}, params)
    assert run.code == 0, run.log
    rows = read_tsv(tmp_path / "de.tsv")
    assert rows[0][:3] == ["gene_id", "baseMean", "log2FoldChange"] and len(rows) == 41
    run = step("pydeseq2_vst.py", {"counts": counts}, {"normalized": tmp_path / "vst.tsv"}, {"fit_type": "parametric"})
    assert run.code == 0, run.log
    assert read_tsv(tmp_path / "vst.tsv")[0][0] == "gene_id" and len(read_tsv(tmp_path / "vst.tsv")) == 41
    wrong = write(tmp_path / "wrong.tsv", SAMPLES.replace("s6", "s7"))
    run = step("pydeseq2_de.py", {"counts": counts, "samples": wrong}, {"table": tmp_path / "x.tsv"}, params)
    assert_failed(run, "s7")


@heavy
def test_pydeseq2_tests_against_the_threshold_and_takes_the_levels(step, tmp_path):
    """tests/test_honesty_round7.py's DE-script case for PyDESeq2, in this process (PyDESeq2 imported once): with
    the levels wt/ko, testing against |log2FC| > 1, then against 0."""
    pytest.importorskip("pydeseq2")
    counts, samples = _study(tmp_path, ("WT", "KO"))
    runs, tables = {}, {}
    for lfc in (1.0, 0.0):
        tables[lfc] = tmp_path / f"de{lfc}.tsv"
        runs[lfc] = step("pydeseq2_de.py", {"counts": counts, "samples": samples}, {"table": tables[lfc]},
                         {"condition_column": "condition", "alpha": 0.05, "reference_level": "wt", "test_level": "ko",
                          "lfc_threshold": lfc}, rule=f"step{int(lfc)}")
        assert runs[lfc].code == 0, runs[lfc].terminal + runs[lfc].log
        assert "contrast condition: KO vs WT" in runs[lfc].log, runs[lfc].log
    assert_threshold_and_levels(runs[1.0].log, tables[1.0], runs[0.0].log, tables[0.0], "lfc_null")


# --- gene lists and gene set libraries ------------------------------------------------------------
GMT = "".join(f"SET_{k}\tdesc\t" + "\t".join(str(g) for g in range(k, k + 20)) + "\n" for k in (1, 30, 60))


def test_gseapy_enrich(step, tmp_path):
    pytest.importorskip("gseapy")
    genes = write(tmp_path / "genes.txt", "entrez_id\n" + "\n".join(str(g) for g in range(1, 16)) + "\n")
    gmt = write(tmp_path / "sets.gmt", GMT)
    params = {"min_size": 5, "max_size": 500}
    run = step("gseapy_enrich.py", {"genes": genes, "gene_sets": gmt}, {"table": tmp_path / "enr.tsv"}, params)
    assert run.code == 0, run.log
    rows = read_tsv(tmp_path / "enr.tsv")
    assert rows[0] == ["Term", "Overlap", "P-value", "Adjusted P-value", "Genes"] and rows[1][0] == "SET_1"
    bad = write(tmp_path / "bad.gmt", "SET_ONLY_NAME\n")
    run = step("gseapy_enrich.py", {"genes": genes, "gene_sets": bad}, {"table": tmp_path / "x.tsv"}, params)
    assert_failed(run, "is not GMT", str(bad))


def test_gseapy_prerank(step, tmp_path):
    pytest.importorskip("gseapy")
    ranked = write(tmp_path / "ranked.rnk", "".join(f"{g}\t{100 - g}.5\n" for g in range(1, 90)))
    gmt = write(tmp_path / "sets.gmt", GMT)
    params = {"permutation_num": 20, "min_size": 5, "max_size": 500, "weight": 1.0, "seed": 42}
    run = step("gseapy_prerank.py", {"ranked": ranked, "gene_sets": gmt}, {"table": tmp_path / "gsea.tsv"}, params)
    assert run.code == 0, run.log
    terms = {r[0] for r in read_tsv(tmp_path / "gsea.tsv")[1:]}
    assert {"SET_1", "SET_30", "SET_60"} <= terms
    unranked = write(tmp_path / "bad.rnk", "g1\t1.5\ng2\tnot_a_number\n")
    run = step("gseapy_prerank.py", {"ranked": unranked, "gene_sets": gmt}, {"table": tmp_path / "x.tsv"}, params)
    assert_failed(run, "has a non-numeric score for gene 'g2'", str(unranked))


def test_idmap_table_converts_ensembl_to_entrez(step, tmp_path):
    mapping = write(tmp_path / "map.tsv", tsv([["ensembl_gene_id", "entrez_id"], ["ENSG00000000001", 7157],
                                               ["ENSG00000000002", 1956]]))
    genes = write(tmp_path / "genes.txt", "ENSG00000000001.5\nENSG00000000002\nENSG00000000009\n")
    run = step("idmap_table.py", {"genes": genes, "mapping": mapping}, {"entrez": tmp_path / "entrez.txt"})
    assert run.code == 0, run.log
    assert (tmp_path / "entrez.txt").read_text().split()[-2:] == ["7157", "1956"]
    nothing = write(tmp_path / "none.txt", "ENSG00000000042\n")
    run = step("idmap_table.py", {"genes": nothing, "mapping": mapping}, {"entrez": tmp_path / "x.txt"})
    assert_failed(run, "contains the input ids", "ENSG00000000042")


def test_merge_pathway_tables(step, tmp_path):
    header = ["Term", "Overlap", "P-value", "Adjusted P-value", "Genes"]
    go = write(tmp_path / "go.tsv", tsv([header, ["GO:1 apoptosis", "3/20", 0.001, 0.01, "1;2;3"]]))
    kegg = write(tmp_path / "kegg.tsv", tsv([header, ["hsa04110 Cell cycle", "2/30", 0.01, 0.05, "4;5"]]))
    run = step("merge_pathway_tables.py", {"go": go, "kegg": kegg}, {"merged": tmp_path / "merged.tsv"})
    assert run.code == 0, run.log
    text = (tmp_path / "merged.tsv").read_text()
    assert "GO:1 apoptosis" in text and "hsa04110 Cell cycle" in text
    no_term = write(tmp_path / "bad.tsv", tsv([["x", "y"], ["1", "2"]]))
    run = step("merge_pathway_tables.py", {"go": no_term, "kegg": kegg}, {"merged": tmp_path / "x.tsv"})
    assert_failed(run, "no term column in the", str(no_term))


# --- precondition checks --------------------------------------------------------------------------
def check_params(constraint: str, datatypes: dict, **extra) -> dict:
    return {"constraint": constraint, "guarded_step": "guarded", "datatypes": datatypes, **extra}


def test_check_integer_counts(step, tmp_path):
    good = write(tmp_path / "counts.tsv",
                 tsv([["gene", "name", "s1", "s2"], ["g1", "TP53", 1, 2], ["g2", "EGFR", 3, "4.0"]]))
    params = check_params("raw_integer_counts", {"counts": "raw_count_matrix"})
    run = step("check_integer_counts.py", {"counts": good}, {"ok": tmp_path / "ok"}, params, rule="check_counts")
    assert run.code == 0, run.log
    assert (tmp_path / "ok").read_text().startswith("raw_integer_counts: OK - ")
    bad = write(tmp_path / "tpm.tsv", tsv([["gene", "s1", "s2"], ["g1", 1.5, 2]]))
    run = step("check_integer_counts.py", {"counts": bad}, {"ok": tmp_path / "ok2"}, params, rule="check_counts")
    assert_failed(run, "precondition 'raw_integer_counts' of step 'guarded' failed", "'1.5'", rule="check_counts")


def test_check_replicates(step, tmp_path):
    params = check_params("requires_replicates", {"samples": "sample_metadata"}, condition_column="condition",
                          min_replicates=2)
    good = write(tmp_path / "samples.tsv", SAMPLES)
    run = step("check_replicates.py", {"samples": good}, {"ok": tmp_path / "ok"}, params)
    assert run.code == 0, run.log
    single = write(tmp_path / "one.tsv", tsv([["sample", "condition"], ["s1", "a"], ["s2", "b"], ["s3", "b"]]))
    assert_failed(step("check_replicates.py", {"samples": single}, {"ok": tmp_path / "x"}, params),
                  "requires_replicates")


def test_check_entrez_ids(step, tmp_path):
    params = check_params("entrez_ids", {"genes": "entrez_gene_list"})
    good = write(tmp_path / "genes.txt", "entrez_id\n7157\n1956\n")
    run = step("check_entrez_ids.py", {"genes": good}, {"ok": tmp_path / "ok"}, params)
    assert run.code == 0, run.log
    assert "2 Entrez ids" in (tmp_path / "ok").read_text()
    ensembl = write(tmp_path / "ens.txt", "ENSG00000141510\nENSG00000146648\n")
    assert_failed(step("check_entrez_ids.py", {"genes": ensembl}, {"ok": tmp_path / "x"}, params),
                  "must hold Entrez Gene ids", "ENSG00000141510")


def test_check_vcf_fields(step, tmp_path):
    if shutil.which("bcftools") is None:
        pytest.skip("bcftools is not on PATH")
    head = "##fileformat=VCFv4.2\n##contig=<ID=1,length=1000>\n"
    cols = "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n"
    params = check_params("variant_fields", {"vcf": "variant_calls"})
    good = write(tmp_path / "good.vcf", head + '##INFO=<ID=DP,Number=1,Type=Integer,Description="depth">\n' + cols
                 + "1\t10\t.\tA\tG\t50\tPASS\tDP=12\n")
    run = step("check_vcf_fields.py", {"vcf": good}, {"ok": tmp_path / "ok"}, params)
    assert run.code == 0, run.log
    assert "INFO/DP" in (tmp_path / "ok").read_text()
    bare = write(tmp_path / "bare.vcf", head + cols + "1\t10\t.\tA\tG\t.\tPASS\t.\n")
    assert_failed(step("check_vcf_fields.py", {"vcf": bare}, {"ok": tmp_path / "x"}, params),
                  "holds none of the fields the variant filter tests")


def test_check_reference_genome(step, tmp_path):
    params = check_params("reference_genome", {"genome": "reference_genome"})
    good = tmp_path / "genome.fa.gz"
    with gzip.open(good, "wt") as handle:
        handle.write(">chr1 first\nACGTNNacgt\n>chr2\nGGCC\n")
    run = step("check_reference_genome.py", {"genome": good}, {"ok": tmp_path / "ok"}, params)
    assert run.code == 0, run.log
    assert "sequences\t2\ntotal_length\t14\n" in (tmp_path / "ok").read_text()
    protein = write(tmp_path / "protein.fa", ">p1\nMKVLEQW\n")
    assert_failed(step("check_reference_genome.py", {"genome": protein}, {"ok": tmp_path / "x"}, params),
                  "not nucleotide codes", str(protein))


GTF = ('chr1\tsrc\tgene\t1\t100\t.\t+\t.\tgene_id "G1";\n'
       'chr1\tsrc\texon\t1\t50\t.\t+\t.\tgene_id "G1"; transcript_id "T1";\n')


def test_check_gene_annotation(step, tmp_path):
    params = check_params("gene_annotation", {"annotation": "gene_annotation", "genome": "reference_genome"})
    gtf = write(tmp_path / "genes.gtf", GTF)
    genome = write(tmp_path / "genome.fa", ">chr1\n" + "A" * 200 + "\n")
    run = step("check_gene_annotation.py", {"annotation": gtf, "genome": genome}, {"ok": tmp_path / "ok"}, params)
    assert run.code == 0, run.log
    other = write(tmp_path / "other.fa", ">1\n" + "A" * 200 + "\n")
    run = step("check_gene_annotation.py", {"annotation": gtf, "genome": other}, {"ok": tmp_path / "x"}, params)
    assert_failed(run, "'chr' prefix")


def fastq_gz(path: Path, mate: int, reads: range) -> Path:
    with gzip.open(path, "wt") as handle:
        handle.writelines(f"@r{i}/{mate}\nACGT\n+\nIIII\n" for i in reads)
    return path


def test_check_paired_mates(step, tmp_path):
    params = check_params("paired_end_reads", {"reads_1": "raw_reads", "reads_2": "raw_reads"})
    mate1, mate2 = fastq_gz(tmp_path / "s_R1.fastq.gz", 1, range(3)), fastq_gz(tmp_path / "s_R2.fastq.gz", 2, range(3))
    run = step("check_paired_mates.py", {"reads_1": mate1, "reads_2": mate2}, {"ok": tmp_path / "ok"}, params)
    assert run.code == 0, run.log
    assert "3 read pairs" in (tmp_path / "ok").read_text()
    short = fastq_gz(tmp_path / "short_R2.fastq.gz", 2, range(2))
    run = step("check_paired_mates.py", {"reads_1": mate1, "reads_2": short}, {"ok": tmp_path / "x"}, params)
    assert_failed(run, "one mate file is truncated or has reads the other lacks", str(short))
    plain = write(tmp_path / "plain_R2.fastq", "@r0/2\nACGT\n+\nIIII\n")
    run = step("check_paired_mates.py", {"reads_1": mate1, "reads_2": plain}, {"ok": tmp_path / "y"}, params)
    assert_failed(run, "is not gzip-compressed", str(plain))


# --- quantification, variants, metagenomics -------------------------------------------------------
def test_salmon_to_gene_counts(step, tmp_path):
    gtf = write(tmp_path / "genes.gtf", 'chr1\tsrc\ttranscript\t1\t100\t.\t+\t.\tgene_id "G1"; transcript_id "T1";\n'
                'chr1\tsrc\ttranscript\t1\t100\t.\t+\t.\tgene_id "G1"; transcript_id "T2";\n'
                'chr1\tsrc\ttranscript\t1\t100\t.\t+\t.\tgene_id "G2"; transcript_id "T3";\n')
    quants = []
    for sample, reads in (("a", (10.4, 5, 7)), ("b", (1, 2, 3))):
        (tmp_path / sample).mkdir()
        write(tmp_path / sample / "quant.sf", "Name\tLength\tEffectiveLength\tTPM\tNumReads\n"
              + "".join(f"T{i}\t100\t90\t1.0\t{r}\n" for i, r in enumerate(reads, 1)))
        quants.append(tmp_path / sample)
    run = step("salmon_to_gene_counts.py", {"quants": quants, "annotation": gtf}, {"counts": tmp_path / "counts.tsv"},
               {"samples": ["a", "b"]})
    assert run.code == 0, run.log
    rows = read_tsv(tmp_path / "counts.tsv")
    assert rows[0] == ["gene_id", "a", "b"] and rows[1][0] == "G1" and rows[2][0] == "G2"
    run = step("salmon_to_gene_counts.py", {"quants": [tmp_path / "missing"], "annotation": gtf},
               {"counts": tmp_path / "x.tsv"}, {"samples": ["missing"]})
    assert_failed(run, "(sample missing) does not exist")


VCF_ANN = ("##fileformat=VCFv4.2\n"
           '##INFO=<ID=ANN,Number=.,Type=String,Description="Functional annotations: \'Allele | Annotation | '
           "Annotation_Impact | Gene_Name | Gene_ID | Feature_Type | Feature_ID | Transcript_BioType | Rank | "
           "HGVS.c | HGVS.p | cDNA.pos / cDNA.length | CDS.pos / CDS.length | AA.pos / AA.length | Distance | "
           "ERRORS / WARNINGS / INFO' \">\n"
           "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n"
           "1\t10\t.\tA\tG\t50\tPASS\tANN=G|missense_variant|MODERATE|TP53|ENSG1|transcript|T1|protein_coding"
           "|1/2|c.1A>G|p.M1V|1/10|1/9|1/3||\n"
           "1\t20\t.\tAT\tA\t50\tPASS\tANN=A|frameshift_variant|HIGH|EGFR|ENSG2|transcript|T2|protein_coding"
           "|1/2|c.2del|p.X|2/10|2/9|1/3||\n")


def test_variant_summary_table(step, tmp_path):
    vcf = write(tmp_path / "ann.vcf", VCF_ANN)
    run = step("variant_summary_table.py", {"vcf": vcf}, {"table": tmp_path / "summary.tsv"})
    assert run.code == 0, run.log
    text = (tmp_path / "summary.tsv").read_text()
    assert "missense_variant" in text and "frameshift_variant" in text and "TP53" in text
    not_vcf = write(tmp_path / "bad.vcf", "hello\n")
    assert_failed(step("variant_summary_table.py", {"vcf": not_vcf}, {"table": tmp_path / "x.tsv"}), str(not_vcf))


KRAKEN = ("  50.00\t50\t50\tU\t0\tunclassified\n  50.00\t50\t0\tR\t1\troot\n"
          "  30.00\t30\t30\tS\t562\t      Escherichia coli\n  20.00\t20\t20\tS\t1280\t      Staphylococcus aureus\n")


def test_merge_kraken_reports(step, tmp_path):
    a = write(tmp_path / "a.report", KRAKEN)
    b = write(tmp_path / "b.report", KRAKEN.replace("\t30\t30\tS", "\t7\t7\tS"))
    run = step("merge_kraken_reports.py", {"profiles": [a, b]}, {"table": tmp_path / "merged.tsv"},
               {"rank": "S", "samples": ["a", "b"]})
    assert run.code == 0, run.log
    rows = {r[0]: r for r in read_tsv(tmp_path / "merged.tsv")}
    assert rows["562"][-2:] == ["30", "7"]
    run = step("merge_kraken_reports.py", {"profiles": [a, b]}, {"table": tmp_path / "x.tsv"},
               {"rank": "S", "samples": ["a"]})
    assert_failed(run, "2 input files but 1 sample names")


ABUNDANCE = tsv([["taxid", "name", "s1", "s2", "s3", "s4"], [562, "E. coli", 30, 28, 2, 3],
                 [1280, "S. aureus", 5, 6, 40, 38], [1423, "B. subtilis", 10, 12, 11, 9]])


def test_diversity_metrics(step, tmp_path):
    table = write(tmp_path / "abundance.tsv", ABUNDANCE)
    run = step("diversity_metrics.py", {"table": table},
               {"table": tmp_path / "alpha.tsv", "beta": tmp_path / "beta.tsv", "jaccard": tmp_path / "jaccard.tsv"},
               {"min_count": 0})
    assert run.code == 0, run.log
    alpha = read_tsv(tmp_path / "alpha.tsv")
    assert len(alpha) == 5 and "shannon" in alpha[0]
    negative = write(tmp_path / "neg.tsv", ABUNDANCE.replace("\t30\t", "\t-30\t"))
    run = step("diversity_metrics.py", {"table": negative},
               {"table": tmp_path / "x.tsv", "beta": tmp_path / "y.tsv", "jaccard": tmp_path / "z.tsv"},
               {"min_count": 0})
    assert_failed(run, "counts must be non-negative numbers")


def test_da_clr_welch(step, tmp_path):
    pytest.importorskip("scipy")
    table = write(tmp_path / "abundance.tsv", ABUNDANCE)
    samples = write(tmp_path / "samples.tsv", tsv([["sample", "condition"], ["s1", "a"], ["s2", "a"], ["s3", "b"],
                                                   ["s4", "b"]]))
    params = {"condition_column": "condition", "group_a": "", "group_b": "", "test": "welch", "pseudocount": 0.5,
              "min_prevalence": 0.1}
    run = step("da_clr_welch.py", {"table": table, "samples": samples}, {"table": tmp_path / "da.tsv"}, params)
    assert run.code == 0, run.log
    rows = read_tsv(tmp_path / "da.tsv")
    assert rows[0][0] == "taxid" and len(rows) == 4
    run = step("da_clr_welch.py", {"table": table, "samples": samples}, {"table": tmp_path / "x.tsv"},
               {**params, "test": "ttest"})
    assert_failed(run, "must be 'welch' or 'mannwhitney'")


# --- single cell ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cells(tmp_path_factory):
    """A small AnnData of raw counts: 90 cells in three groups with their own marker genes."""
    anndata = pytest.importorskip("anndata")
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(0)
    counts = rng.poisson(1.0, size=(90, 60)).astype("float32")
    for group in range(3):
        counts[group * 30:(group + 1) * 30, group * 10:(group + 1) * 10] += rng.poisson(12, size=(30, 10))
    genes = [f"MT-{i}" if i < 2 else f"GENE{i}" for i in range(60)]
    adata = anndata.AnnData(X=counts)
    adata.obs_names = [f"cell{i}" for i in range(90)]
    adata.var_names = genes
    path = tmp_path_factory.mktemp("cells") / "raw.h5ad"
    adata.write_h5ad(path)
    return path


@heavy
def test_scanpy_chain_qc_normalize_leiden_markers(step, tmp_path, cells):
    pytest.importorskip("scanpy")
    pytest.importorskip("leidenalg")
    qc = {"nmads": 5.0, "min_genes": 0, "max_pct_mt": 20, "min_cells": 3, "min_cells_kept": 50, "mt_prefix": ""}
    run = step("scanpy_qc.py", {"adata": cells}, {"adata": tmp_path / "qc.h5ad"}, qc)
    assert run.code == 0, run.log
    run = step("scanpy_normalize.py", {"adata": tmp_path / "qc.h5ad"}, {"adata": tmp_path / "norm.h5ad"},
               {"target_sum": 10000, "n_top_genes": 40, "hvg_flavor": "seurat"})
    assert run.code == 0, run.log
    run = step("scanpy_leiden.py", {"adata": tmp_path / "norm.h5ad"}, {"adata": tmp_path / "clustered.h5ad"},
               {"n_comps": 10, "n_neighbors": 10, "resolution": 0.5, "random_state": 0, "cluster_key": "leiden",
                "neighbors_method": "umap"})
    assert run.code == 0, run.log
    run = step("scanpy_rank_genes_groups.py", {"adata": tmp_path / "clustered.h5ad"},
               {"markers": tmp_path / "markers.tsv"}, {"cluster_key": "leiden", "method": "wilcoxon", "n_genes": 0})
    assert run.code == 0, run.log
    header = read_tsv(tmp_path / "markers.tsv")[0]
    assert header[:2] == ["cluster", "rank"]

    gmt = write(tmp_path / "cell_types.gmt", "".join(
        f"TYPE_{g}\tdesc\t" + "\t".join(f"GENE{i}" for i in range(g * 10 + 2, g * 10 + 10)) + "\n" for g in range(3)))
    run = step("marker_overlap_annotation.py",
               {"adata": tmp_path / "clustered.h5ad", "markers": tmp_path / "markers.tsv"},
               {"labels": tmp_path / "labels.tsv", "cells": tmp_path / "cells.tsv"},
               {"cell_markers_gmt": str(gmt), "cluster_key": "leiden", "top_n": 50, "max_padj": 0.05, "min_logfc": 0.25,
                "min_overlap": 2, "max_pval": 0.05})
    assert run.code == 0, run.log
    assert "TYPE_" in (tmp_path / "labels.tsv").read_text()
    run = step("gseapy_marker_enrich.py", {"markers": tmp_path / "markers.tsv", "gene_sets": gmt},
               {"table": tmp_path / "marker_enrich.tsv"}, {"top_n": 100, "max_padj": 0.05, "min_logfc": 0.25,
                                                           "min_genes": 3})
    assert run.code == 0, run.log

    # bad inputs: counts already normalised, a missing cluster column, a marker table without genes
    run = step("scanpy_normalize.py", {"adata": tmp_path / "norm.h5ad"}, {"adata": tmp_path / "x.h5ad"},
               {"target_sum": 10000, "n_top_genes": 40, "hvg_flavor": "seurat"})
    assert_failed(run, "already log-transformed")
    run = step("scanpy_rank_genes_groups.py", {"adata": tmp_path / "clustered.h5ad"}, {"markers": tmp_path / "x.tsv"},
               {"cluster_key": "celltype", "method": "wilcoxon", "n_genes": 0})
    assert_failed(run, "celltype")
    no_gene = write(tmp_path / "nogene.tsv", tsv([["cluster", "score"], ["0", "1"]]))
    run = step("gseapy_marker_enrich.py", {"markers": no_gene, "gene_sets": gmt}, {"table": tmp_path / "x.tsv"},
               {"top_n": 100, "max_padj": 0.05, "min_logfc": 0.25, "min_genes": 3})
    assert_failed(run, "lacks column(s) gene")
    run = step("scanpy_qc.py", {"adata": no_gene}, {"adata": tmp_path / "x.h5ad"}, qc)
    assert_failed(run, str(no_gene))


def test_scanpy_umap_refuses_data_without_clusters(step, tmp_path, cells):
    pytest.importorskip("scanpy")
    run = step("scanpy_umap.py", {"adata": cells}, {"plot": tmp_path / "u.png", "coordinates": tmp_path / "u.tsv"},
               {"cluster_key": "leiden", "min_dist": 0.5, "random_state": 0, "dpi": 72})
    assert_failed(run, "has no obs column 'leiden'")


def test_numba_functions_without_cache_get_the_on_disk_cache(tmp_path, monkeypatch):
    """cache_numba_compilations: a module's lazily compiled numba functions (umap's, declared without cache=True)
    get numba's on-disk cache beside the module, as cache=True gives (nothing is compiled here: a compile starts
    LLVM, ~1 CPU-s); other objects, a module not installed and a machine without a writable folder for the cache
    are left alone."""
    numba = pytest.importorskip("numba")
    write(tmp_path / "nb_uncached.py", "import numba\n\n@numba.njit\ndef add(a, b):\n    return a + b\n\n"
          "def plain(a):\n    return a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.path.insert(0, str(SCRIPTS))
    try:
        import bioplan_step
        import nb_uncached

        assert isinstance(nb_uncached.add, numba.core.dispatcher.Dispatcher)
        assert type(nb_uncached.add._cache).__name__ == "NullCache"  # numba's default without cache=True
        with monkeypatch.context() as nowhere:  # no writable folder: numba finds no locator, the function stays
            nowhere.setattr(numba.core.caching.CacheImpl, "_locator_classes", [])
            assert bioplan_step.cache_numba_compilations(("nb_uncached",)) == 0
        assert type(nb_uncached.add._cache).__name__ == "NullCache"
        assert bioplan_step.cache_numba_compilations(("nb_uncached", "bioplan_no_such_module")) == 1
    finally:
        sys.path.remove(str(SCRIPTS))
        sys.modules.pop("nb_uncached", None)
    cache = nb_uncached.add._cache
    assert type(cache).__name__ == "FunctionCache", cache
    assert Path(cache.cache_path) == tmp_path / "__pycache__", cache.cache_path  # beside the module, for every run
    assert nb_uncached.plain(3) == 3


def test_pydeseq2_steps_run_blas_single_threaded_and_serially_on_small_matrices(monkeypatch):
    """PyDESeq2 parallelises by gene (joblib workers): its steps ask limit_threads for one-thread BLAS pools
    before numpy is imported (2 OpenBLAS threads doubled the bulk example's DE CPU, same results), keep the rule's
    threads for numba and a value the user set; below SERIAL_BELOW_COUNTS counts they run serially."""
    sys.path.insert(0, str(SCRIPTS))
    try:
        import bioplan_step
    finally:
        sys.path.remove(str(SCRIPTS))
    pools = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")
    for var in pools:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("MKL_NUM_THREADS", "3")  # the user's own setting stays
    assert bioplan_step.limit_threads(4, blas=1) == 4
    assert [os.environ[v] for v in pools] == ["1", "1", "3", "4"]
    for var in pools:
        monkeypatch.delenv(var, raising=False)
    bioplan_step.limit_threads("2")
    assert [os.environ[v] for v in pools] == ["2", "2", "2", "2"]
    limit = bioplan_step.SERIAL_BELOW_COUNTS
    assert [bioplan_step.pydeseq2_workers(t, n) for t, n in ((4, limit - 1), (4, limit), (0, limit), ("2", 3600))] \
        == [1, 4, 1, 1]
    for script in ("pydeseq2_de.py", "pydeseq2_vst.py", "pseudobulk_pydeseq2.py"):
        lines = (SCRIPTS / script).read_text().splitlines()
        first_numeric = min(i for i, line in enumerate(lines) if re.match(r"import (numpy|pandas)\b", line))
        limited = [i for i, line in enumerate(lines) if "limit_threads(snakemake.threads, blas=1)" in line]
        assert limited and limited[0] < first_numeric, script
        assert "pydeseq2_workers(" in (SCRIPTS / script).read_text(), script


def test_harmony_integration_runs_the_clustering_steps_pca(step, tmp_path, cells):
    """harmony_integrate.py and scanpy_leiden.py share one PCA (bioplan_step.pca_settings): on the
    highly variable genes, n_comps lowered to what the data allows, too small a data set refused."""
    anndata = pytest.importorskip("anndata")
    pytest.importorskip("scanpy")
    pytest.importorskip("harmonypy")
    run = step("scanpy_normalize.py", {"adata": cells}, {"adata": tmp_path / "norm.h5ad"},
               {"target_sum": 10000, "n_top_genes": 40, "hvg_flavor": "seurat"})
    assert run.code == 0, run.log
    adata = anndata.read_h5ad(tmp_path / "norm.h5ad")
    adata.obs["sample"] = ["a" if i % 2 else "b" for i in range(adata.n_obs)]
    adata.write_h5ad(tmp_path / "batched.h5ad")
    adata[:2].copy().write_h5ad(tmp_path / "two.h5ad")
    params = {"batch_key": "sample", "n_comps": 60, "theta": 2.0, "max_iter": 5, "random_state": 0,
              "mixing_neighbors": 10}
    outputs = {"adata": tmp_path / "harmony.h5ad", "mixing": tmp_path / "mixing.tsv"}
    run = step("harmony_integrate.py", {"adata": tmp_path / "batched.h5ad"}, outputs, params)
    assert run.code == 0, run.log
    assert "n_comps=60 lowered to 39" in run.log  # 40 highly variable genes: at most 39 components
    out = anndata.read_h5ad(tmp_path / "harmony.h5ad")
    assert out.obsm["X_pca"].shape == out.obsm["X_pca_harmony"].shape == (adata.n_obs, 39)
    assert out.uns["batch_integration"]["n_comps"] == 39
    assert [row[0] for row in read_tsv(tmp_path / "mixing.tsv")] == ["embedding", "pca", "pca_harmony"]
    run = step("harmony_integrate.py", {"adata": tmp_path / "two.h5ad"}, outputs, params)
    assert_failed(run, "too few cells or genes", "two.h5ad", "(2 cells, 40 genes)")


def test_single_cell_extras_refuse_what_they_cannot_use(step, tmp_path, cells):
    """Scrublet, pseudobulk DE, CellTypist and PAGA (issue 18): each bad input is one message naming it."""
    anndata = pytest.importorskip("anndata")
    pytest.importorskip("scanpy")
    run = step("scanpy_normalize.py", {"adata": cells}, {"adata": tmp_path / "norm.h5ad"},
               {"target_sum": 10000, "n_top_genes": 40, "hvg_flavor": "seurat"})
    assert run.code == 0, run.log
    scrublet = {"batch_key": "sample", "expected_doublet_rate": 0.06, "n_prin_comps": 10, "n_neighbors": 0,
                "threshold": 0, "random_state": 0, "remove_doublets": True}
    outputs = {"adata": tmp_path / "singlets.h5ad", "scores": tmp_path / "scores.tsv"}
    assert_failed(step("scanpy_scrublet.py", {"adata": tmp_path / "norm.h5ad"}, outputs, scrublet), "not raw counts")
    assert_failed(step("scanpy_scrublet.py", {"adata": cells}, outputs, {**scrublet, "expected_doublet_rate": 2}),
                  "between 0 and 1")

    adata = anndata.read_h5ad(tmp_path / "norm.h5ad")
    adata.obs["leiden"] = [str(i // 30) for i in range(adata.n_obs)]
    adata.obs["sample"] = [f"s{i % 3}" for i in range(adata.n_obs)]
    adata.obs["condition"] = ["treated" if i % 3 == 0 else "control" for i in range(adata.n_obs)]
    adata.write_h5ad(tmp_path / "clustered.h5ad")
    pseudobulk = {"sample_key": "sample", "condition_key": "condition", "cluster_key": "leiden",
                  "reference_level": None, "test_level": None, "min_cells": 5, "min_counts": 10, "alpha": 0.05}
    table = {"table": tmp_path / "pb.tsv"}
    # one treated sample: no cell type has two samples per condition
    run = step("pseudobulk_pydeseq2.py", {"adata": tmp_path / "clustered.h5ad"}, table, pseudobulk)
    assert_failed(run, "biological replicates")
    assert "skipped" in run.log
    run = step("pseudobulk_pydeseq2.py", {"adata": tmp_path / "clustered.h5ad"}, table,
               {**pseudobulk, "condition_key": "treatment"})
    assert_failed(run, "no obs column 'treatment'", "condition_key")
    run = step("pseudobulk_pydeseq2.py", {"adata": tmp_path / "clustered.h5ad"}, table,
               {**pseudobulk, "sample_key": "leiden"})
    assert_failed(run, "several conditions")

    annotation = {"labels": tmp_path / "labels.tsv", "cells": tmp_path / "cells.tsv"}
    run = step("celltypist_annotate.py", {"adata": tmp_path / "clustered.h5ad", "markers": tmp_path / "none.tsv"},
               annotation, {"model": "", "cluster_key": "leiden", "majority_voting": True, "top_n": 25})
    if "celltypist" not in run.terminal or "pip install" not in run.terminal:  # celltypist installed
        assert_failed(run, "no CellTypist model given", "params.celltypist.model")

    paga = {"pseudotime": tmp_path / "dpt.tsv", "paga": tmp_path / "paga.tsv"}
    run = step("scanpy_paga.py", {"adata": tmp_path / "clustered.h5ad"}, paga,
               {"cluster_key": "louvain", "root_cluster": "", "n_dcs": 10, "min_connectivity": 0.05})
    assert_failed(run, "no obs column 'louvain'")
    run = step("scanpy_paga.py", {"adata": tmp_path / "clustered.h5ad"}, paga,
               {"cluster_key": "leiden", "root_cluster": "", "n_dcs": 10, "min_connectivity": 0.05})
    assert_failed(run, "neither a neighbour graph", "run the clustering step first")

# --- R scripts (bin/bioplan_run.R, as the Nextflow target runs them) -------------------------------


def run_r(tmp_path: Path, script: str, inputs: dict, outputs: dict, params: dict, rule: str = "step") -> StepRun:
    argv = _argv(script, tmp_path, inputs, outputs, params, rule)
    proc = subprocess.run(["Rscript", str(RUNNER_R), *argv], capture_output=True, text=True, timeout=300)
    log = tmp_path / f"{rule}.log"
    return StepRun(proc.returncode, proc.stderr, log.read_text(encoding="utf-8") if log.exists() else "")


def run_r_steps(tmp_path: Path, *steps: tuple[str, dict, dict, dict]) -> list[StepRun]:
    """run_r of each (script, inputs, outputs, params) step, all in one R session (helpers.run_r_session: the
    scripts' packages load once), each with its params and log in its own folder tmp_path/run<n>, rule 'step'.
    A step expected to fail goes last (fail() ends the session); a step never run has code -1."""
    argvs = []
    for n, (script, inputs, outputs, params) in enumerate(steps, 1):
        (tmp_path / f"run{n}").mkdir()
        argvs.append(_argv(script, tmp_path / f"run{n}", inputs, outputs, params, "step"))
    runs = []
    for n, (code, terminal) in enumerate(run_r_session(tmp_path, RUNNER_R, argvs), 1):
        log = tmp_path / f"run{n}" / "step.log"
        runs.append(StepRun(-1 if code is None else code, terminal,
                            log.read_text(encoding="utf-8") if log.exists() else ""))
    return runs


def test_one_r_session_tells_each_run_its_status_and_terminal():
    """helpers.split_r_session: a run that ended is 0 with what it wrote between its marks (a last line without a
    newline too); the run the session ended in takes the session's exit status; a run never started is None, and
    its terminal says so with what the session wrote outside the runs (an error of the prelude)."""
    stderr = ("@@bioplan-run 1\nWARNING: x\nno newline@@bioplan-run 1 ended\n"
              "@@bioplan-run 2\nERROR [step]: bad input\n")
    assert split_r_session(stderr, 3, 1) == [
        (0, "WARNING: x\nno newline"), (1, "ERROR [step]: bad input\n"),
        (None, "(not run: the R session ended before it, status 1)\n")]
    assert split_r_session("@@bioplan-run 1\n@@bioplan-run 1 ended\n", 1, 0) == [(0, "")]
    assert split_r_session("Error in eval(): boom\n", 1, 1) == [
        (None, "(not run: the R session ended before it, status 1)\nError in eval(): boom\n")]


@pytest.fixture(scope="module")
def deseq2_runs(tmp_path_factory) -> dict:
    """The DESeq2 runs of test_deseq2_de_r, test_deseq2_vst_r and test_deseq2_de_r_tests_against_the_threshold_and_
    takes_the_levels in one R session (DESeq2 loads once): the DE test, the VST of ATAC_PEAK_COUNTS, the DE test of
    test_honesty_round7's study with |log2FC| > 1 and the levels wt/ko, then without a threshold, then the DE test on
    a sheet without the condition column (it fails: last)."""
    require_r_packages("DESeq2")
    tmp = tmp_path_factory.mktemp("deseq2")
    counts, samples = write(tmp / "counts.tsv", COUNTS), write(tmp / "samples.tsv", SAMPLES)
    wrong = write(tmp / "wrong.tsv", SAMPLES.replace("condition", "group"))
    params = {"condition_column": "condition", "alpha": 0.05}
    (tmp / "study").mkdir()
    study = dict(zip(("counts", "samples"), _study(tmp / "study", ("WT", "KO"))))
    levels = {**params, "lfc_threshold": 1.0, "reference_level": "wt", "test_level": "ko"}
    de, vst, thresholded, plain, wrong_sheet = run_r_steps(
        tmp, ("deseq2_de.R", {"counts": counts, "samples": samples}, {"table": tmp / "de.tsv"}, params),
        ("deseq2_vst.R", {"counts": write(tmp / "peaks.tsv", ATAC_PEAK_COUNTS)}, {"normalized": tmp / "vst.tsv"},
         {"fit_type": "parametric", "blind": True}),
        ("deseq2_de.R", study, {"table": tmp / "thresholded.tsv"}, levels),
        ("deseq2_de.R", study, {"table": tmp / "plain.tsv"}, {**params, "lfc_threshold": 0.0}),
        ("deseq2_de.R", {"counts": counts, "samples": wrong}, {"table": tmp / "x.tsv"}, params))
    return {"de": de, "vst": vst, "thresholded": thresholded, "plain": plain, "wrong_sheet": wrong_sheet, "dir": tmp}


@heavy
def test_deseq2_de_r(deseq2_runs):
    run = deseq2_runs["de"]
    assert run.code == 0, run.terminal + run.log
    rows = read_tsv(deseq2_runs["dir"] / "de.tsv")
    assert rows[0][:3] == ["gene_id", "baseMean", "log2FoldChange"] and len(rows) == 41
    assert_failed(deseq2_runs["wrong_sheet"], "has no column 'condition'")


@heavy
def test_deseq2_de_r_tests_against_the_threshold_and_takes_the_levels(deseq2_runs):
    """tests/test_honesty_round7.py's DE-script case for DESeq2, in this module's DESeq2 session."""
    thresholded, plain = deseq2_runs["thresholded"], deseq2_runs["plain"]
    assert thresholded.code == 0, thresholded.terminal + thresholded.log
    assert plain.code == 0, plain.terminal + plain.log
    assert_threshold_and_levels(thresholded.log, deseq2_runs["dir"] / "thresholded.tsv", plain.log,
                                deseq2_runs["dir"] / "plain.tsv", "lfcThreshold")


# featureCounts in the 11 consensus peaks of tests/e2e/test_chipseq_extras_run.py's ATAC run (the 5th peak opened
# 4x in the treated samples): DESeq2's parametric trend fails on them and the local fit it substitutes spreads
# 200-1000 reads over -15..153
ATAC_PEAK_COUNTS = tsv([["peak_id", "ctrl_1", "ctrl_2", "treated_1", "treated_2"]] + [
    [f"consensus_peak_{n}", *row] for n, row in enumerate(
        ((251, 256, 201, 272), (224, 220, 312, 265), (208, 270, 208, 255), (219, 281, 199, 287), (261, 184, 947, 741),
         (227, 237, 280, 225), (210, 193, 312, 317), (247, 195, 211, 242), (249, 241, 201, 213), (201, 215, 212, 271),
         (206, 207, 212, 215)), 1)])


@heavy
def test_deseq2_vst_r(tmp_path, deseq2_runs):
    run = deseq2_runs["vst"]
    assert run.code == 0, run.terminal + run.log
    assert "used the mean dispersion fit" in run.log, run.log
    rows = read_tsv(deseq2_runs["dir"] / "vst.tsv")
    assert rows[0] == ["gene_id", "ctrl_1", "ctrl_2", "treated_1", "treated_2"] and len(rows) == 12
    # log2-like: 200-1000 normalised reads land between log2(150) and log2(1100), and the opened peak is the
    # treated samples' highest value
    values = {r[0]: [float(v) for v in r[1:]] for r in rows[1:]}
    assert all(7.2 < v < 10.1 for vs in values.values() for v in vs), values
    assert min(values["consensus_peak_5"][2:]) > max(max(vs[2:]) for p, vs in values.items() if p != "consensus_peak_5")
    negative = write(tmp_path / "neg.tsv", ATAC_PEAK_COUNTS.replace("\t251\t", "\t-3\t", 1))
    run = run_r(tmp_path, "deseq2_vst.R", {"counts": negative}, {"normalized": tmp_path / "x.tsv"}, {})
    assert_failed(run, "missing or negative value")


@heavy
def test_edger_cpm_r(tmp_path):
    """TMM-normalised log-CPM (edgeR) on the shared count-table reader: a gene-name column is dropped with a
    warning, values are log2 CPM (the opened peak highest in the treated samples), negative counts fail."""
    require_r_packages("edgeR")
    named = "\n".join(f"{line}\t{'name' if i == 0 else f'g{i}'}" for i, line in
                      enumerate(ATAC_PEAK_COUNTS.strip().split("\n"))) + "\n"
    counts = write(tmp_path / "counts.tsv", named)
    negative = write(tmp_path / "neg.tsv", ATAC_PEAK_COUNTS.replace("\t251\t", "\t-3\t", 1))
    run, failed = run_r_steps(tmp_path, ("edger_cpm.R", {"counts": counts}, {"normalized": tmp_path / "cpm.tsv"},
                                         {"log": True, "prior_count": 2}),
                              ("edger_cpm.R", {"counts": negative}, {"normalized": tmp_path / "x.tsv"}, {}))
    assert run.code == 0, run.terminal + run.log
    assert "dropping non-numeric columns: name" in run.log, run.log
    rows = read_tsv(tmp_path / "cpm.tsv")
    assert rows[0] == ["gene_id", "ctrl_1", "ctrl_2", "treated_1", "treated_2"] and len(rows) == 12
    values = {r[0]: [float(v) for v in r[1:]] for r in rows[1:]}
    # about 230 of ~2,500 reads per sample: log2(~90,000 CPM) ~ 16.5
    assert all(15.0 < v < 18.5 for vs in values.values() for v in vs), values
    assert min(values["consensus_peak_5"][2:]) > max(max(vs[2:]) for p, vs in values.items() if p != "consensus_peak_5")
    assert_failed(failed, "missing or negative value")


@heavy
def test_tximport_counts_r(tmp_path):
    require_r_packages("tximport")
    gtf = write(tmp_path / "genes.gtf", "".join(
        f'chr1\tsrc\ttranscript\t1\t100\t.\t+\t.\tgene_id "{g}"; transcript_id "{t}";\n'
        for t, g in (("T1", "G1"), ("T2", "G1"), ("T3", "G2"))))
    quants = []
    for sample, reads in (("a", (10.4, 5, 7)), ("b", (1, 2, 3))):
        (tmp_path / sample).mkdir()
        write(tmp_path / sample / "quant.sf", "Name\tLength\tEffectiveLength\tTPM\tNumReads\n"
              + "".join(f"T{i}\t100\t90\t1.0\t{r}\n" for i, r in enumerate(reads, 1)))
        quants.append(tmp_path / sample)
    run, failed = run_r_steps(
        tmp_path, ("tximport_counts.R", {"quants": quants, "annotation": gtf}, {"counts": tmp_path / "c.tsv"},
                   {"samples": ["a", "b"]}),
        ("tximport_counts.R", {"quants": quants, "annotation": gtf}, {"counts": tmp_path / "x.tsv"},
         {"samples": ["a"]}))
    assert run.code == 0, run.terminal + run.log
    rows = read_tsv(tmp_path / "c.tsv")
    assert rows[0] == ["gene_id", "a", "b"] and [r[0] for r in rows[1:]] == ["G1", "G2"]
    assert_failed(failed, "2 quantification outputs but 1 sample names")

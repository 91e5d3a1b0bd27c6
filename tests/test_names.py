"""Names (issue 9, finding 8) and the exit statuses of `compile` and `plan` on odd input: a sample named
'.' or '..' is refused, braces in names are refused for Snakemake (never "bug in bioplan"), sample ids
starting with '-' are refused for Nextflow, sample-sheet rows without data are listed in a warning, and
nothing but 0 or 2 comes out of bad paths."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from bioplan.cli import main

PAIRED_QC = "mouse paired-end RNA-seq FASTQ: read QC"
DE_REQUEST = "mouse raw counts: differential expression"


def _cli(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _json_error(result) -> dict:
    assert result.exit_code == 2, result.output
    return json.loads(result.output[result.output.index("{"):])["error"]


def _pair(workspace: Path, into: Path, sample: str, source: str = "ctrl_1") -> list[str]:
    """Mates 1 and 2 of a sample named `sample` (copies of an example sample's reads)."""
    into.mkdir(parents=True, exist_ok=True)
    paths = []
    for mate in (1, 2):
        dest = into / f"{sample}_R{mate}.fastq.gz"
        shutil.copy(workspace / "data" / "rnaseq_fastq" / "reads" / f"{source}_R{mate}.fastq.gz", dest)
        paths.append(str(dest))
    return paths


def _inputs(paths: list[str]) -> list[str]:
    return [arg for p in paths for arg in ("-i", p)]


# ---------------------------------------------------------------- '.' and '..'

@pytest.mark.parametrize("sample", ["..", "."])
def test_dot_sample_names_from_file_names_are_refused(workspace, tmp_path, sample):
    reads = _pair(workspace, tmp_path / "reads", sample) + _pair(workspace, tmp_path / "reads", "ok", "ctrl_2")
    err = _json_error(_cli("compile", PAIRED_QC, *_inputs(reads), "-o", str(tmp_path / "wf" / "Snakefile"),
                           "--no-validate", "--json"))
    assert err["code"] == "unreadable_input"
    assert err["details"]["sample"] == sample and repr(sample) in err["message"]
    assert any("rename" in h for h in err["hints"])
    assert not (tmp_path / "wf").exists()


def test_dot_dot_sample_in_a_sample_sheet_is_refused(workspace, tmp_path):
    sheet = tmp_path / "samples.tsv"
    rows = (workspace / "data" / "bulk_de" / "samples.tsv").read_text().splitlines()
    first = rows[1].split("\t")
    sheet.write_text("\n".join([rows[0], "\t".join([".."] + first[1:]), *rows[2:]]) + "\n")
    err = _json_error(_cli("plan", DE_REQUEST, "-i", str(workspace / "data" / "bulk_de" / "counts.csv"),
                           "-i", str(sheet), "--json"))
    assert err["code"] == "unreadable_input" and "'..'" in err["message"] and "samples.tsv" in err["message"]


# ---------------------------------------------------------------- braces

def test_braces_in_a_file_name_are_refused_clearly_for_snakemake(workspace, tmp_path):
    counts = tmp_path / "counts{sample}.csv"
    shutil.copy(workspace / "data" / "bulk_de" / "counts.csv", counts)
    err = _json_error(_cli("compile", DE_REQUEST, "-i", str(counts), "-i",
                           str(workspace / "data" / "bulk_de" / "samples.tsv"),
                           "-o", str(tmp_path / "wf" / "Snakefile"), "--json"))
    assert err["code"] == "target_unsupported", err  # before: validation_failed, "a bug in bioplan"
    assert "counts{sample}.csv" in err["message"] and "wildcard" in err["message"]
    assert not any("bug" in h for h in err["hints"])


def test_braces_in_a_sample_name_are_refused_clearly_for_snakemake(workspace, tmp_path):
    reads = _pair(workspace, tmp_path / "reads", "s{x}") + _pair(workspace, tmp_path / "reads", "ok", "ctrl_2")
    err = _json_error(_cli("compile", PAIRED_QC, *_inputs(reads), "-o", str(tmp_path / "wf" / "Snakefile"),
                           "--json"))
    assert err["code"] == "target_unsupported", err
    assert "s{x}" in err["details"]["samples"]


def test_lone_braces_that_are_no_wildcard_compile(workspace, knowledge, tmp_path, precheck_in_loop):
    """'{' alone is no Snakemake wildcard: such a file name works end to end, pre-check included."""
    from bioplan.compile import compile_request

    counts = tmp_path / "counts{.csv"
    shutil.copy(workspace / "data" / "bulk_de" / "counts.csv", counts)
    res = compile_request(DE_REQUEST, [str(counts), str(workspace / "data" / "bulk_de" / "samples.tsv")],
                          str(tmp_path / "wf" / "Snakefile"), knowledge=knowledge)
    assert res.checks and all(c.ok for c in res.checks)


# ---------------------------------------------------------------- leading '-' (both targets)

@pytest.mark.parametrize("target, entry", [("nextflow", "main.nf"), ("snakemake", "Snakefile")])
def test_sample_id_starting_with_dash_is_refused(workspace, tmp_path, target, entry):
    """Tools given sample names as values (deepTools --labels, read groups) read a leading '-' as an
    option, whatever the quoting: refused on input for every target, naming the sample and its file."""
    reads = _pair(workspace, tmp_path / "reads", "-s1") + _pair(workspace, tmp_path / "reads", "ok", "ctrl_2")
    err = _json_error(_cli("compile", PAIRED_QC, *_inputs(reads), "--target", target,
                           "-o", str(tmp_path / "wf" / entry), "--json"))
    assert err["code"] == "unreadable_input"
    assert err["details"]["sample"] == "-s1" and "'-s1'" in err["message"] and "-s1_R1" in err["message"]
    assert any("'-'" in h for h in err["hints"])
    assert not (tmp_path / "wf").exists()


# ---------------------------------------------------------------- sample-sheet rows without data

def test_sample_sheet_rows_without_data_are_listed_in_a_warning(workspace, tmp_path):
    sheet = tmp_path / "samples.tsv"
    sheet.write_text((workspace / "data" / "bulk_de" / "samples.tsv").read_text() + "extra_1\t\n\ttreated\n")
    result = _cli("plan", DE_REQUEST, "-i", str(workspace / "data" / "bulk_de" / "counts.csv"), "-i", str(sheet),
                  "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output[result.output.index("{"):])
    warning = next(w for w in report["warnings"] if "without data" in w)
    assert "2 rows" in warning and "'extra_1'" in warning and "no sample id" in warning


# ---------------------------------------------------------------- exit statuses on odd paths

def _odd_outputs(tmp_path: Path, counts: Path) -> list[str]:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "loop1").symlink_to("loop2")
    (tmp_path / "loop2").symlink_to("loop1")
    return [
        "", "-", str(counts), f"{counts}/Snakefile", f"{fifo}/Snakefile", f"{tmp_path}/loop1/Snakefile",
        f"{tmp_path}/{'x' * 300}/Snakefile", f"{tmp_path}/{'y' * 250}/Snakefile", "/proc/1/Snakefile",
        "/sys/kernel/Snakefile", "/dev/null", "/dev/null/Snakefile", f"{tmp_path}/a\nb/Snakefile",
        f"{tmp_path}/wf/main.nf",
    ]


def test_compile_exits_only_0_or_2_on_odd_output_paths(workspace, tmp_path):
    counts = tmp_path / "counts.csv"
    shutil.copy(workspace / "data" / "bulk_de" / "counts.csv", counts)
    samples = str(workspace / "data" / "bulk_de" / "samples.tsv")
    for output in _odd_outputs(tmp_path, counts):
        result = CliRunner().invoke(main, ["compile", DE_REQUEST, "-i", str(counts), "-i", samples, "-o", output,
                                           "--no-validate"])
        assert result.exit_code in (0, 2), (output, result.output, result.exception)
        assert "Traceback" not in result.output, (output, result.output)
    assert stat.S_ISFIFO(os.stat(tmp_path / "fifo").st_mode)  # nothing wrote through the pipe


def test_plan_and_compile_exit_only_0_or_2_on_odd_input_paths(workspace, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    empty = tmp_path / "empty.csv"
    empty.touch()
    odd = ["", str(tmp_path / "missing.csv"), str(fifo), "/dev/zero", "/dev/null", "/proc/self/status", "/etc",
           str(empty), "-", str(tmp_path / "a\nb.csv"), "x" * 5000]
    samples = str(workspace / "data" / "bulk_de" / "samples.tsv")
    for path in odd:
        for command in (["plan", DE_REQUEST], ["compile", DE_REQUEST, "-o", str(tmp_path / "wf" / "Snakefile")]):
            result = CliRunner().invoke(main, [*command, "-i", path, "-i", samples])
            assert result.exit_code in (0, 2), (command[0], path, result.output, result.exception)
            assert "Traceback" not in result.output, (command[0], path, result.output)


@pytest.mark.parametrize("option", [["--top", "0"], ["--top", "-1"], ["--max-hops", "0"], ["--max-hops", "-5"]])
def test_out_of_range_counts_are_usage_errors(workspace, tmp_path, option):
    inputs = ["-i", str(workspace / "data" / "bulk_de" / "counts.csv"),
              "-i", str(workspace / "data" / "bulk_de" / "samples.tsv")]
    for command in (["plan", DE_REQUEST], ["compile", DE_REQUEST, "-o", str(tmp_path / "wf" / "Snakefile")]):
        result = CliRunner().invoke(main, [*command, *inputs, *option])
        assert result.exit_code == 2, (command[0], option, result.output, result.exception)
        assert option[0] in result.output
    assert not (tmp_path / "wf").exists()

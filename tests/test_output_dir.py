"""The -o directory (issue 9, findings 3-5 and 7): inputs inside it, impossible or unwritable paths,
concurrent compiles, and symlinks that lead out of it."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from bioplan.cli import main
from bioplan.compile import compile_request
from bioplan.errors import OutputExistsError, OutputUnwritableError

DE_REQUEST = "mouse raw counts: differential expression with a volcano plot"
DE_ONLY_REQUEST = "mouse raw counts: differential expression"


def _bulk_inputs(workspace: Path, into: Path) -> list[Path]:
    into.mkdir(parents=True, exist_ok=True)
    copies = []
    for name in ("counts.csv", "samples.tsv"):
        shutil.copy(workspace / "data" / "bulk_de" / name, into / name)
        copies.append(into / name)
    return copies


def _leftovers(directory: Path) -> list[str]:
    """Staging, scratch and lock files bioplan must never leave behind."""
    return sorted(p.name for p in directory.iterdir() if p.name.startswith(".bioplan-") or p.name.endswith(".lock"))


def _config_inputs(workflow_dir: Path) -> dict:
    import yaml

    return yaml.safe_load((workflow_dir / "config" / "config.yaml").read_text(encoding="utf-8"))["inputs"]


# ---------------------------------------------------------------- inputs inside -o (finding 3)

# these compiles' `snakemake -n` pre-checks run in the worker's one Snakemake process (conftest.precheck_in_loop)
def test_inputs_in_the_data_folder_with_output_dot_snakefile(workspace, knowledge, tmp_path, monkeypatch,
                                                             precheck_in_loop):
    data = tmp_path / "data"
    _bulk_inputs(workspace, data)
    monkeypatch.chdir(data)
    res = compile_request(DE_REQUEST, ["counts.csv", "samples.tsv"], "./Snakefile", knowledge=knowledge)
    assert res.checks and all(c.ok for c in res.checks), res.checks[0].output[-2000:]
    assert (data / "workflow" / "Snakefile").is_file() and (data / "counts.csv").is_file()
    assert _config_inputs(data) == {"raw_count_matrix": "counts.csv", "sample_metadata": "samples.tsv"}
    assert _leftovers(tmp_path) == []


def test_project_layout_with_a_symlinked_input(workspace, knowledge, tmp_path, monkeypatch, precheck_in_loop):
    """proj/data/* + -o proj/Snakefile, relative paths, and one input a relative symlink to a file elsewhere."""
    elsewhere = tmp_path / "elsewhere"
    counts, _ = _bulk_inputs(workspace, elsewhere)
    data = tmp_path / "proj" / "data"
    data.mkdir(parents=True)
    (data / "counts.csv").symlink_to(os.path.relpath(counts, data))
    shutil.copy(workspace / "data" / "bulk_de" / "samples.tsv", data / "samples.tsv")
    monkeypatch.chdir(tmp_path)
    res = compile_request(DE_REQUEST, ["proj/data/counts.csv", "proj/data/samples.tsv"], "proj/Snakefile",
                          knowledge=knowledge)
    assert res.checks and all(c.ok for c in res.checks), res.checks[0].output[-2000:]
    assert _config_inputs(tmp_path / "proj") == {"raw_count_matrix": "data/counts.csv",
                                                 "sample_metadata": "data/samples.tsv"}
    assert (data / "counts.csv").is_symlink()  # the user's files are left as they were
    assert _leftovers(tmp_path) == []


def test_fastq_sample_sheet_paths_inside_output(workspace, knowledge, tmp_path, monkeypatch, precheck_in_loop):
    """Per-sample inputs reach the workflow through config/samples.tsv: the pre-check must see those too."""
    reads = tmp_path / "proj" / "reads"
    reads.mkdir(parents=True)
    for f in (workspace / "data" / "rnaseq_fastq" / "reads").iterdir():
        shutil.copy(f, reads / f.name)
    monkeypatch.chdir(tmp_path)
    inputs = [f"proj/reads/{f}" for f in sorted(os.listdir(reads))]
    res = compile_request("mouse paired-end RNA-seq FASTQ: read QC", inputs, "proj/Snakefile", knowledge=knowledge)
    assert res.checks and all(c.ok for c in res.checks), res.checks[0].output[-2000:]
    sheet = (tmp_path / "proj" / "config" / "samples.tsv").read_text()
    assert "ctrl_1\treads/ctrl_1_R1.fastq.gz\treads/ctrl_1_R2.fastq.gz" in sheet


# ---------------------------------------------------------------- impossible or unwritable -o (finding 4)

def _cli(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.mark.parametrize("output, named", [
    ("{file}/Snakefile", "{file}"),                # a directory component that is a regular file
    ("{file}/deeper/Snakefile", "{file}"),
    ("/proc/bioplan-test/Snakefile", "/proc"),
    ("/proc/self/Snakefile", "/proc"),
    ("/sys/Snakefile", "/sys"),
    ("/dev/null/Snakefile", "/dev/null"),
    ("/Snakefile", "root"),                        # the file system's root is no workflow's directory
    ("/", "root"),
])
def test_impossible_output_is_exit_2_naming_path_and_reason(workspace, tmp_path, output, named):
    counts, samples = _bulk_inputs(workspace, tmp_path / "data")
    output = output.format(file=counts)
    named = named.format(file=counts)
    result = _cli("compile", DE_REQUEST, "-i", str(counts), "-i", str(samples), "-o", output, "--json")
    assert result.exit_code == 2, result.output
    err = json.loads(result.output)["error"]
    assert err["code"] == "output_unwritable"
    assert named in err["message"] and err["details"]["reason"] and err["hints"]
    assert not (tmp_path / "data" / "workflow").exists()


def test_read_only_file_system_is_exit_2(workspace, tmp_path):
    """A real read-only mount (tmpfs -o ro); os.access reports EROFS even for root."""
    counts, samples = _bulk_inputs(workspace, tmp_path / "data")
    ro = tmp_path / "ro"
    ro.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(ro)],
                             capture_output=True).returncode == 0
    if not mounted:
        pytest.skip("cannot mount a read-only tmpfs here (needs root and CAP_SYS_ADMIN)")
    try:
        for output in (ro / "Snakefile", ro / "new" / "Snakefile"):
            result = _cli("compile", DE_REQUEST, "-i", str(counts), "-i", str(samples), "-o", str(output), "--json")
            assert result.exit_code == 2, result.output
            err = json.loads(result.output)["error"]
            assert err["code"] == "output_unwritable" and "read-only" in err["message"], err
    finally:
        subprocess.run(["umount", str(ro)], check=True)


def test_write_error_while_staging_is_output_unwritable(workspace, knowledge, tmp_path, monkeypatch):
    """A file system that fails mid-write (EROFS, ENOSPC, ...) is a clean error, and leaves nothing behind."""
    import bioplan.compile as compile_module

    counts, samples = _bulk_inputs(workspace, tmp_path / "data")

    def failing_write(root, files):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(root / "Snakefile"))

    monkeypatch.setattr(compile_module, "_write_tree", failing_write)
    out = tmp_path / "new" / "wf" / "Snakefile"
    with pytest.raises(OutputUnwritableError) as info:
        compile_request(DE_REQUEST, [str(counts), str(samples)], str(out), validate=False, knowledge=knowledge)
    assert "Read-only file system" in info.value.message and "Snakefile" in info.value.details["path"]
    assert not (tmp_path / "new").exists()  # the parents it made are gone again


# ---------------------------------------------------------------- concurrent compiles (finding 5)

def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_two_concurrent_compiles_into_one_new_output(workspace, knowledge, tmp_path):
    """Two processes, two different requests, one new -o: exactly one succeeds, the other says output_exists,
    and the tree is exactly the winner's (never one compile's Snakefile with the other's rules)."""
    counts, samples = _bulk_inputs(workspace, tmp_path / "data")
    out = tmp_path / "shared" / "Snakefile"
    requests = (DE_REQUEST, DE_ONLY_REQUEST)
    procs = [subprocess.Popen([sys.executable, "-m", "bioplan.cli", "compile", q, "-i", str(counts), "-i",
                               str(samples), "-o", str(out), "--json"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for q in requests]
    results = [(p.wait(timeout=300), p.stdout.read(), p.stderr.read()) for p in procs]
    for p in procs:
        p.stdout.close()
        p.stderr.close()
    codes = sorted(code for code, _, _ in results)
    assert codes == [0, 2], results
    winner = next(i for i, (code, _, _) in enumerate(results) if code == 0)
    loser_out = results[1 - winner][1]
    assert json.loads(loser_out)["error"]["code"] == "output_exists", results
    # the same request compiled alone gives the same bytes: nothing of the loser is mixed in
    alone = tmp_path / "alone" / "Snakefile"
    compile_request(requests[winner], [str(counts), str(samples)], str(alone), validate=False, knowledge=knowledge)
    assert _tree(out.parent) == _tree(alone.parent)
    assert _leftovers(tmp_path) == []


def test_compile_while_output_is_locked_is_output_exists(workspace, knowledge, tmp_path):
    """The lock itself, held by another process: a clear error at once, and the lock is not taken over."""
    counts, samples = _bulk_inputs(workspace, tmp_path / "data")
    out = tmp_path / "wf" / "Snakefile"
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, os, sys, time\n"
        f"fd = os.open({str(tmp_path / '.wf.bioplan.lock')!r}, os.O_RDWR | os.O_CREAT)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('locked', flush=True)\ntime.sleep(120)\n")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(OutputExistsError) as info:
            compile_request(DE_REQUEST, [str(counts), str(samples)], str(out), validate=False, knowledge=knowledge)
        assert "another bioplan compile" in info.value.message
        assert not out.parent.exists()
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()


# ---------------------------------------------------------------- symlinks out of -o (finding 7)

@pytest.mark.parametrize("force", [False, True])
def test_symlinked_folder_leading_out_of_output_is_never_written_through(workspace, knowledge, tmp_path, force):
    counts, samples = _bulk_inputs(workspace, tmp_path / "data")
    out_dir = tmp_path / "wf"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out_dir.mkdir()
    (out_dir / "workflow").symlink_to("../elsewhere")
    with pytest.raises(OutputUnwritableError) as info:
        compile_request(DE_REQUEST, [str(counts), str(samples)], str(out_dir / "Snakefile"), force=force,
                        validate=False, knowledge=knowledge)
    assert "workflow" in info.value.message and "symbolic link" in info.value.message
    assert list(elsewhere.iterdir()) == []
    assert sorted(p.name for p in out_dir.iterdir()) == ["workflow"]
    assert _leftovers(tmp_path) == []


def test_symlinked_folder_inside_output_is_fine(workspace, knowledge, tmp_path):
    counts, samples = _bulk_inputs(workspace, tmp_path / "data")
    out_dir = tmp_path / "wf"
    (out_dir / "workflow_v2").mkdir(parents=True)
    (out_dir / "workflow").symlink_to("workflow_v2")
    compile_request(DE_REQUEST, [str(counts), str(samples)], str(out_dir / "Snakefile"), validate=False,
                    knowledge=knowledge)
    assert (out_dir / "workflow_v2" / "rules" / "common.smk").is_file()


def test_dangling_symlink_where_a_file_goes_is_a_clash_and_is_replaced_not_followed(workspace, knowledge, tmp_path):
    counts, samples = _bulk_inputs(workspace, tmp_path / "data")
    out_dir = tmp_path / "wf"
    (out_dir / "workflow").mkdir(parents=True)
    target = tmp_path / "outside.txt"
    (out_dir / "workflow" / "Snakefile").symlink_to(target)
    with pytest.raises(OutputExistsError):
        compile_request(DE_REQUEST, [str(counts), str(samples)], str(out_dir / "Snakefile"), validate=False,
                        knowledge=knowledge)
    compile_request(DE_REQUEST, [str(counts), str(samples)], str(out_dir / "Snakefile"), force=True,
                    validate=False, knowledge=knowledge)
    assert not target.exists()  # the link was replaced by the Snakefile, never written through
    snakefile = out_dir / "workflow" / "Snakefile"
    assert snakefile.is_file() and not snakefile.is_symlink()


def test_an_input_where_bioplan_writes_its_own_file_is_never_overwritten(workspace, knowledge, tmp_path):
    """A sample sheet kept at proj/config/samples.tsv (where bioplan writes the per-sample sheet): refused even
    with --force, so the workflow never reads bioplan's file in place of the user's."""
    proj = tmp_path / "proj"
    (proj / "reads").mkdir(parents=True)
    (proj / "config").mkdir()
    for f in (workspace / "data" / "rnaseq_fastq" / "reads").iterdir():
        shutil.copy(f, proj / "reads" / f.name)
    sheet = proj / "config" / "samples.tsv"
    shutil.copy(workspace / "data" / "rnaseq_fastq" / "samples.tsv", sheet)
    before = sheet.read_bytes()
    inputs = [str(p) for p in sorted((proj / "reads").iterdir())] + [str(sheet)]
    with pytest.raises(OutputExistsError) as info:
        compile_request("mouse paired-end RNA-seq FASTQ: read QC", inputs, str(proj / "Snakefile"), force=True,
                        validate=False, knowledge=knowledge)
    assert str(sheet) in info.value.message and info.value.details["inputs"] == [str(sheet)]
    assert sheet.read_bytes() == before
    assert not (proj / "workflow").exists()


def test_a_file_path_inside_the_output_resolves_as_pathlib_resolves_it(tmp_path):
    """compile's check that no input is overwritten resolves each file's folder once and then only asks
    whether the file's own name is a link (`_resolved_inside`): the same path as `Path.resolve` for every
    kind of name and link, and the same error for a link loop."""
    from bioplan.compile import _resolved_inside

    out, outside = tmp_path / "out", tmp_path / "elsewhere"
    (out / "workflow" / "rules").mkdir(parents=True)
    (outside / "data").mkdir(parents=True)
    (outside / "data" / "samples.tsv").write_text("sample\n")
    (out / "inner").symlink_to("workflow")  # a folder link that stays inside
    (out / "away").symlink_to(outside / "data")  # one that leads out
    (out / "workflow" / "samples.tsv").symlink_to(outside / "data" / "samples.tsv")  # a file link to an input
    (out / "workflow" / "dangling.smk").symlink_to(outside / "missing.smk")
    (out / "workflow" / "rel.smk").symlink_to("../away/samples.tsv")  # relative, through another link
    (out / "a_file").write_text("x")
    (out / "loop").symlink_to("loop")
    names = ["README.md", "workflow/Snakefile", "workflow/rules/x.smk", "inner/rules/x.smk", "inner/samples.tsv",
             "away/samples.tsv", "away/new/deeper.txt", "workflow/samples.tsv", "workflow/dangling.smk",
             "workflow/rel.smk", "a_file/below.txt", "new/folder/file.txt", "workflow/./rules/y.smk",
             "workflow//rules/z.smk", "workflow/../README.md", "inner/../away/samples.tsv", "workflow/rules/",
             "workflow/..", ".", "ünï cødé/ file .txt"]
    folders: dict[str, str] = {}
    for rel in names:
        assert _resolved_inside(out, rel, folders) == str((out / rel).resolve()), rel
    for rel in ("loop", "loop/x.txt"):
        with pytest.raises(RuntimeError):
            (out / rel).resolve()
        with pytest.raises(RuntimeError):
            _resolved_inside(out, rel, folders)


def test_folders_checked_for_links_are_every_files_folder_and_parents_as_pathlib_gives_them():
    """`_refuse_symlinks_out` walks each emitted file's folder and its parents as text (no Path per file):
    the same folders, in the same order, for the normalized relative names the generators emit, as the
    Path-based walk it replaced (`Path(rel).parent` and its `.parents`, sorted as Paths)."""
    from bioplan.compile import _folders_and_parents

    names = ["README.md", "workflow/Snakefile", "workflow/rules/x.smk", "config/config.yaml",
             "workflow/envs/a-b.yaml", "workflow/envs/a/b.yaml", "workflow/envs-x/c.yaml", "modules/local/x/main.nf",
             "modules/local/x_y/meta.yml", "modules/local/x-y/main.nf", "bin/run.py", "a/b/c/d/e.txt",
             "ünï cødé/ file .txt", "workflow/../README.md"]  # the generators' keys: no '//' and no '/./'
    by_path = sorted({parent for folder in {Path(rel).parent for rel in names} for parent in (folder, *folder.parents)
                      if str(parent) != "."})
    by_text = sorted(_folders_and_parents({os.path.dirname(rel) for rel in names}), key=lambda f: f.split("/"))
    assert list(dict.fromkeys(Path(f) for f in by_text)) == by_path


def test_in_a_new_output_each_file_path_resolves_to_itself(tmp_path):
    """`_refuse_overwriting_inputs` takes a file's path as it is when -o does not exist yet (no link can lie
    under it): the path `_resolved_inside` resolves it to, for every kind of name the generators emit."""
    from bioplan.compile import _resolved_inside

    out = tmp_path / "parent" / "new_out"
    names = ["README.md", "workflow/Snakefile", "workflow/rules/x.smk", "modules/local/a_b/main.nf",
             "ünï cødé/ file .txt", "workflow/../README.md", "a/b/c/d.txt"]
    for real_out in (out, tmp_path / "new_top"):
        assert not os.path.lexists(real_out)
        for rel in names:
            assert os.path.normpath(os.path.join(real_out, rel)) == _resolved_inside(real_out, rel, {}), rel

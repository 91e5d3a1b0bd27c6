"""Attacks round 4: a folder inside -o swapped for a symbolic link while bioplan installs.

compile refuses symlinked folders of -o that lead out of it, and checks again after the pre-check; the
install then wrote file by file through paths, so a folder swapped for a link to elsewhere after that
last check (someone else with write access to a shared project folder) was followed: bioplan's files
landed outside -o. The install now opens each folder relative to the one before, without following a
link unless the opened folder lies inside -o, and replaces each file inside that descriptor.
The swap is made deterministically right after the last check (no timing).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import bioplan.compile as compile_module
from bioplan.compile import compile_request
from bioplan.errors import OutputUnwritableError
from helpers import write_fastq


def _reads(folder: Path) -> list[str]:
    folder.mkdir(parents=True)
    return [write_fastq(folder / f"s1_R{mate}.fastq.gz", mate) for mate in (1, 2)]


def _swap_after_last_check(monkeypatch, folder: Path, target: str) -> None:
    """`folder` becomes a link to `target` as the install starts: after every check bioplan makes."""
    real = compile_module._install

    def swap_then_install(stage, out_real, files):
        os.rename(folder, folder.with_name(folder.name + ".moved"))
        folder.symlink_to(target)
        real(stage, out_real, files)

    monkeypatch.setattr(compile_module, "_install", swap_then_install)


def test_a_folder_swapped_for_a_link_out_of_output_during_install_is_not_followed(knowledge, tmp_path, monkeypatch):
    inputs = _reads(tmp_path / "data")
    out = tmp_path / "wf"
    compile_request("trim the reads with fastp", inputs, str(out), knowledge=knowledge, validate=False)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    _swap_after_last_check(monkeypatch, out / "workflow", str(elsewhere))
    with pytest.raises(OutputUnwritableError) as err:
        compile_request("trim the reads with fastp", inputs, str(out), knowledge=knowledge, validate=False,
                        force=True)
    assert list(elsewhere.iterdir()) == [], "bioplan wrote through the swapped link, outside -o"
    assert "workflow" in err.value.message


def test_a_folder_swapped_for_a_link_inside_output_is_still_written(knowledge, tmp_path, monkeypatch):
    inputs = _reads(tmp_path / "data")
    out = tmp_path / "wf"
    compile_request("trim the reads with fastp", inputs, str(out), knowledge=knowledge, validate=False)
    (out / "workflow_v2").mkdir()
    _swap_after_last_check(monkeypatch, out / "workflow", "workflow_v2")
    compile_request("trim the reads with fastp", inputs, str(out), knowledge=knowledge, validate=False, force=True)
    assert (out / "workflow_v2" / "Snakefile").is_file()

"""A tool's settings that follow a study fact nobody stated are said, not silently assumed.

Long reads whose names show no platform are aligned by minimap2 with its default preset, map-ont: the
plan says it assumed Oxford Nanopore reads and which words ("PacBio HiFi", "PacBio CLR") change it. Reads
whose names show the platform, or a request that says it, get no such note. Plan level only.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bioplan.compile import plan_request

ALIGN = "align the reads to the genome"


def _long_reads(path: Path, genome: str, names: str, n: int = 5) -> str:
    rng = random.Random(3)
    with open(path, "w") as fh:
        for i in range(n):
            length = rng.randint(3000, 6000)
            start = rng.randint(0, len(genome) - length)
            seq = genome[start:start + length]
            fh.write(f"@{names.format(i=i)}\n{seq}\n+\n{'5' * len(seq)}\n")
    return str(path)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("assumed")
    rng = random.Random(5)
    genome = "".join(rng.choice("ACGT") for _ in range(20_000))
    (d / "genome.fa").write_text(">chr1\n" + "\n".join(genome[i:i + 60] for i in range(0, len(genome), 60)) + "\n")
    return {"genome": str(d / "genome.fa"),
            "plain": _long_reads(d / "plain.fastq", genome, "r{i}"),
            "hifi": _long_reads(d / "hifi.fastq", genome, "m64011_190830_220126/{i}/ccs")}


def _notes(result) -> list[str]:
    return [w for w in result.spec.warnings if "minimap2 assumes" in w]


def test_unnamed_platform_is_said_with_the_words_that_change_it(knowledge, inputs):
    result = plan_request(ALIGN, [inputs["plain"], inputs["genome"]], knowledge)
    assert [s.tool for s in result.plans[0].steps] == ["minimap2_align"]
    notes = _notes(result)
    assert len(notes) == 1, result.spec.warnings
    assert "Oxford Nanopore reads (preset map-ont)" in notes[0], notes
    assert '"PacBio HiFi"' in notes[0] and '"PacBio CLR"' in notes[0], notes


@pytest.mark.parametrize(("query", "reads"), [(ALIGN, "hifi"), ("align the PacBio HiFi reads to the genome", "plain"),
                                              ("align the Nanopore reads to the genome", "plain")])
def test_a_stated_or_shown_platform_is_not_noted(knowledge, inputs, query, reads):
    result = plan_request(query, [inputs[reads], inputs["genome"]], knowledge)
    assert _notes(result) == [], result.spec.warnings

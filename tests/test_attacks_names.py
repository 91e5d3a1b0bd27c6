"""Attacks round 4: sample and patient ids that are each safe on their own, but that change what the
workflow does together or with the file system it runs on.

- two ids a reader or a file system cannot tell apart (`café` composed and decomposed, `S1` and `s1`,
  fullwidth `Ｓ１`): both rows of `samples.tsv` look the same, and on a normalising or case-insensitive
  file system (macOS, Windows) both samples write one folder, each overwriting the other's results;
- an id holding the separator of a list the workflow keeps it in (CNVkit's `normal_samples`, comma
  separated, spaces stripped): a normal named `n1,t1` made the tumour `t1` part of the normal reference;
- an id so long that a file named after it exceeds the file system's 255-byte name limit: the compile
  succeeded and the run failed in the middle with "File name too long".

Each is refused at compile time naming the sample, the file it came from and what to rename. The
properties check the pure functions over open families of names (50 examples in the fast tier, 2,000 under CI=true,
BIOPLAN_PROPERTY_EXAMPLES overrides, as tests/test_escaping_properties.py); the compiles are few and
share one set of files per test.
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bioplan.codegen.ir import synthesize
from bioplan.codegen.names import (
    NAME_MAX,
    TOOL_NAME_ROOM,
    indistinguishable_names,
    overlong_names,
)
from bioplan.compile import plan_request
from helpers import fastq_pairs, planning_refusal

EXAMPLES = int(os.environ.get("BIOPLAN_PROPERTY_EXAMPLES", 2000 if os.environ.get("CI") == "true" else 50))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
TRIM = "trim the reads with fastp"


# ----------------------------------------------------------------------------- ids that look the same
@pytest.mark.parametrize(("first", "second"), [
    ("caf\u00e9", "cafe\u0301"),    # composed and decomposed: one name on macOS, the same glyphs everywhere
    ("S1", "s1"),                   # one folder on a case-insensitive file system
    ("S1", "\uff33\uff11"),         # fullwidth letters: the same text to a reader (NFKC)
    ("S1", "S1 "),                  # a trailing space: invisible, stripped by R's sheet reader
    ("S1", "S1."),                  # a trailing dot: Windows drops it from file names
], ids=["nfc_nfd", "case", "fullwidth", "trailing_space", "trailing_dot"])
def test_sample_ids_a_reader_or_file_system_cannot_tell_apart_are_refused(knowledge, tmp_path, first, second):
    err = planning_refusal(knowledge, TRIM, fastq_pairs(tmp_path / "in", [first, second]), tmp_path / "out")
    assert err.code == "ambiguous_input"
    assert repr(first) in err.message and repr(second) in err.message
    assert any("rename" in h for h in err.hints)


def test_distinct_sample_ids_still_compile(knowledge, tmp_path):
    result = plan_request(TRIM, fastq_pairs(tmp_path / "in", ["S1", "S2", "caf\u00e9"]), knowledge)
    workflow = synthesize(knowledge, result.spec, result.plans[0], workdir=str(tmp_path / "out"))
    assert [r["sample"] for r in workflow.samples] == ["S1", "S2", "caf\u00e9"]


_folds = st.sampled_from([str.upper, str.lower, str.swapcase, lambda s: unicodedata.normalize("NFD", s),
                          lambda s: unicodedata.normalize("NFKD", s), lambda s: unicodedata.normalize("NFC", s)])
_names = st.text(st.characters(exclude_categories=("Cs", "Cc", "Cf", "Zl", "Zp")), min_size=1, max_size=12)


@SETTINGS
@given(name=_names, fold=_folds)
def test_property_a_name_and_its_case_or_normalisation_variant_are_one_sample(name, fold):
    """Canonically equivalent names (NFC/NFD), compatibility variants (NFKC) and names equal without
    case (casefold) are one sample; a name is never a clash with itself or an unrelated one; what is
    refused is one name to a caseless reader that ignores surrounding spaces and trailing dots."""
    other = fold(name)
    clashes = indistinguishable_names([name, other, "unrelated_0"])
    same = other != name and any(f(name) == f(other) for f in (
        lambda s: unicodedata.normalize("NFC", s), lambda s: unicodedata.normalize("NFKC", s), str.casefold))
    if same:
        assert clashes == [sorted({name, other})], (name, other, clashes)
    if other == name:
        assert clashes == []
    for group in clashes:
        assert len({unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", n).casefold()).strip().rstrip(". ")
                    for n in group}) == 1


@SETTINGS
@given(names=st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_.", min_size=1, max_size=8),
                      unique_by=lambda name: name.rstrip("."), max_size=12))
def test_property_lowercase_ascii_names_never_clash(names):
    # trailing dots are not part of a name (Windows drops them): 'a' and 'a.' clash, and are kept apart above
    assert indistinguishable_names(names) == []


def test_names_differing_only_in_trailing_dots_clash():
    assert indistinguishable_names(["s1", "s1.", "s2"]) == [["s1", "s1."]]


# ----------------------------------------------------------------------------- list separators
COHORT = "align the reads with BWA-MEM and call copy number with CNVkit"


def _cohort(base: Path, rows: list[tuple[str, str, str]]) -> list[str]:
    base.mkdir(parents=True, exist_ok=True)
    (base / "samples.tsv").write_text("patient\tsample\tstatus\n" + "".join("\t".join(r) + "\n" for r in rows))
    (base / "genome.fa").write_text(">chr1\n" + "ACGT" * 50 + "\n")
    return [*fastq_pairs(base, [r[1] for r in rows]), str(base / "samples.tsv"), str(base / "genome.fa")]


@pytest.mark.parametrize("normal", ["p1_n,p2_t", "p1 n"], ids=["comma", "space"])
def test_a_normal_named_with_the_list_separator_is_refused(knowledge, tmp_path, normal):
    """normal_samples is a comma-separated list with spaces stripped (templates/*/cnvkit_batch): a normal
    'p1_n,p2_t' put the tumour p2_t into the normal reference, a normal 'p1 n' matched no BAM and was
    called as a tumour."""
    rows = [("p1", "p1_t", "1"), ("p1", normal, "0"), ("p2", "p2_t", "1"), ("p2", "p2_n", "0")]
    err = planning_refusal(knowledge, COHORT, _cohort(tmp_path / "in", rows), tmp_path / "out")
    assert err.code == "unreadable_input"
    assert repr(normal) in err.message and "normal_samples" in err.message
    assert any("rename" in h for h in err.hints)


# ----------------------------------------------------------------------------- file system limits
def test_a_sample_id_too_long_for_a_file_name_is_refused_at_compile_time(knowledge, tmp_path):
    # the FASTQ's own name fits in 255 bytes; STAR's <sample>.Log.final.out beside it does not
    sample = "S" * 240
    err = planning_refusal(knowledge, "align the reads with STAR", fastq_pairs(tmp_path / "in", [sample]),
                           tmp_path / "out")
    assert err.code == "unreadable_input"
    assert "255" in err.message and sample[:20] in err.message and ".Log.final.out" in err.message
    assert any("rename" in h for h in err.hints)


def test_a_long_sample_id_that_fits_compiles(knowledge, tmp_path):
    sample = "S" * 120
    result = plan_request("align the reads with STAR", fastq_pairs(tmp_path / "in", [sample]), knowledge)
    workflow = synthesize(knowledge, result.spec, result.plans[0], workdir=str(tmp_path / "out"))
    assert workflow.samples[0]["sample"] == sample


_PATTERNS = ["results/read_alignment/{sample}/{sample}.Log.final.out", "logs/read_alignment/{sample}.log",
             "results/checks/check_paired_end_reads/{sample}.ok", "results/somatic/{patient}/{patient}.vcf.gz"]


@SETTINGS
@given(name=st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=300))
def test_property_every_file_named_after_an_accepted_id_fits_with_room_for_the_tools(name):
    too_long = overlong_names(_PATTERNS, {"sample": [name], "patient": [name]})
    longest = max(len(part.replace("{sample}", name).replace("{patient}", name).encode("utf-8"))
                  for pattern in _PATTERNS for part in pattern.split("/"))
    if too_long:
        assert longest > NAME_MAX - TOOL_NAME_ROOM
        assert {(key, value) for key, value, _pattern, _size in too_long} <= {("sample", name), ("patient", name)}
    else:
        assert longest <= NAME_MAX - TOOL_NAME_ROOM


# ----------------------------------------------------------------------------- edited sample sheets
@pytest.mark.parametrize("value", [".", "..", "-x", "+x", "a b", "a/b"])
def test_the_nextflow_sheet_schema_refuses_ids_compile_refuses(knowledge, tmp_path, value):
    """assets/schema_input.json holds a sample sheet edited after compiling to the ids compile accepts:
    '.' and '..' passed it, and a module making a folder of the sample id (kallisto's `${prefix}`) then
    wrote into the task's parent folder or declared the task folder itself as its output."""
    import json

    import jsonschema

    from bioplan.codegen.nextflow import NextflowGenerator

    result = plan_request(TRIM, fastq_pairs(tmp_path / "in", ["S1"]), knowledge)
    workflow = synthesize(knowledge, result.spec, result.plans[0], workdir=str(tmp_path / "out"))
    schema = json.loads(NextflowGenerator(knowledge).input_schema(workflow))
    pattern = schema["items"]["properties"]["sample"]["pattern"]
    check = jsonschema.Draft202012Validator({"type": "string", "pattern": pattern})
    assert check.is_valid("S1") and check.is_valid(".hidden") and check.is_valid("s..1")
    assert not check.is_valid(value)

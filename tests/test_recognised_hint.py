"""The "bioplan recognises: ..." hint of an unreadable input names each declared format's extensions once:
formats.yaml may list spellings that differ only in case (bigWig: .bw, .bigWig, .bigwig), which the hint
once repeated as ".bigwig, .bigwig"."""

from __future__ import annotations

import re

import pytest

from bioplan.compile import plan_request
from bioplan.errors import UnreadableInputError


def test_every_format_in_the_directory_hint_names_each_extension_once(knowledge, tmp_path):
    folder = tmp_path / "unknown_dir"
    folder.mkdir()
    (folder / "notes.txt").write_text("nothing bioplan reads\n")
    with pytest.raises(UnreadableInputError) as err:
        plan_request("make a TSS profile of the signal", [str(folder)], knowledge)
    hint = next(h for h in err.value.hints if h.startswith("bioplan recognises"))
    listed = re.findall(r"\(((?:\.[^,()\s]+)(?:, \.[^,()\s]+)*)\)", hint)
    assert any(".bw" in group for group in listed), hint
    for group in listed:
        extensions = [e.lower() for e in group.split(", ")]
        assert len(extensions) == len(set(extensions)), group
    declared = [f for f in knowledge.formats.values() if f.sniff is not None
                and len({e.lower() for e in f.extensions}) < len(f.extensions)]
    assert declared, "no format lists case variants: the test no longer covers the family"

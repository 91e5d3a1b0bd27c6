"""The FASTQ block scan checks its header and separator columns and reads each record's mate from its
read id in one pass over each column (issue 10): the same answers as the test per line."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from bioplan.request.sniffers import sequences
from conftest import examples

# the characters the forms turn on (whitespace of several kinds, '/', mate digits, CASAVA's fields)
_HEADER_CHARS = st.sampled_from(["@", "/", "1", "2", "3", ":", "N", "Y", "A", "r", ".", "#", " ", "\t", "\x0b",
                                 "\x0c", "\x1c", "\xa0", "\u3000", "\r", "+"])
_HEADERS = st.lists(st.text(_HEADER_CHARS, max_size=14), min_size=1, max_size=6)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.one_of(
    _HEADERS.map(lambda parts: "@" + "".join(parts)),  # mostly well-formed starts
    st.text(_HEADER_CHARS, max_size=20),
    st.sampled_from(["@r1/1", "@r1/2 extra", "@r1 1:N:0:ACGT", "@r1/2 1:N:0:ACGT", "@r1\t2:Y:18:ATCACG",
                     "@ r1 1:N:0", "@r1  2:N:0", "@r1 3:N:0", "@r1/1x 1:N:0", "@/1", "@r1 1:n:0",
                     "@ERR127302.8493430 HWI-EAS350_0441:1:34:16191:2123#0/1", "@r1\xa01:N:0", "@"])),
    min_size=1, max_size=8))
@example(["@r1/1", "@r2/2"])
@example(["@r1 1:N:0:ACGT", "@r2 2:N:0:ACGT"])
@example(["@r1 1:N:0", "@r2/3"])
def test_mates_of_a_column_are_the_mates_of_each_header(headers):
    headers = [h.replace("\n", "") for h in headers]  # a line holds no newline
    assert sequences._mates_from_read_ids(headers) == [sequences._mate_from_read_id(h) for h in headers]


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.text(_HEADER_CHARS, max_size=6), min_size=1, max_size=8), st.sampled_from(["@", "+"]))
@example(["@a", ""], "@")
@example(["", "@a"], "@")
@example(["+", "+r1"], "+")
def test_every_line_starts_is_the_test_per_line(lines, char):
    assert sequences._every_line_starts("\n".join(lines), char, len(lines)) == all(
        line.startswith(char) for line in lines)


def test_the_common_forms_take_the_one_pass(monkeypatch):
    """The speed: read ids of the two common forms never go header by header."""
    monkeypatch.setattr(sequences, "_mate_from_read_id", lambda header: 1 / 0)
    casava = [f"@SYN:1:HSYNTHXX:1:1101:{i}:2 {1 + i % 2}:N:0:ATCACG" for i in range(1000)]
    slashed = [f"@r{i}/{1 + i % 2}" for i in range(1000)]
    assert sequences._mates_from_read_ids(casava) == sequences._mates_from_read_ids(slashed) == [1, 2] * 500

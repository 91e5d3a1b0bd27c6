"""The FASTQ sniffer reads the first records as one block (`Lines.take`, `_scan_well_formed`) and falls
back to reading record by record: both must give the same scan, or the same error, on any content."""

from __future__ import annotations

import gzip
import itertools

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bioplan.errors import BioplanError
from bioplan.request.sniffers import sequences
from bioplan.request.sniffers.base import Lines, open_source


def _outcome(scan, src):
    try:
        return ("scan", scan(src))
    except BioplanError as exc:
        return ("error", type(exc).__name__, str(exc))


def _write(tmp_path, name: str, data: bytes, gz: bool):
    path = tmp_path / (name + (".fastq.gz" if gz else ".fastq"))
    path.write_bytes(gzip.compress(data, mtime=0) if gz else data)
    return open_source(str(path))


def _record(i: int, seq: str = "ACGTN", qual: str | None = None, header: str | None = None) -> str:
    return f"{header or f'@r{i} 1:N:0:ACGT'}\n{seq}\n+\n{qual if qual is not None else 'I' * len(seq)}\n"


GOOD = "".join(_record(i, "ACGT" * 10, "#" + "I" * 38 + "~") for i in range(1200))
CASES = {
    "1200 records (the first 1000 read)": GOOD,
    "3 records": "".join(_record(i) for i in range(3)),
    "no final newline": "".join(_record(i) for i in range(3)).rstrip("\n"),
    "CRLF": "".join(_record(i) for i in range(3)).replace("\n", "\r\n"),
    "byte order mark": "\ufeff" + "".join(_record(i) for i in range(3)),
    "blank line after the records": "".join(_record(i) for i in range(3)) + "\n\n",
    "blank line inside": _record(1) + "\n" + _record(2),
    "truncated record": _record(1) + "@r2\nACGT\n",
    "header without @": _record(1) + _record(2, header="r2"),
    "separator missing": _record(1) + "@r2\nACGT\nIIII\nIIII\n",
    "not bases": _record(1) + _record(2, seq="AC#T"),
    "quality length": _record(1) + _record(2, seq="ACGT", qual="III"),
    "empty reads": _record(1, seq="", qual="") + _record(2, seq="", qual=""),
    "interleaved mates": "".join(_record(i, header=f"@r{i // 2}/{i % 2 + 1}") for i in range(6)),
    "latin-1 quality": _record(1) + _record(2, seq="ACG", qual="I\xe9I"),
    "non-ASCII quality (UTF-8)": _record(1) + _record(2, seq="ACG", qual="I\u20acI"),
    "multi-line FASTQ": "@r1\nACGT\nACGT\n+\nIIII\nIIII\n",
}


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("name", list(CASES))
def test_block_scan_is_the_record_scan(tmp_path, name, gz):
    text = CASES[name]
    data = text.encode("latin-1" if name.startswith("latin-1") else "utf-8")
    src = _write(tmp_path, "reads", data, gz)
    assert _outcome(sequences._scan_fastq, src) == _outcome(sequences._scan_fastq_records, src)


def test_the_block_path_is_taken_for_well_formed_reads(tmp_path, monkeypatch):
    """The speed: well-formed reads never go record by record."""
    src = _write(tmp_path, "reads", GOOD.encode(), True)
    monkeypatch.setattr(sequences, "_scan_fastq_records", lambda src: pytest.fail("read record by record"))
    scan = sequences._scan_fastq(src)
    assert len(scan.lengths) == 1000 and (scan.qmin, scan.qmax) == (ord("#"), ord("~"))


def test_a_truncated_gzip_is_read_line_by_line(tmp_path):
    """A damaged file: the block reading gives up, and the line-by-line reading says what is wrong."""
    path = tmp_path / "cut.fastq.gz"
    path.write_bytes(gzip.compress(GOOD.encode(), mtime=0)[:-400])
    src = open_source(str(path))
    assert Lines(src, 1 << 24).take(10 ** 6) is None
    assert _outcome(sequences._scan_fastq, src) == _outcome(sequences._scan_fastq_records, src)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=300) | st.text(alphabet="@+ACGT\r\n\ufeffI#~é", max_size=300).map(str.encode),
       n=st.integers(min_value=1, max_value=40), budget=st.integers(min_value=1, max_value=400),
       max_line=st.integers(min_value=1, max_value=400), gz=st.booleans())
@example(data=b"\x1f\x8b", n=1, budget=1, max_line=1, gz=False)
def test_take_is_iterating(tmp_path, data, n, budget, max_line, gz):
    if not data:
        return
    try:
        src = _write(tmp_path, "any", data, gz)
    except BioplanError:
        return  # not openable at all (gzip magic in a plain file, b'\x1f\x8b'): neither reading starts
    try:
        taken = Lines(src, budget, max_line).take(n)
    except BioplanError as exc:
        with pytest.raises(type(exc)) as again:
            list(itertools.islice(iter(Lines(src, budget, max_line)), n))
        assert str(again.value) == str(exc)
        return
    if taken is not None:
        assert taken == list(itertools.islice(iter(Lines(src, budget, max_line)), n))


@pytest.mark.parametrize("name", list(CASES))
def test_take_is_iterating_on_each_case(tmp_path, name):
    data = CASES[name].encode("latin-1" if name.startswith("latin-1") else "utf-8")
    for gz in (False, True):
        src = _write(tmp_path, "reads", data, gz)
        for n in (1, 3, 4, 7, 4000):
            taken = Lines(src, 1 << 24).take(n)
            assert taken is None or taken == list(itertools.islice(iter(Lines(src, 1 << 24)), n))

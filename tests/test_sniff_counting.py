"""The sniffers count in C where they once stepped through values in Python (id namespaces, read-id mates,
nucleotide shares, '+' lines): each count is checked here against the per-value definition it replaced."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from bioplan.request.sniffers import base, sequences
from bioplan.request.sniffers.base import _ENSEMBL_GENE_RE, _ENTREZ_RE, _SYMBOL_RE, _prefix_finder, id_namespace

PREFIXES = {"ENSMUSG": "organism_mouse", "ENSG": "organism_human", "FBgn": "organism_fly", "": "organism_x"}
IDS = st.sampled_from(["ENSG00000141510", "ENSMUSG00000001038", "FBgn0000008", "7157", "TP53", "Actb", "12",
                       "ENSG", "x" * 41, "NA", "", "chr1:100-200", "AT1G01010", "MIR21", "ENSG0000014151.5"])


def _namespace_by_value(values: list[str], prefixes: dict[str, str]) -> tuple[str, float]:
    vals = [v for v in values if v]
    if not vals:
        return "unknown", 0.0
    find = _prefix_finder(prefixes)
    fits = {"ensembl": lambda v: bool(_ENSEMBL_GENE_RE.match(v)) or find(v) is not None,
            "entrez": lambda v: bool(_ENTREZ_RE.match(v)),
            "symbol": lambda v: bool(_SYMBOL_RE.match(v)) and not v.isdigit() and len(v) <= 40}
    shares = []
    for name, fit in fits.items():
        share = sum(map(fit, vals)) / len(vals)
        if share >= 0.9:
            return name, share
        shares.append(share)
    return "unknown", max(shares)


@settings(max_examples=25, deadline=None)
@given(st.lists(IDS, max_size=30))
def test_id_namespace_counts_as_value_by_value(values):
    assert id_namespace(values, PREFIXES) == _namespace_by_value(values, PREFIXES)
    assert id_namespace(values, {}) == _namespace_by_value(values, {})


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from([1, 2, None]), max_size=12))
def test_read_id_mate_counts_as_read_by_read(mates):
    if mates and all(m == 1 for m in mates):
        expected = 1, False
    elif mates and all(m == 2 for m in mates):
        expected = 2, False
    else:
        expected = None, len(mates) >= 2 and all(m == (1 if i % 2 == 0 else 2) for i, m in enumerate(mates))
    assert sequences._read_id_mate(mates) == expected
    assert sequences._read_id_mate(tuple(mates)) == expected


HEADER = st.sampled_from(["@r1/1", "@r1/2", "@r2 1:N:0:ACGT", "@r2 2:Y:0:1", "@r3", "@r4 extra", "@r/3"])


@settings(max_examples=25, deadline=None)
@given(st.lists(HEADER, min_size=1, max_size=8))
def test_mates_of_header_blocks_are_each_headers_mate(headers):
    assert sequences._mates_from_read_ids(headers) == [sequences._mate_from_read_id(h) for h in headers]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["+", "+r1", "+r2", "+x"]), st.sampled_from(["@r1", "@r2"])),
                min_size=1, max_size=6))
def test_plus_lines_naming_another_read_are_caught(records):
    lines = [x for plus, header in records for x in (header, "ACGT", plus, "IIII")]
    named_other = any(len(p) > 1 and p[1:] != h[1:] for p, h in records)
    assert (sequences._scan_well_formed(lines) is None) == named_other


@settings(max_examples=25, deadline=None)
@given(st.binary(min_size=1, max_size=200))
def test_nucleotide_share_counts_letter_by_letter(residues):
    scan = sequences._FastaScan(lengths=[len(residues)], residues=bytearray(residues))
    src = base.Source("x.fa", Path("x.fa"), None, False, b">", b">")
    expected = sum(1 for b in residues if b in sequences._NUCLEOTIDES) / len(residues)
    assert sequences._nucleotide_share(src, scan) == expected

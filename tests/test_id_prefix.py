"""The organism prefix of a gene id (request/sniffers/base.py), found per first character (issue 10):
the same answer as comparing the id with every organism's prefix and keeping the longest that fits
(followed by a digit), on the shipped prefixes and on arbitrary ones."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bioplan.compile import organism_prefixes
from bioplan.request.sniffers.base import _organism_of, _prefix_finder, id_namespace
from conftest import examples


def _longest_fitting(gene_id: str, prefixes) -> str | None:
    best = None
    for prefix in prefixes:
        fits = gene_id.startswith(prefix) and len(gene_id) > len(prefix) and gene_id[len(prefix)].isdigit()
        if fits and (best is None or len(prefix) > len(best)):
            best = prefix
    return best


_CHARS = st.sampled_from("ENSGMUTFbgn01²٣_")  # digits that str.isdigit knows and \d does not, too


@settings(max_examples=examples(300), deadline=None)
@given(st.dictionaries(st.text(_CHARS, max_size=5), st.just("organism_x"), max_size=8),
       st.lists(st.text(_CHARS, max_size=9), max_size=20))
def test_the_prefix_found_is_the_longest_that_fits(prefixes, ids):
    find = _prefix_finder(prefixes)
    assert [find(i) for i in ids] == [_longest_fitting(i, prefixes) for i in ids]


def test_the_shipped_prefixes(knowledge):
    prefixes = organism_prefixes(knowledge)
    ids = ["ENSMUSG00000000001", "ENSG00000141510.17", "ENSDARG00000000002", "FBgn0000008", "ENSMUST0000001",
           "ENSRNOG00000001", "WBGene00000001", "AT1G01010", "TP53", "7157", ""]
    find = _prefix_finder(prefixes)
    assert len(prefixes) >= 5 and [find(i) for i in ids] == [_longest_fitting(i, prefixes) for i in ids]
    assert id_namespace(ids[:3], prefixes) == ("ensembl", 1.0)
    assert _organism_of(ids[:1] * 3, prefixes) == (prefixes["ENSMUSG"], "ENSMUSG", 3)

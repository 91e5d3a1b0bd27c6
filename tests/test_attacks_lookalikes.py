"""Attacks round 4: a request that displays as one thing and was planned as another. A tool name
written with a Cyrillic or Greek lookalike letter (`SТAR` with a Cyrillic Te) or split by an invisible
format character (`ST<U+200B>AR`) looks like STAR in the terminal and in the README's quote of the
request, but the plan silently used BWA-MEM (only the fragment 'ar' was reported as not understood).
The request is now read as it displays (request/text.py `plain_request`), and emitted files quote it in
that form. Properties: 50 examples in the fast tier, 2,000 under CI=true (BIOPLAN_PROPERTY_EXAMPLES overrides).
"""

from __future__ import annotations

import os
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bioplan.codegen import escape
from bioplan.request.parse import parse_request
from bioplan.request.text import plain_request

EXAMPLES = int(os.environ.get("BIOPLAN_PROPERTY_EXAMPLES", 2000 if os.environ.get("CI") == "true" else 50))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])

STAR_LOOKALIKES = ["S\u0422AR", "\u0405\u0422\u0410R", "ST\u200bAR", "S\u00adTAR", "ST\u2060AR", "\ufeffSTAR",
                   "S\u03a4AR"]


@pytest.mark.parametrize("written", STAR_LOOKALIKES, ids=[ascii(w) for w in STAR_LOOKALIKES])
def test_a_tool_name_with_lookalike_or_invisible_letters_is_the_tool_it_shows(knowledge, written):
    request = parse_request(f"align the reads with {written}", knowledge)
    assert "star" in request.preferred_tools, (written, request.preferred_tools, request.unrecognized)
    assert escape.request_text(f"align the reads with {written}") == "align the reads with STAR"


@pytest.mark.parametrize("text", ["TNF\u03b1 and NF-\u03baB signalling, A\u03b2 plaques",
                                  "выравнивание ридов и подсчёт генов", "用STAR比对后计数", "ΑΒΓ"])
def test_words_of_one_script_and_greek_symbols_keep_their_letters(text):
    assert plain_request(text) == unicodedata.normalize("NFC", text)


_latin = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=1, max_size=10)
_invisible = st.sampled_from(["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u200e", "\u200f",
                              "\u202e", "\u2066"])
_to_lookalike = {"A": "\u0410", "B": "\u0412", "E": "\u0415", "K": "\u041a", "M": "\u041c", "H": "\u041d",
                 "O": "\u039f", "P": "\u0420", "C": "\u0421", "T": "\u03a4", "X": "\u0425", "a": "\u0430",
                 "e": "\u0435", "o": "\u03bf", "p": "\u0440", "c": "\u0441", "x": "\u0445", "y": "\u0443"}


@SETTINGS
@given(word=_latin, at=st.integers(min_value=0, max_value=10), mark=_invisible)
def test_property_an_invisible_character_inside_a_word_is_dropped(word, at, mark):
    assert plain_request(word[:at] + mark + word[at:]) == word


@SETTINGS
@given(word=_latin, keep=st.integers(min_value=0, max_value=9))
def test_property_lookalikes_in_a_latin_word_read_as_latin(word, keep):
    """Every lookalike letter but one Latin letter kept: the word reads back as the Latin word."""
    if not any(c in _to_lookalike for c in word):
        return
    kept = keep % len(word)
    disguised = "".join(c if i == kept else _to_lookalike.get(c, c) for i, c in enumerate(word))
    if all(c in _to_lookalike.values() for c in disguised):
        return  # no Latin letter left: a word of another script, kept as written
    assert plain_request(disguised) == word

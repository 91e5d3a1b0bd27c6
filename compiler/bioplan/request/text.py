"""The request text as bioplan uses it: normalised once, on entry.

A request is one line of prose. Whatever separates lines (every separator that
`str.splitlines()` knows: \\n \\r \\v \\f \\x1c-\\x1e \\x85 U+2028 U+2029) and every
other control character becomes a space, bidirectional overrides (which make text
display in another order than it reads) are dropped, and the text is NFC. The plan
report keeps the original; matching and emitted files use this form. Escaping for
each output context is still done by `bioplan.codegen.escape`: this only makes
the text readable, it is not what makes it safe.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from bioplan.errors import UnreadableInputError

# Explicit embeddings, overrides and isolates (the "Trojan Source" characters).
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# the invisible direction marks (LRM, RLM, ALM): no embedding, but a terminal's bidi layout moves the text
# around them (an RLM after a file name's digits shows them on the other side)
_BIDI_MARKS = frozenset("\u200e\u200f\u061c")


@cache
def _surrogate() -> re.Pattern[str]:
    """A lone surrogate; compiled only for text with a character from U+D800 up (its range costs ~0.4 ms)."""
    return re.compile("[\ud800-\udfff]")


def require_utf8(text: str, what: str) -> None:
    """Refuse text holding lone surrogates: bytes that were not UTF-8.

    Python decodes command-line arguments and file names with `surrogateescape`, so a
    byte such as 0xff arrives as U+DCFF; such text cannot be written to any file.
    """
    bad = _surrogate().search(text) if max(text, default="") >= "\ud800" else None
    if bad is None:
        return
    char = bad.group(0)
    raw = f"0x{ord(char) - 0xDC00:02x}" if 0xDC80 <= ord(char) <= 0xDCFF else f"U+{ord(char):04X}"
    raise UnreadableInputError(
        f"{what} is not valid UTF-8 text: byte {raw} at character {bad.start() + 1}",
        ["to resolve, write it in UTF-8 (a terminal with a UTF-8 locale, e.g. LANG=C.UTF-8, does so), "
         "or remove the character"],
        {"what": what, "position": bad.start()})


# The longest request bioplan reads, in characters: ten times the longest of the development and
# from-others sets (357). Parsing grows faster than the text (every span against every phrase, typo
# windows), so a request of megabytes would run for hours; refusing it up front bounds the time.
MAX_REQUEST_CHARS = 4000


def require_request_length(text: str) -> None:
    """Refuse a request longer than MAX_REQUEST_CHARS (an enormous one would not end in useful time)."""
    if len(text) <= MAX_REQUEST_CHARS:
        return
    raise UnreadableInputError(
        f"the request is {len(text):,} characters long; bioplan reads requests of up to {MAX_REQUEST_CHARS:,} "
        "characters (a paragraph saying the analysis)",
        ["to resolve, say the analysis in a few sentences; the data belong in input files (-i), not in the request"],
        {"what": "the request", "length": len(text), "limit": MAX_REQUEST_CHARS})


# The most terms (tools, steps, data, settings the knowledge names) a request may name: ten times the most a request
# of the development and from-others sets names (23), as MAX_REQUEST_CHARS is ten times the longest. The passes after
# the parse relate the terms pairwise (a tool to the steps of its clause, to the tools listed after it), so within
# the length limit 2,000 terms ("比对" x 2,000, "STAR-" x 800) planned for 20-60 s; 240 plan within seconds.
MAX_REQUEST_TERMS = 240


def require_term_count(terms: int) -> None:
    """Refuse a request naming more than MAX_REQUEST_TERMS terms (found by the exact match of its words)."""
    if terms <= MAX_REQUEST_TERMS:
        return
    raise UnreadableInputError(
        f"the request names {terms:,} tools, steps and data; bioplan reads requests naming up to "
        f"{MAX_REQUEST_TERMS:,} (a paragraph saying the analysis)",
        ["to resolve, say the analysis in a few sentences, each step and tool once"],
        {"what": "the request", "terms": terms, "limit": MAX_REQUEST_TERMS})


def _is_separator(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Zl", "Zp")


def clean_request_text(text: str) -> str:
    """NFC text on one line: line separators and control characters -> one space, bidi overrides dropped."""
    require_utf8(text, "the request")
    text = unicodedata.normalize("NFC", text)
    if not text.isprintable():  # separators and bidi controls are non-printable (Cc, Zl, Zp, Cf)
        text = "".join(" " if _is_separator(c) else c for c in text if c not in _BIDI_CONTROLS)
    return re.sub(" {2,}", " ", text).strip()


# Cyrillic and Greek letters drawn like Latin ones (Unicode's confusables, the letters a font cannot tell
# apart): in a word that also holds Latin letters they are read as those (`SТAR` with a Cyrillic Te is STAR).
# Words wholly in another script keep their letters; Greek letters biologists mix in (TNFα, NF-κB, Aβ) are
# not here.
_LOOKALIKES = str.maketrans(
    "АВЕКМНОРСТХУаеорсухіјѕЅІЈԁԛԝһӏ" "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧο",
    "ABEKMHOPCTXYaeopcyxijsSIJdqwhl" "ABEZHIKMNOPTYXo")
_LOOKALIKE_CHARS = frozenset("АВЕКМНОРСТХУаеорсухіјѕЅІЈԁԛԝһӏΑΒΕΖΗΙΚΜΝΟΡΤΥΧο")
_WORD = re.compile(r"[^\W_]+")


def _latin_lookalikes(match: re.Match[str]) -> str:
    word = match.group(0)
    if any(c in _LOOKALIKE_CHARS for c in word) and any("a" <= c.lower() <= "z" for c in word):
        return word.translate(_LOOKALIKES)
    return word


def as_latin_lookalikes(text: str) -> str:
    """`text` with every Cyrillic and Greek letter drawn like a Latin one as that letter, whatever the word
    (what a reader sees: sample ids `ctrl_1` and `сtrl_1` are one name, codegen/names.py)."""
    return text.translate(_LOOKALIKES)


# Characters that draw nothing but are no format characters (category Mn or Lo, so `str.isprintable()` keeps
# them): variation selectors, the combining grapheme joiner, the Hangul fillers. `sal\ufe00mon` and
# `sal\u3164mon` display as salmon; read as two words they made an unrecognised 'sal' and 'mon'.
_INVISIBLE = frozenset([*map(chr, range(0xFE00, 0xFE10)), *map(chr, range(0xE0100, 0xE01F0)),
                        "\u034f", "\u115f", "\u1160", "\u3164", "\uffa0"])


def without_invisible(text: str) -> str:
    """`text` without the format characters (Cf) and the other characters that draw nothing (`_INVISIBLE`)."""
    return "".join(c for c in text if c not in _INVISIBLE and unicodedata.category(c) != "Cf")


def plain_request(text: str) -> str:
    """The request as bioplan reads and shows it: `clean_request_text`, without the invisible format
    characters (zero-width spaces and joiners, soft hyphens, BOM, directional marks: `ST\u200bAR` displays
    as STAR but was two words) and the others that draw nothing (variation selectors, Hangul fillers), and
    with the lookalike letters of a word mixing scripts read as the Latin
    letters they show (`SТAR` with a Cyrillic Te). What a reader sees is then what bioplan planned: no
    homoglyph or invisible character makes a named tool silently vanish from the plan."""
    text = without_invisible(clean_request_text(text))
    text = _WORD.sub(_latin_lookalikes, text) if max(text, default="") > "\u036f" else text
    return re.sub(" {2,}", " ", text).strip()


def terminal_safe(text: str) -> str:
    """Text to print on a terminal: control characters (C0 but newline and tab, DEL, C1 such as
    CSI U+009B), bidi overrides and direction marks become visible `\\uXXXX` escapes, so a file name or request
    holding ESC sequences cannot move the cursor, recolour or rewrite what the user reads; so do the line and
    paragraph separators U+2028/U+2029, where editors and log viewers break lines. A newline is kept: user text
    is made one line (`errors.one_line`) where it is put into one of bioplan's lines.
    The escape is also valid inside a JSON string."""
    return "".join(f"\\u{ord(c):04x}" if (unicodedata.category(c) == "Cc" and c not in "\n\t")
                   or c in _BIDI_CONTROLS or c in _BIDI_MARKS or c in "\u2028\u2029" else c for c in text)

"""The normal form of words: how an alias of the knowledge and the words of a request compare.

Both sides go through `normalize`, so the knowledge checks (an alias that collides with another)
and the request parser (an alias found in the request) agree on what "the same word" is.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache, lru_cache
from typing import Any

_SEPARATORS = re.compile(r"[\-_/]")
_SPACES = re.compile(r"\s+")
_CJK_PUNCTUATION = str.maketrans({"，": ",", "。": ".", "：": ":", "；": ";"})


@cache
def cjk_pattern() -> re.Pattern[str]:
    """One CJK ideograph (U+3400-U+9FFF), compiled on first use: its range costs ~2.5 ms to compile (sre maps
    the whole BMP)."""
    return re.compile(r"[\u3400-\u9fff]")


def is_cjk(text: str) -> bool:
    """Holds a CJK ideograph. ASCII text (English requests, most aliases) is answered without the pattern:
    a plan asks this of every alias of the lexicon, twice as fast so."""
    return not text.isascii() and bool(cjk_pattern().search(text))


@lru_cache(maxsize=1)
def _t2s() -> Any:
    try:
        import opencc

        return opencc.OpenCC("t2s")
    except Exception:  # opencc is a pinned dependency; a broken install only loses traditional Chinese
        return None


def normalize(text: str) -> str:
    """Lower case, NFKC (full width -> half width), traditional -> simplified Chinese,
    hyphens/underscores/slashes -> spaces, collapsed whitespace. Match spans
    in the report point into this normalised text.
    """
    text = unicodedata.normalize("NFKC", text)
    if is_cjk(text):
        conv = _t2s()
        if conv is not None:
            converted = conv.convert(text)
            if len(converted) == len(text):
                text = converted
    text = _SEPARATORS.sub(" ", text.lower()).translate(_CJK_PUNCTUATION)
    return _SPACES.sub(" ", text).strip()


def _latin_letter(ch: str) -> bool:
    return "a" <= ch <= "z"


def has_word(text: str, word: str) -> bool:
    """True if `word` stands in `text` with no Latin letter right before or after it: the regular
    expression `(?<![a-z])WORD(?![a-z])`, without compiling one pattern per word in every process."""
    end = len(word)
    start = text.find(word)
    while start >= 0:
        if (start == 0 or not _latin_letter(text[start - 1])) and \
                (start + end >= len(text) or not _latin_letter(text[start + end])):
            return True
        start = text.find(word, start + 1)
    return False


def singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss") and not word.endswith("us"):
        return word[:-1]
    return word

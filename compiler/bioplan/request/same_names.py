"""Names a reader or a file system cannot tell apart: sample and patient ids (codegen/names.py) and the levels of
a sample sheet's condition column (request/sniffers/tables.py), one relation for both (SECURITY.md).

Two names are one when they fold to one (`fold_name`: case, composed or decomposed accents, compatibility
forms, the spaces around them) or look the same (`looks_name`: Cyrillic and Greek letters drawn like Latin ones,
characters that draw nothing)."""

from __future__ import annotations

import unicodedata

from bioplan.request.text import as_latin_lookalikes, without_invisible


def fold_name(name: str) -> str:
    """What a reader and a file system may take for one name: Unicode's caseless identifier match (NFKC,
    case folded): accents composed or not (one name on macOS), case (one folder on a case-insensitive
    file system), compatibility forms (fullwidth letters, ligatures); without the spaces around it and
    trailing dots, which a reader does not see, R's sample-sheet reader strips (strip.white) and Windows
    drops from file names."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold()).strip().rstrip(". ")


def looks_name(name: str) -> str:
    """What a name shows: its NFKC form with the Cyrillic and Greek letters drawn like Latin ones as those
    (`сtrl_1` with a Cyrillic Es is `ctrl_1` to every reader of samples.tsv, though two folders: the request's
    own lookalike table), without characters that draw nothing (`S1` and `S1` with a variation selector) and
    the spaces around it and trailing dots. Case is kept: `Μ` (Greek capital Mu)
    looks like `M`, its lower case `μ` like no Latin letter, so this is a relation of its own beside `fold_name`."""
    return as_latin_lookalikes(without_invisible(unicodedata.normalize("NFKC", name))).strip().rstrip(". ")


def indistinguishable_names(names: list[str]) -> list[list[str]]:
    """Groups (each sorted) of distinct names that fold to one (`fold_name`), in the order of their first name,
    then groups that look the same (`looks_name`) unless a group before holds them."""
    found: list[list[str]] = []
    for key in (fold_name, looks_name):
        groups: dict[str, list[str]] = {}
        for name in dict.fromkeys(names):
            groups.setdefault(key(name), []).append(name)
        found += [sorted(g) for g in groups.values()
                  if len(g) > 1 and not any(set(g) <= set(seen) for seen in found)]
    return found


def lookalikes_in(name: str) -> str:
    """' (U+0441 CYRILLIC SMALL LETTER ES)': the lookalike letters of `name` named, which a terminal shows
    as the Latin ones, and its characters that draw nothing (a zero-width space), which it does not show
    (nothing when it holds none)."""
    found = dict.fromkeys(c for c in name if as_latin_lookalikes(c) != c or not without_invisible(c))
    named = ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, '?')}" for c in found)
    return f" ({named})" if found else ""

"""The compared levels a request names ("KO vs WT", "treated versus control", "KO against WT", "compare mutant
to wild type"), honesty round 7: set as the differential tools' reference and tested levels (a lexicon setting
with `levels`), checked against the sample sheet's condition column when one is given, said when it has not
those levels. The reference is the control-like level the words name, else the second named ("A vs B": log2
fold changes are A over B)."""

from __future__ import annotations

import re

from bioplan.knowledge.models import ContrastWords, RequestSetting
from bioplan.models import AbsentTerm, SniffedFile
from bioplan.request.lexicon import lexicon_pattern
from bioplan.request.passes.draft import SpecDraft
from bioplan.request.passes.readings import quoted
from bioplan.request.same_names import lookalikes_in, looks_name

# words of a level: letters and digits only ("wild_type", "Wild-Type" and "wild type" are one level)
_KEY = re.compile(r"[^a-z0-9]")


def _key(text: str) -> str:
    return _KEY.sub("", text.casefold())


# a level's words run from the words the pattern caught to the clause's edge, at most _SPAN words: "treated
# with drug vs untreated control" names the levels "treated with drug" and "untreated control"
_SPAN = 4
_EDGE = re.compile(r"[,.;:()\[\]]|\b(vs|versus|against|compared|relative|and|or|between|of|for|in|on|from|to)\b")


def _side(norm: str, start: int, end: int, before: bool) -> tuple[list[str], int]:
    """The words of one side of a contrast (those the pattern caught, `norm[start:end]`, with the clause's words
    before them for the first level, after them for the second) and the index of the caught word among them."""
    caught = norm[start:end].split()
    if before:
        head = norm[:start]
        edge = max((m.end() for m in _EDGE.finditer(head)), default=0)
        extra = head[edge:].split()[-(_SPAN - len(caught)):] if len(caught) < _SPAN else []
        return extra + caught, len(extra)
    tail = norm[end:]
    edge = next((m.start() for m in _EDGE.finditer(tail)), len(tail))
    extra = tail[:edge].split()[:max(_SPAN - len(caught), 0)]
    return caught + extra, 0


def _phrases(words: list[str], at: int) -> list[str]:
    """Every run of the side's words, those holding the caught word first, longer first."""
    runs = [(i, j) for i in range(len(words)) for j in range(i + 1, len(words) + 1)]
    runs.sort(key=lambda r: (not r[0] <= at < r[1], r[0] - r[1]))
    return [" ".join(words[i:j]) for i, j in runs]


def _named_words(draft: SpecDraft, term: AbsentTerm, entry: RequestSetting
                 ) -> tuple[list[str], list[str]] | None:
    """The two levels' candidate words of the contrast at `term` (groups a and b of the pattern that matched it,
    with their clause's neighbours: `_side`), the caught words' runs first; None when a level's words are a term
    of the knowledge ("expression against the reference": no levels). A term holding both levels is the
    contrast itself read as its step ("KO vs WT" is differential expression)."""
    norm = draft.request.normalized
    for pattern in entry.patterns:
        compiled = lexicon_pattern(pattern, norm, draft.knowledge)
        if compiled is None:
            continue
        for m in compiled.finditer(norm):
            if m.span("m") != (term.start, term.end):
                continue
            terms = [(t.start, t.end) for t in draft.request.matches
                     if not t.negated and not (t.start <= m.start("a") and m.end("b") <= t.end)]
            if any(s < m.end(g) and m.start(g) < e for g in ("a", "b") for s, e in terms):
                return None
            a_words, a_at = _side(norm, m.start("a"), m.end("a"), before=True)
            b_words, b_at = _side(norm, m.start("b"), m.end("b"), before=False)
            return _phrases(a_words, a_at), _phrases(b_words, b_at)
    return None


def _level_word(phrases: list[str], levels: ContrastWords) -> str:
    """Without a sample sheet, the words of a side that name a level the lexicon knows ("treated" in "treated with
    drug"), else the words the pattern caught."""
    known = {_canonical(w, levels) for w in levels.reference} | {_key(w) for g in levels.aliases for w in g}
    return next((p for p in phrases if _canonical(p, levels) in known or _key(p) in known), phrases[0])


def _canonical(words: str, levels: ContrastWords) -> str:
    """One key per level however the request spells it (an alias group's first word)."""
    key = _key(words)
    for group in levels.aliases:
        if key in {_key(w) for w in group}:
            return _key(group[0])
    return key


def _sheet_level(phrases: list[str], sheet_levels: list[str], levels: ContrastWords) -> str | None:
    """The sample sheet's level a side's words name (in the sheet's spelling), a plural's singular too: the first
    of its runs (`_phrases`) that names exactly one level."""
    for words in phrases:
        for said in dict.fromkeys((words, words[:-1] if words.endswith("s") else words)):
            # as the sheet shows it: 'сontrol' with a Cyrillic Es is the control the request names (round 8)
            hits = [lv for lv in sheet_levels if _canonical(looks_name(lv), levels) == _canonical(said, levels)]
            if len(hits) == 1:
                return hits[0]
    return None


def _sheet(files: tuple[SniffedFile, ...]) -> SniffedFile | None:
    return next((f for f in files if isinstance(f.fact("replicates"), dict) and f.fact("replicates")), None)


def read_contrast(draft: SpecDraft, term: AbsentTerm, entry: RequestSetting
                  ) -> tuple[dict[str, dict[str, float | int | str]] | None, list[str]]:
    """(params by tool, notes) of the contrast at `term`: the reference and tested levels on the tools of the
    entry's `sets`, and a note saying which is which; (None, [a note]) when the sample sheet lacks a level;
    (None, []) when the words name no levels."""
    assert entry.levels is not None
    words = _named_words(draft, term, entry)
    if entry.levels.context and not re.search(entry.levels.context, draft.request.normalized):
        words = None  # "tumour vs normal" beside copy-number calling: no differential step's contrast
    if words is None or _level_word(words[0], entry.levels) == _level_word(words[1], entry.levels) and _sheet(
            draft.files) is None:
        return None, []
    a, b = (_level_word(side, entry.levels) for side in words)
    reference_like = {_canonical(w, entry.levels) for w in entry.levels.reference}
    a_ref, b_ref = (any(_canonical(p, entry.levels) in reference_like for p in side) for side in words)
    (reference, ref_words), (test, test_words) = ((a, words[0]), (b, words[1])) if a_ref and not b_ref \
        else ((b, words[1]), (a, words[0]))
    why = "the control-like level" if a_ref != b_ref else "the level named second"
    sheet = _sheet(draft.files)
    checked = "; no sample sheet was given: the levels are matched to its condition column at run time"
    if sheet is not None:
        sheet_levels = [str(lv) for lv in sheet.fact("replicates")]
        found = {"test": _sheet_level(test_words, sheet_levels, entry.levels),
                 "reference": _sheet_level(ref_words, sheet_levels, entry.levels)}
        missing = [w for w, side in ((test, "test"), (reference, "reference")) if found[side] is None]
        column = sheet.fact("condition_column") or "condition"
        if missing or found["test"] == found["reference"]:
            what = (" and ".join(f"'{w}'" for w in missing)
                    + f" {'is not a level' if len(missing) == 1 else 'are not levels'} of the condition column")
            if not missing:
                what = f"both sides name the level '{found['test']}' of the condition column"
            return None, [f"not honoured: {entry.label} ({quoted([term.text])}): {what} '{column}' of {sheet.path} "
                          f"({', '.join(sheet_levels)}); {entry.instead}"]
        test, reference = str(found["test"]), str(found["reference"])
        checked = f" (levels of the condition column '{column}' of {sheet.path})"
    params: dict[str, dict[str, float | int | str]] = {}
    for sp in entry.sets:
        for tool in sp.tools:
            params.setdefault(tool, {})[sp.param] = reference if sp.level == "reference" else test
    spelt = "".join(f"; {lv!r} is spelt with letters of another script drawn like Latin ones{lookalikes_in(lv)}"
                    for lv in (test, reference) if lookalikes_in(lv))
    return params, [f"the contrast {quoted([term.text])}: {test} against the reference {reference} ({why}); "
                    f"log2 fold changes are {test} over {reference}{checked}{spelt}"]

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

# words of a level: letters and digits only ("wild_type", "Wild-Type" and "wild type" are one level)
_KEY = re.compile(r"[^a-z0-9]")


def _key(text: str) -> str:
    return _KEY.sub("", text.casefold())


def _named_words(draft: SpecDraft, term: AbsentTerm, entry: RequestSetting) -> tuple[str, str] | None:
    """The two levels' words of the contrast at `term` (groups a and b of the pattern that matched it); None
    when a level's words are a term of the knowledge ("expression against the reference": no levels). A term
    holding both levels is the contrast itself read as its step ("KO vs WT" is differential expression)."""
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
            return m.group("a"), m.group("b")
    return None


def _canonical(words: str, levels: ContrastWords) -> str:
    """One key per level however the request spells it (an alias group's first word)."""
    key = _key(words)
    for group in levels.aliases:
        if key in {_key(w) for w in group}:
            return _key(group[0])
    return key


def _sheet_level(words: str, sheet_levels: list[str], levels: ContrastWords) -> str | None:
    """The sample sheet's level the words name (in its own spelling), a plural's singular too."""
    for said in dict.fromkeys((words, words[:-1] if words.endswith("s") else words)):
        hits = [lv for lv in sheet_levels if _canonical(lv, levels) == _canonical(said, levels)]
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
    if words is None:
        return None, []
    a, b = words
    reference_like = {_canonical(w, entry.levels) for w in entry.levels.reference}
    a_ref, b_ref = (_canonical(w, entry.levels) in reference_like for w in (a, b))
    reference, test = (a, b) if a_ref and not b_ref else (b, a)
    why = "the control-like level" if a_ref != b_ref else "the level named second"
    sheet = _sheet(draft.files)
    checked = "; no sample sheet was given: the levels are matched to its condition column at run time"
    if sheet is not None:
        sheet_levels = [str(lv) for lv in sheet.fact("replicates")]
        found = {w: _sheet_level(w, sheet_levels, entry.levels) for w in (test, reference)}
        missing = [w for w, lv in found.items() if lv is None]
        column = sheet.fact("condition_column") or "condition"
        if missing:
            return None, [f"not honoured: {entry.label} ({quoted([term.text])}): "
                          + " and ".join(f"'{w}'" for w in missing)
                          + f" {'is not a level' if len(missing) == 1 else 'are not levels'} of the condition "
                          f"column '{column}' of {sheet.path} ({', '.join(sheet_levels)}); {entry.instead}"]
        test, reference = str(found[test]), str(found[reference])
        checked = f" (levels of the condition column '{column}' of {sheet.path})"
    params: dict[str, dict[str, float | int | str]] = {}
    for sp in entry.sets:
        for tool in sp.tools:
            params.setdefault(tool, {})[sp.param] = reference if sp.level == "reference" else test
    return params, [f"the contrast {quoted([term.text])}: {test} against the reference {reference} ({why}); "
                    f"log2 fold changes are {test} over {reference}{checked}"]

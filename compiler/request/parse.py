"""Parse stage: query text -> Request (terms recognised, with the span each came from).

Alias-first and deterministic: longest alias match wins, then intent phrases
(lexicon.yaml), then fuzzy matching of the words nothing matched (typos), then
negation ("not edgeR", "不要 edgeR") and output formats. Everything recognised
carries its evidence for the plan report; content words nothing recognised are
kept for "did you mean" hints.
"""

from __future__ import annotations

import re

from rapidfuzz import fuzz, process

from bioplan.errors import EmptyQueryError
from bioplan.knowledge.models import Knowledge
from bioplan.models import Match, Request
from bioplan.request.lexicon import build_terms, find_aliases, is_cjk, normalize, singular

# When two terms match the same words, the more specific kind wins.
_KIND_PRIORITY = {"operation": 0, "tool": 1, "constraint": 2, "datatype": 3, "format": 4, "motif": 5}

STOPWORDS = frozenset("""
a an the and or then to of for on in into with from by as at is are be it its this that these those my our
your their i we you me us please want need would like do does did can could should will get make run using use
then after before next also both all each per one two data file files analysis analyse analyze pipeline workflow
results result output outputs input inputs table tables some any which what how so sample samples between vs versus
want give show find perform doing done let lets via step steps first finally final
""".split())

_FUZZY_MIN_SCORE = 88.0
_NEGATION_WINDOW = 28  # characters before a term in which a "not"/"不要" negates it


def _language(text: str) -> str:
    cjk = len(re.findall(r"[\u3400-\u9fff]", text))
    latin = len(re.findall(r"[A-Za-z]", text))
    if cjk and latin > 3 * cjk:
        return "en" if cjk < 2 else "mixed"
    if cjk:
        return "zh" if latin <= 3 * cjk and latin < 12 else "mixed"
    return "en"


def _priority(m: Match, knowledge: Knowledge) -> float:
    # "raw counts" names the data far more often than the requires_raw_integer_counts
    # constraint: data constraints yield to datatypes on the same words
    if m.kind == "constraint" and knowledge.constraints[m.id].kind == "data":
        return _KIND_PRIORITY["datatype"] + 0.5
    return _KIND_PRIORITY[m.kind]


def _compound(m: Match, chosen: list[Match]) -> bool:
    """Chinese compounds share characters between an assay and a datatype
    (宏基因组测序 + 测序数据 in 宏基因组测序数据): both are meant when they only partly overlap."""
    kinds = {"constraint", "datatype"}
    for c in chosen:
        if m.start < c.end and c.start < m.end:
            partial = not (c.start <= m.start and m.end <= c.end) and not (m.start <= c.start and c.end <= m.end)
            if not (partial and {m.kind, c.kind} == kinds and is_cjk(m.text) and is_cjk(c.text)):
                return False
    return True


def _select(candidates: list[Match], knowledge: Knowledge) -> list[Match]:
    """Non-overlapping matches, longest first; ties by kind priority then id."""
    chosen: list[Match] = []
    taken: list[tuple[int, int]] = []
    for m in sorted(candidates, key=lambda m: (-(m.end - m.start), _priority(m, knowledge), m.id, m.start)):
        if any(m.start < e and s < m.end for s, e in taken) and not _compound(m, chosen):
            continue
        same = sorted({c.id for c in candidates
                       if (c.start, c.end, c.kind) == (m.start, m.end, m.kind) and c.id != m.id})
        chosen.append(m.model_copy(update={"alternatives": tuple(same)}) if same else m)
        taken.append((m.start, m.end))
        if m.kind == "operation":
            # words that name both an operation and a tool of it ("enrichKEGG") say both:
            # do the operation, with that tool
            chosen += [c for c in candidates if (c.start, c.end) == (m.start, m.end) and c.kind == "tool"
                       and knowledge.tools[c.id].implements == m.id
                       and not any(x.id == c.id and x.kind == "tool" for x in chosen)]
            # "导出为CSV" names the export operation and the output format
            chosen += [c for c in candidates if (c.start, c.end) == (m.start, m.end) and c.kind == "format"
                       and not any(x.id == c.id and x.kind == "format" for x in chosen)]
    return sorted(chosen, key=lambda m: (m.start, m.end))


def _exact_matches(norm: str, knowledge: Knowledge) -> list[Match]:
    return [Match(kind=term.kind, id=term.id, text=norm[start:end], start=start, end=end,
                  how="exact" if term.alias == term.id.replace("_", " ") else "alias")
            for start, end, term in find_aliases(norm, knowledge)]


def _phrase_matches(norm: str, knowledge: Knowledge) -> tuple[list[Match], str | None, list[str]]:
    found, target, constraints = [], None, []
    for rule in knowledge.lexicon.phrases:
        pattern = re.compile(rule.pattern)
        # context look-arounds anchor at the start; the intent words are group "m" when present
        group = "m" if "m" in pattern.groupindex else 0
        for m in pattern.finditer(norm):
            start, end = m.span(group)
            if start < 0:
                start, end = m.span(0)
            text = norm[start:end]
            for op in rule.operations:
                found.append(Match(kind="operation", id=op, text=text, start=start, end=end, how="phrase"))
            if rule.target:
                target = rule.target
                found.append(Match(kind="datatype", id=rule.target, text=text, start=start, end=end, how="phrase"))
            for c in rule.constraints:
                constraints.append(c)
                found.append(Match(kind="constraint", id=c, text=text, start=start, end=end, how="phrase"))
    return found, target, constraints


def _uncovered_words(norm: str, matches: list[Match]) -> list[tuple[str, int, int]]:
    covered = [(m.start, m.end) for m in matches]
    words = []
    for w in re.finditer(r"[a-z][a-z0-9\.\+]*[a-z0-9]|[a-z]", norm):
        if any(s <= w.start() < e for s, e in covered):
            continue
        words.append((w.group(0), w.start(), w.end()))
    return words


def _fuzzy_matches(words: list[tuple[str, int, int]], knowledge: Knowledge) -> list[Match]:
    latin_terms = [t for t in build_terms(knowledge) if not is_cjk(t.alias) and len(t.alias) >= 4]
    choices = [t.alias for t in latin_terms]
    found = []
    # 2-word then 1-word windows over the uncovered words
    for size in (2, 1):
        for i in range(len(words) - size + 1):
            window = words[i:i + size]
            if any(w[2] + 1 < window[j + 1][1] for j, w in enumerate(window[:-1])):
                continue  # not adjacent in the text
            text = " ".join(singular(w[0]) for w in window)
            if len(text) < 5 or (size == 1 and text in STOPWORDS):
                continue
            best = process.extractOne(text, choices, scorer=fuzz.ratio, score_cutoff=_FUZZY_MIN_SCORE)
            if best is None:
                continue
            term = latin_terms[best[2]]
            if abs(len(term.alias) - len(text)) > 2:
                continue
            found.append(Match(kind=term.kind, id=term.id, text=" ".join(w[0] for w in window),
                               start=window[0][1], end=window[-1][2], how="fuzzy", score=round(best[1] / 100, 3)))
    return found


def _negated(norm: str, match: Match, markers: list[str]) -> bool:
    window_start = max(0, match.start - _NEGATION_WINDOW)
    before = norm[window_start:match.start]
    # a clause boundary resets negation: "not edgeR, but DESeq2"
    before = re.split(r"[,;.:!?]|\bbut\b|\bthen\b|但|然后", before)[-1]
    for marker in markers:
        if is_cjk(marker):
            if marker in before:
                return True
        elif re.search(rf"(?<![a-z]){re.escape(marker)}(?![a-z])", before):
            return True
    return False


def parse_request(query: str, knowledge: Knowledge) -> Request:
    if query is None or not query.strip():
        raise EmptyQueryError(
            "the request is empty",
            ['say what you want, e.g. "mouse raw counts: differential expression, then KEGG enrichment"'],
        )
    norm = normalize(query)
    phrase_hits, phrase_target, phrase_constraints = _phrase_matches(norm, knowledge)
    exact = _select(_exact_matches(norm, knowledge), knowledge)
    fuzzy = _select(_fuzzy_matches(_uncovered_words(norm, exact), knowledge), knowledge)
    matches = sorted(exact + fuzzy, key=lambda m: (m.start, m.end))
    exclude_markers = [normalize(m) for m in list(knowledge.lexicon.exclude_markers.en) + list(knowledge.lexicon.exclude_markers.zh)]
    marked = []
    for m in matches:
        if m.kind in ("tool", "operation") and _negated(norm, m, exclude_markers):
            m = m.model_copy(update={"negated": True})
        marked.append(m)
    # phrases add operations the aliases missed (never duplicates)
    seen_ops = {m.id for m in marked if m.kind == "operation"}
    for m in phrase_hits:
        if m.kind == "operation" and m.id in seen_ops:
            continue
        marked.append(m)
        seen_ops.add(m.id)
    marked.sort(key=lambda m: (m.start, m.end, m.kind))

    def ids(kind: str, negated: bool = False) -> tuple[str, ...]:
        return tuple(dict.fromkeys(m.id for m in marked if m.kind == kind and m.negated == negated))

    datatypes = ids("datatype")
    if phrase_target and phrase_target in datatypes:
        # an explicit target phrase ("into a count matrix") is the last thing wanted
        datatypes = tuple(d for d in datatypes if d != phrase_target) + (phrase_target,)
    formats = ids("format")
    recognised_spans = [(m.start, m.end) for m in marked]
    unrecognized = tuple(
        w for w, s, e in _uncovered_words(norm, marked)
        if w not in STOPWORDS and len(w) > 2 and not any(a <= s < b for a, b in recognised_spans)
    ) + tuple(
        run.group(0) for run in re.finditer(r"[\u3400-\u9fff]{2,}", norm)
        if not any(a <= run.start() < b for a, b in recognised_spans)
    )
    return Request(
        query=query,
        normalized=norm,
        language=_language(query),
        matches=tuple(marked),
        operations=ids("operation"),
        datatypes=datatypes,
        constraints=tuple(dict.fromkeys(ids("constraint") + tuple(phrase_constraints))),
        preferred_tools=ids("tool"),
        excluded_tools=ids("tool", negated=True),
        output_format=formats[-1] if formats else None,
        unrecognized=unrecognized,
    )


def _cjk_words(text: str) -> list[str]:
    """Chinese words of an unmatched run, segmented by jieba (loaded only on this error path)."""
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    return [w for w in jieba.lcut(text) if len(w) >= 2 and is_cjk(w)]


def suggestions(words: tuple[str, ...], knowledge: Knowledge, limit: int = 3) -> list[str]:
    """Nearest recognised terms for words nothing matched ("did you mean ...?")."""
    terms = [t for t in build_terms(knowledge) if t.kind in ("operation", "datatype", "tool")]
    latin = sorted({t.alias for t in terms if not is_cjk(t.alias)})
    chinese = sorted({t.alias for t in terms if is_cjk(t.alias)})
    out = []
    for w in words:
        if is_cjk(w):
            for part in _cjk_words(w):
                best = process.extractOne(part, chinese, scorer=fuzz.ratio, score_cutoff=60)
                if best:
                    out.append(best[0])
            continue
        best = process.extractOne(w, latin, scorer=fuzz.WRatio, score_cutoff=70)
        if best:
            out.append(best[0])
    return list(dict.fromkeys(out))[:limit]

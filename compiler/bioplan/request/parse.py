"""Parse stage: query text -> Request (terms recognised, with the span each came from).

Alias-first and deterministic: longest alias match wins, then intent phrases
(lexicon.yaml), then fuzzy matching of the words nothing matched (typos), then
negation ("not edgeR", "不要 edgeR") and output formats. Everything recognised
carries its evidence for the plan report.

Every word is accounted for (`Request.spans`): it became a term (operation, tool,
datatype, format, constraint, organism, build), a sample group, a file name, filler
(the lexicon's stop list), a tool or analysis family bioplan lacks (`Request.absent`:
the spec refuses these by name), or it is unrecognised (`Request.unrecognized`).
Instruction clauses none of whose content words were understood are kept in
`Request.unmatched_clauses`, so that no part of a request is dropped silently.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from bioplan.cache import Memo
from bioplan.errors import EmptyQueryError
from bioplan.knowledge.models import Knowledge
from bioplan.knowledge.queries import made_within
from bioplan.knowledge.words import cjk_pattern, has_word
from bioplan.models import AbsentTerm, Language, Match, MatchKind, Request, Span, SpanRole
from bioplan.request.lexicon import (
    TYPO_MIN_WORD,
    Term,
    absent_tool_matches,
    build_terms,
    find_aliases,
    is_cjk,
    lexicon_index,
    lexicon_matcher,
    lexicon_words,
    normalize,
    setting_matches,
    singular,
    unsupported_analysis_matches,
)
from bioplan.request.text import plain_request, require_request_length, require_term_count

# When two terms match the same words, the more specific kind wins.
_KIND_PRIORITY = {"operation": 0, "tool": 1, "constraint": 2, "datatype": 3, "format": 4, "motif": 5}

STOPWORDS = frozenset({
    "a", "an", "the", "and", "or", "then", "to", "of", "for", "on", "in", "into", "with", "from", "by", "as",
    "at", "is", "are", "be", "it", "its", "this", "that", "these", "those", "my", "our", "your", "their", "i",
    "we", "you", "me", "us", "please", "want", "need", "would", "like", "do", "does", "did", "can", "could",
    "should", "will", "get", "make", "run", "using", "use", "after", "before", "next", "also", "both",
    "all", "each", "per", "one", "two", "data", "file", "files", "analysis", "analyse", "analyze", "pipeline",
    "workflow", "results", "result", "output", "outputs", "input", "inputs", "table", "tables", "some", "any",
    "which", "what", "how", "so", "sample", "samples", "between", "vs", "versus", "give", "show",
    "find", "perform", "doing", "done", "let", "lets", "via", "step", "steps", "first", "finally", "final",
})

# function words of Spanish, Portuguese, French and German: a typo window never holds one ("de filtrer",
# French "to filter", is no typo of the DE-filter tool "de filter"; "la trimming" of nothing)
FOREIGN_FUNCTION_WORDS = frozenset({
    "de", "del", "da", "das", "do", "dos", "des", "du", "la", "le", "les", "el", "los", "las", "lo", "un", "une",
    "una", "um", "uma", "y", "e", "et", "o", "ou", "en", "em", "no", "na", "nos", "nas", "con", "com", "por",
    "para", "pour", "que", "qui", "sur", "au", "aux", "al", "se", "es", "est", "der", "die", "den", "dem", "und",
    "mit", "von", "zu", "zum", "zur", "im", "ist", "ein", "eine", "einen", "auf", "aus",
})
_FUZZY_MIN_SCORE = 88.0
_FUZZY_MIN_WORD = 7  # shorter words are too often real words to be corrected as typos
_NEGATION_WINDOW = 28  # characters before a term in which a "not"/"不要" negates it


def _language(text: str) -> Language:
    cjk = len(cjk_pattern().findall(text)) if is_cjk(text) else 0
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


def _compound(m: Match, overlapping: Iterable[Match]) -> bool:
    """Chinese compounds share characters between an assay and a datatype
    (宏基因组测序 + 测序数据 in 宏基因组测序数据): both are meant when they only partly overlap."""
    kinds = {"constraint", "datatype"}
    for c in overlapping:
        partial = not (c.start <= m.start and m.end <= c.end) and not (m.start <= c.start and c.end <= m.end)
        if not (partial and {m.kind, c.kind} == kinds and is_cjk(m.text) and is_cjk(c.text)):
            return False
    return True


def _select(candidates: list[Match], knowledge: Knowledge) -> list[Match]:
    """Non-overlapping matches, longest first; ties by kind priority then id.

    Linear in the matches (attacks round 9): the chosen matches are kept per character they cover and the
    candidates per span, so a request of 2,000 Chinese terms (比对 x 2,000) is not every match against every
    other (20 s, quadratic, under the request length limit)."""
    chosen: list[Match] = []
    by_char: dict[int, list[Match]] = {}  # the chosen matches covering each character
    by_span: dict[tuple[int, int], list[Match]] = {}
    for c in candidates:
        by_span.setdefault((c.start, c.end), []).append(c)
    said: set[tuple[str, str]] = set()  # (kind, id) of every match chosen

    def choose(c: Match) -> None:
        chosen.append(c)
        said.add((c.kind, c.id))
        for i in range(c.start, c.end):
            by_char.setdefault(i, []).append(c)

    for m in sorted(candidates, key=lambda m: (-(m.end - m.start), _priority(m, knowledge), m.id, m.start)):
        overlapping = {id(c): c for i in range(m.start, m.end) for c in by_char.get(i, ())}
        if overlapping and not _compound(m, overlapping.values()):
            continue
        span = by_span[(m.start, m.end)]
        same = sorted({c.id for c in span if c.kind == m.kind and c.id != m.id})
        choose(m.model_copy(update={"alternatives": tuple(same)}) if same else m)
        if m.kind == "operation":
            # words that name both an operation and a tool of it ("enrichKEGG") say both:
            # do the operation, with that tool; "导出为CSV" names the export operation and the output format
            tools = [c for c in span if c.kind == "tool" and knowledge.tools[c.id].implements == m.id
                     and ("tool", c.id) not in said]
            formats = [c for c in span if c.kind == "format" and ("format", c.id) not in said]
            for c in tools + formats:
                choose(c)
    return sorted(chosen, key=lambda m: (m.start, m.end))


def _exact_matches(norm: str, knowledge: Knowledge) -> list[Match]:
    return [Match(kind=term.kind, id=term.id, text=norm[start:end], start=start, end=end,
                  how="exact" if term.alias == term.id.replace("_", " ") else "alias")
            for start, end, term in find_aliases(norm, knowledge)]


_CONTEXT_SEPARATOR = " | "


def _phrase_matches(norm: str, knowledge: Knowledge, context: str = "") -> tuple[list[Match], str | None, list[str]]:
    """Intent phrases of the lexicon. `context` (words describing the inputs: "single cell rna seq
    h5ad") is appended behind a separator for the rules' context look-aheads only: an `.h5ad` input
    makes "filter out cells with high mitochondrial content" single-cell QC, and keeps "genes that
    differ" from reading as bulk DE; no phrase is ever found inside the context itself."""
    found, target, constraints = [], None, []
    text_and_context = norm + _CONTEXT_SEPARATOR + context if context else norm
    matcher = lexicon_matcher(text_and_context, knowledge)
    passing, known = matcher.passing, matcher.known
    for rule in knowledge.lexicon.phrases:
        if rule.pattern not in passing and rule.pattern in known:
            continue  # cannot match (`LexiconMatcher`)
        pattern = matcher(rule.pattern)
        if pattern is None:
            continue
        for start, end in _rule_spans(pattern, norm, text_and_context[len(norm):]):
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


def _rule_spans(pattern: re.Pattern[str], norm: str, context: str) -> list[tuple[int, int]]:
    """Where a phrase rule's intent words (group "m" when present) are in the request. A rule whose
    context look-ahead anchors at the start matches once per text, so each occurrence found is masked
    and the rule run again over the masked text, the original behind it keeping the context whole:
    "Data Normalization: Normalize the data" of single cells is two single-cell normalisation words,
    not one and a bulk one."""
    group = "m" if "m" in pattern.groupindex else 0

    def span(m: re.Match[str]) -> tuple[int, int]:
        return m.span(group) if m.start(group) >= 0 else m.span()
    if not pattern.pattern.startswith("^"):
        return [sp for sp in map(span, pattern.finditer(norm + context)) if sp[1] <= len(norm)]
    spans: list[tuple[int, int]] = []
    masked = norm
    while len(spans) < 50:
        m = pattern.search(masked + context + _CONTEXT_SEPARATOR + norm)
        if m is None or span(m)[1] > len(norm):
            break
        start, end = span(m)
        spans.append((start, end))
        masked = masked[:start] + "~" * max(end - start, 1) + masked[start + max(end - start, 1):]
    return spans


class _Tables(NamedTuple):
    """What the typo corrections read from the knowledge, built once per knowledge (before, on every
    parse: ~40 % of its time) from `lexicon_index`."""

    fuzzy_terms: tuple[Term, ...]  # the Latin aliases of 4+ characters, longest first
    same_alias: dict[str, tuple[tuple[MatchKind, str], ...]]  # alias -> (kind, id) of every one of them carrying it
    versioned_tools: tuple[tuple[Term, tuple[str, ...]], ...]  # one-word tool aliases with digits, and the digits
    tool_aliases: dict[str, str]  # Latin tool alias -> the first tool carrying it
    vocabulary: frozenset[str]  # `LexiconIndex.vocabulary`
    vocabulary_by_letter: dict[str, tuple[str, ...]]  # its words by first letter, in its (sorted) order
    common: frozenset[str]  # `_common_words`
    # text length -> the fuzzy terms of a length a ratio of _FUZZY_MIN_SCORE allows, with their aliases
    by_length: dict[int, tuple[tuple[Term, ...], tuple[str, ...]]]


_TABLES: Memo[str, _Tables] = Memo(8)  # tests build many knowledge bases in one process


def _tables(knowledge: Knowledge) -> _Tables:
    hit = _TABLES.get(knowledge.content_hash)
    if hit is not None:
        return hit
    index = lexicon_index(knowledge)
    fuzzy_terms = tuple(t for t in index.latin_terms if len(t.alias) >= 4)
    same: dict[str, set[tuple[MatchKind, str]]] = {}
    for t in fuzzy_terms:
        same.setdefault(t.alias, set()).add((t.kind, t.id))
    tool_aliases: dict[str, str] = {}
    for t in index.latin_terms:
        if t.kind == "tool":
            tool_aliases.setdefault(t.alias, t.id)
    by_letter: dict[str, list[str]] = {}
    for word in index.vocabulary:
        by_letter.setdefault(word[0], []).append(word)
    versioned = tuple((t, tuple(c for c in t.alias if c.isdigit())) for t in index.latin_terms if t.kind == "tool"
                      and " " not in t.alias and len(t.alias) >= 4 and any(c.isdigit() for c in t.alias))
    hit = _Tables(fuzzy_terms, {a: tuple(sorted(ids)) for a, ids in same.items()}, versioned, tool_aliases,
                  frozenset(index.vocabulary), {c: tuple(ws) for c, ws in by_letter.items()},
                  lexicon_words(knowledge, "filler") | lexicon_words(knowledge, "group_words") | STOPWORDS, {})
    return _TABLES.keep(knowledge.content_hash, hit)


def _fuzzy_choices(tables: _Tables, size: int) -> tuple[tuple[Term, ...], tuple[str, ...]]:
    """The fuzzy terms whose alias a text of `size` characters can reach a ratio of _FUZZY_MIN_SCORE with, in
    order: the ratio is 100 * (1 - d / (a + b)) for an edit distance d of at least |a - b|, so an alias of a
    length with 100 * |a - b| / (a + b) > 100 - _FUZZY_MIN_SCORE scores below it (kept with a margin). The
    best of these is the best of all, the first of equals too (test_parse.py checks it on every alias)."""
    hit = tables.by_length.get(size)
    if hit is None:
        slack = (100 - _FUZZY_MIN_SCORE + 0.5) / 100
        terms = tuple(t for t in tables.fuzzy_terms if abs(len(t.alias) - size) <= slack * (len(t.alias) + size))
        hit = tables.by_length[size] = (terms, tuple(t.alias for t in terms))
    return hit


def _typo_correction(word: str, tables: _Tables) -> str | None:
    """The vocabulary word a misspelt word stands for: one edit (a transposition counts as one) for
    words of 5-7 letters, two for longer ones, same first letter; never a common or known word."""
    common, vocabulary = tables.common, tables.vocabulary
    if len(word) < TYPO_MIN_WORD or word in common or singular(word) in common:
        return None
    if word in vocabulary or singular(word) in vocabulary:
        return None
    limit = 1 if len(word) < 8 else 2
    best = None
    for cand in tables.vocabulary_by_letter.get(word[0], ()):
        if abs(len(cand) - len(word)) > limit:
            continue
        d = OSA.distance(word, cand, score_cutoff=limit)  # asked first: cheaper, and rarely within the limit
        if d <= limit and not _prefix_antonym(word, cand) and (best is None or (d, -len(cand), cand) < best):
            best = (d, -len(cand), cand)
    return best[2] if best else None


def _typo_phrase_matches(norm: str, exact: list[Match], knowledge: Knowledge,
                         context: str) -> list[Match]:
    """Intent phrases that a typo broke: words nothing matched are corrected to the nearest word
    of the lexicon, and a phrase found in the corrected text counts only if it covers a corrected
    word (a correction that completes no phrase is not made). Spans point into the original text."""
    tables = _tables(knowledge)
    pieces: list[str] = []
    mapping: list[tuple[int, int, int, int]] = []  # (corrected start, corrected end, original start, end)
    corrected: list[tuple[int, int]] = []
    pos = out_len = 0
    for word, start, end in _uncovered_words(norm, exact):
        fix = _typo_correction(word, tables)
        if fix is None:
            continue
        pieces.append(norm[pos:start])
        out_len += start - pos
        mapping.append((out_len, out_len + len(fix), start, end))
        corrected.append((out_len, out_len + len(fix)))
        pieces.append(fix)
        out_len += len(fix)
        pos = end
    if not corrected:
        return []
    fixed = "".join(pieces) + norm[pos:]

    def back(i: int, is_end: bool) -> int:
        """A position of the corrected text in the original (a corrected word maps to its bounds)."""
        shift = 0
        for cs, ce, os_, oe in mapping:
            if i < cs or (i == cs and is_end):
                break
            if i < ce or (i == ce and is_end):
                return oe if is_end else os_
            shift = oe - ce
        return i + shift

    hits, _, _ = _phrase_matches(fixed, knowledge, context)
    out = []
    for h in hits:
        if h.kind != "operation" or not any(h.start < ce and cs < h.end for cs, ce in corrected):
            continue
        start, end = back(h.start, False), back(h.end, True)
        out.append(h.model_copy(update={"text": norm[start:end], "start": start, "end": end, "how": "fuzzy",
                                        "score": 0.9}))
    return out


# accented Latin letters are part of a word ("análisis", "referência"), never a word break
_ACCENTED = "\u00df-\u00f6\u00f8-\u00ff\u0101-\u017f"


def _uncovered_words(norm: str, matches: list[Match]) -> list[tuple[str, int, int]]:
    covered = [(m.start, m.end) for m in matches]
    words = []
    for w in re.finditer(rf"[a-z{_ACCENTED}][a-z{_ACCENTED}0-9\.\+]*[a-z{_ACCENTED}0-9]|[a-z{_ACCENTED}]", norm):
        if any(s <= w.start() < e for s, e in covered):
            continue
        words.append((w.group(0), w.start(), w.end()))
    return words


def _common_words(knowledge: Knowledge) -> frozenset[str]:
    """Words never corrected as typos: the filler and sample-group words of the lexicon."""
    return _tables(knowledge).common


def _fuzzy_word_ok(word: str, target: str, common: frozenset[str]) -> bool:
    """A typo correction of one word: exact, or a long uncommon word close to the alias word.
    Short and common words are never corrected ("single" is not "SingleR", "report" not "kreport")."""
    if word == target or singular(word) == singular(target):
        return True
    if len(word) < _FUZZY_MIN_WORD or word in common or singular(word) in common:
        return False
    if _prefix_antonym(word, target):
        return False
    return fuzz.ratio(word, target) >= _FUZZY_MIN_SCORE - 8


# a word that is its alias word with a negating prefix added or taken away is another word, never a
# typo of it: "duplication" (a rate QC reports) is not "deduplication", "multiplexed" not
# "demultiplexed", "unmapped" not "mapped"
_NEGATING_PREFIXES = ("de", "un", "non", "non-")


def _prefix_antonym(word: str, target: str) -> bool:
    return any(word == p + target or target == p + word for p in _NEGATING_PREFIXES)


def _fuzzy_matches(words: list[tuple[str, int, int]], knowledge: Knowledge,
                   explained: list[tuple[int, int]]) -> list[Match]:
    """Typo corrections of the words no alias matched, in windows of two words then one; a window
    wholly inside an intent phrase's words (`explained`) is left as the phrase reads it."""
    tables = _tables(knowledge)
    common = tables.common
    found = []
    # 2-word then 1-word windows over the uncovered words
    for size in (2, 1):
        for i in range(len(words) - size + 1):
            window = words[i:i + size]
            if any(w[2] + 1 < window[j + 1][1] for j, w in enumerate(window[:-1])):
                continue  # not adjacent in the text
            text = " ".join(singular(w[0]) for w in window)
            if len(text) < 5 or (size == 1 and text in common):
                continue
            if any(w[0] in FOREIGN_FUNCTION_WORDS for w in window):
                continue
            if any(s <= window[0][1] and window[-1][2] <= e for s, e in explained):
                continue
            terms, choices = _fuzzy_choices(tables, len(text))
            best = process.extractOne(text, choices, scorer=fuzz.ratio, score_cutoff=_FUZZY_MIN_SCORE)
            if best is None:
                continue
            term = terms[best[2]]
            if abs(len(term.alias) - len(text)) > 2:
                continue
            # word by word: every differing word must be a long, uncommon near-miss of its alias word
            alias_words = term.alias.split(" ")
            if len(alias_words) != size or not all(
                    _fuzzy_word_ok(singular(w[0]), a, common) or _fuzzy_word_ok(w[0], a, common)
                    for w, a in zip(window, alias_words)):
                continue
            # every entry carrying that alias, as an exact match would find them ("alignment": read and
            # bisulfite alignment); _select makes them one match with alternatives, the readings choose
            # (of every kind: "taxonomical classification" is the operation before the datatype, as exactly)
            for same in tables.same_alias[term.alias]:
                found.append(Match(kind=same[0], id=same[1], text=" ".join(w[0] for w in window),
                                   start=window[0][1], end=window[-1][2], how="fuzzy", score=round(best[1] / 100, 3)))
    return found


def _versioned_tool_typos(words: list[tuple[str, int, int]], knowledge: Knowledge) -> list[Match]:
    """A versioned tool's name with one letter missing, added or changed ("MAC2" for MACS2, "bowtei2"): too
    short for the typo windows above, but its version digits leave one reading. Only digit-bearing words
    one edit from exactly one tool, with the same digits."""
    tools = _tables(knowledge).versioned_tools
    found: list[Match] = []
    for word, start, end in words:
        if not 4 <= len(word) <= 10 or not any(c.isdigit() for c in word):
            continue
        digits = tuple(c for c in word if c.isdigit())
        near = {t.alias for t, t_digits in tools if t_digits == digits
                and t.alias != word and OSA.distance(word, t.alias) == 1}
        if len(near) != 1:
            continue
        # every tool carrying that alias, as an exact match finds them (_select makes them one match)
        alias = near.pop()
        found.extend(Match(kind="tool", id=tool_id, text=word, start=start, end=end, how="fuzzy", score=0.9)
                     for tool_id in sorted({t.id for t, _ in tools if t.alias == alias}))
    return found


# markers of a replaced tool ("As an alternative to calling peaks with SEACR, we recommend MACS2", "instead
# of aligning the reads with STAR"): their object may be a step done with the tool, past the window; the
# step itself is still wanted (only the tool is replaced)
_SUBSTITUTION_MARKERS = ("as an alternative to", "an alternative to", "instead of", "in place of", "rather than",
                         "as a replacement for")
_STEP_DONE_WITH = re.compile(r"\s+\w+ing\b(?:\s+[\w-]+){0,4}?\s+(?:with|using|via|through|by)\s+(?:the\s+)?")
_WITH_TOOL_AFTER = re.compile(r"\s+(?:with|using|via|through)\s")


def _replaced_by_substitution(norm: str, match: Match | AbsentTerm) -> bool:
    """A tool named in a step that a substitution marker stands before ("as an alternative to calling peaks
    with SEACR") is the tool replaced."""
    before = re.split(r"[,;.:!?]|\bbut\b|\bthen\b", norm[max(0, match.start - 80):match.start])[-1]
    for marker in _SUBSTITUTION_MARKERS:
        at = before.rfind(marker)
        if at >= 0 and _STEP_DONE_WITH.fullmatch(before, at + len(marker)):
            return True
    return False


def _step_of_replaced_tool(norm: str, match: Match) -> bool:
    """An operation right after a substitution marker and before "with <tool>" is still wanted: the marker
    replaces the tool ("instead of calling peaks with SEACR")."""
    before = norm[max(0, match.start - _NEGATION_WINDOW):match.start].rstrip()
    return (any(before.endswith(marker) for marker in _SUBSTITUTION_MARKERS)
            and _WITH_TOOL_AFTER.match(norm, match.end) is not None)


def _negated(norm: str, match: Match | AbsentTerm, markers: list[str]) -> bool:
    if match.kind == "tool" and _replaced_by_substitution(norm, match):
        return True
    window_start = max(0, match.start - _NEGATION_WINDOW)
    before = norm[window_start:match.start]
    # a clause boundary resets negation: "not edgeR, but DESeq2"
    before = re.split(r"[,;.:!?]|\bbut\b|\bthen\b|但|然后", before)[-1]
    ascii_text = before.isascii()
    for marker in markers:
        if ascii_text and not marker.isascii():
            continue  # not in ASCII text, as a word or not: asked first, no CJK pattern compiled to tell
        if is_cjk(marker):
            if marker in before:
                return True
        elif has_word(before, marker):
            return True
    return False


# what a method was made for, not what the data are: "methodology originally developed for RNA-seq data" (RRBS)
_MADE_FOR = re.compile(r"(?<![a-z0-9])(?:developed|designed|created|built|written|intended|devised|made|invented|"
                       r"conceived)\s+(?:originally\s+|initially\s+|first\s+|primarily\s+)?for\s+"
                       r"(?:the\s+)?(?:analysis\s+of\s+|analy[sz]ing\s+)?$")
# a setting replaced by another: "in a paired-end mode (instead of single-end like we had before)"
_SUBSTITUTED = re.compile(r"(?<![a-z])(?:instead of|rather than|in place of|as an alternative to)\s+"
                          r"(?:the\s+|a\s+|an\s+)?$")


def _mark_negated(norm: str, matches: list[Match], exclude_markers: list[str]) -> list[Match]:
    """Tools, operations and data a negation marker stands before in their clause ("not edgeR", "skip the
    sequencing data preprocessing, mapping reads") are negated: negated data is no input. A setting is
    negated only by a marker that replaces it ("paired-end (instead of single-end)") or as what a method was
    made for ("software developed for RNA-seq data")."""
    return [m.model_copy(update={"negated": True})
            if (m.kind in ("tool", "operation", "datatype") and _negated(norm, m, exclude_markers)
                and not (m.kind == "operation" and _step_of_replaced_tool(norm, m)))
            or (m.kind == "constraint" and (_SUBSTITUTED.search(norm, max(0, m.start - _NEGATION_WINDOW), m.start)
                                            or _MADE_FOR.search(norm, max(0, m.start - 60), m.start)))
            else m
            for m in matches]


def _outside_absent_tools(marked: list[Match], absent: list[AbsentTerm]) -> list[Match]:
    """A known tool's name inside a longer name of a tool bioplan lacks is not that tool ("star" in
    "STAR-Fusion", "bwa" in "bwa-mem2")."""
    return [m for m in marked if not (m.kind == "tool" and any(
        a.kind == "tool" and a.start <= m.start and m.end <= a.end and (a.start, a.end) != (m.start, m.end)
        for a in absent))]


def _with_phrase_hits(marked: list[Match], phrase_hits: list[Match]) -> list[Match]:
    """Phrases add operations the aliases missed (never duplicates); in order of position. A phrase
    of an operation already named elsewhere still accounts for its own words ("profile the gut
    microbiome with Kraken2": Kraken2 names the operation, the phrase says what "profile" means)."""
    # a word of several readings wholly inside a phrase of another operation is that phrase's word ("align" in
    # "align these 16S sequences" is the multiple sequence alignment, not read alignment); so is a Chinese
    # alias (matched as a substring) wholly inside a longer phrase ("分群" in "OTU/ASV 分群" clusters no cells)
    out = [m for m in marked if not (m.kind == "operation" and any(
        p.kind == "operation" and p.id != m.id and p.id not in m.alternatives and not p.negated
        and p.start <= m.start and m.end <= p.end
        and (m.alternatives or (is_cjk(m.text) and p.end - p.start > m.end - m.start)) for p in phrase_hits))
        # a negated word of the phrase's own operation inside it is negated by the phrase's own words ("present in
        # the tumor but not in the matched normal": somatic calling, not "matched normal" refused)
        and not (m.kind == "operation" and m.negated and any(
            p.kind == "operation" and p.id == m.id and not p.negated and p.start <= m.start and m.end <= p.end
            and p.end - p.start > m.end - m.start for p in phrase_hits))]
    seen_ops = {m.id for m in out if m.kind == "operation"}
    for m in phrase_hits:
        if m.kind == "operation" and m.id in seen_ops and any(
                o.start < m.end and m.start < o.end for o in out if o.kind == "operation" and o.id == m.id):
            continue
        out.append(m)
        seen_ops.add(m.id)
    out.sort(key=lambda m: (m.start, m.end, m.kind))
    return out


@dataclass(frozen=True)
class _Phrases:
    """The intent phrases found (typo-corrected ones too): the only part of a parse the inputs'
    context changes."""

    hits: tuple[Match, ...]
    target: str | None
    constraints: tuple[str, ...]


@dataclass(frozen=True)
class _ContextFree:
    """A parse without context: its context-free steps and its result."""

    norm: str
    exact: tuple[Match, ...]
    phrases: _Phrases
    request: Request


# The spec parses the request a second time with the inputs' context (`passes/readings.py`), where
# only the phrases' look-aheads see it. The last parses without context are kept (in this process
# only), so that the second parse finds the phrases again and recomputes the rest only when they
# differ: ~10-15 ms of a `bioplan plan`. Same result as a whole parse (test_parse_in_context.py).
_RECENT: dict[tuple[int, str, str], _ContextFree] = {}
_RECENT_MAX = 8


def parse_request(query: str, knowledge: Knowledge, context: str = "") -> Request:
    """`context`: words describing the inputs (their assay and formats), seen by the phrases'
    context look-aheads only (see `_phrase_matches`)."""
    # normalised once, here: one line, no control characters, NFC (Request.query keeps the original)
    require_request_length(query or "")
    text = plain_request(query or "")
    if not text:
        raise EmptyQueryError(
            "the request is empty",
            ['say what you want, e.g. "mouse raw counts: differential expression, then KEGG enrichment"'],
        )
    key = (id(knowledge), knowledge.content_hash, query)
    known = _RECENT.get(key)
    if known is not None:
        norm, exact = known.norm, list(known.exact)
    else:
        norm = normalize(text)
        exact = _without_function_words(text, norm, _without_a_pronoun_se(text, norm, _without_a_preposition_de(
            text, norm, _select(_exact_matches(norm, knowledge), knowledge))))
    require_term_count(len(exact))
    phrases = _phrases(norm, exact, knowledge, context)
    if known is not None and phrases == known.phrases:
        return known.request
    request = _parsed(query, text, norm, exact, phrases, knowledge)
    if not context:
        _RECENT.pop(key, None)
        while len(_RECENT) >= _RECENT_MAX:
            _RECENT.pop(next(iter(_RECENT)))
        _RECENT[key] = _ContextFree(norm, tuple(exact), phrases, request)
    return request


# "DE" is differential expression; "de" of a Portuguese, Spanish or French request ("leituras de
# qualidade", "análisis de datos") is a preposition: lower case and before no word DE is said of
_DE_NOUNS = re.compile(r"\s+(?:genes?|degs?|analys[ie]s|results?|tables?|lists?|test(?:s|ing)?|statistics|stats|"
                       r"calls?|calling|pipeline|workflow|step|with|using|between|on|for|and|then|in)(?![a-z0-9])"
                       r"|\s*(?:[,.;:!?)]|$)")
_DE_VERBS = re.compile(r"(?<![a-z0-9])(?:run|runs|running|do|does|doing|perform|performs|performing|then)\s+$")


def _without_a_preposition_de(text: str, norm: str, matches: list[Match]) -> list[Match]:
    def preposition(m: Match) -> bool:
        upper = len(text) == len(norm) and text[m.start:m.end] == "DE"
        return (m.kind == "operation" and norm[m.start:m.end] == "de" and not upper and not _DE_NOUNS.match(norm, m.end)
                and not _DE_VERBS.search(norm, 0, m.start))
    return [m for m in matches if not preposition(m)]


# single-end said in lower case: "se reads", "se50", "se library"
_SE_LAYOUT = re.compile(r" ?(reads?\b|librar|data\b|sequenc|mode\b|layout|fastq|\d)")


def _without_a_pronoun_se(text: str, norm: str, matches: list[Match]) -> list[Match]:
    """A lower-case "se" is the Spanish, Portuguese or French pronoun ("se obtienen archivos FASTQ",
    "se describe"), not single-end reads, unless reads, a library or a read length follow it; "SE" written
    in capitals anywhere in the request keeps its reading."""
    if re.search(r"(?<![A-Za-z])SE(?![a-z])", text):
        return matches
    return [m for m in matches if not (m.kind == "constraint" and norm[m.start:m.end] == "se"
                                       and not _SE_LAYOUT.match(norm, m.end))]


# function words that are also a term's acronym: "its" of "its anti-inflammatory effects" is no ITS amplicon
_FUNCTION_WORD_ACRONYMS = frozenset({"its", "it", "is", "as", "be", "us", "at", "or", "an", "on", "in", "to", "we"})


def _without_function_words(text: str, norm: str, matches: list[Match]) -> list[Match]:
    """A term whose words are a function word ("its", "as") in lower case is that word, not the acronym (ITS,
    AS); written in capitals ("ITS", at its span or, when normalising moved the spans, anywhere) it keeps its
    reading."""
    def function_word(m: Match) -> bool:
        said = norm[m.start:m.end]
        if said not in _FUNCTION_WORD_ACRONYMS:
            return False
        if len(text) == len(norm):
            return text[m.start:m.end] != said.upper()
        return not re.search(rf"(?<![A-Za-z]){said.upper()}(?![A-Za-z])", text)
    return [m for m in matches if not function_word(m)]


def _phrases(norm: str, exact: list[Match], knowledge: Knowledge, context: str) -> _Phrases:
    hits, target, constraints = _phrase_matches(norm, knowledge, context)
    hits += [m for m in _typo_phrase_matches(norm, exact + hits, knowledge, context)
             if not any(p.id == m.id for p in hits)]
    return _Phrases(tuple(hits), target, tuple(constraints))


def _parsed(query: str, text: str, norm: str, exact: list[Match], phrases: _Phrases,
            knowledge: Knowledge) -> Request:
    """The request from its words' matches: typo corrections, negation, absent terms, readings, spans."""
    phrase_hits, phrase_target, phrase_constraints = list(phrases.hits), phrases.target, phrases.constraints
    # words an intent phrase explains need no typo correction ("count" of "count metrics" is no "counts")
    explained = [(p.start, p.end) for p in phrase_hits]
    uncovered = _uncovered_words(norm, exact)
    fuzzy = _select(_fuzzy_matches(uncovered, knowledge, explained) + _versioned_tool_typos(uncovered, knowledge),
                    knowledge)
    exclude_markers = sorted(lexicon_words(knowledge, "exclude_markers"))  # normalised once, with the lexicon
    slashed = slash_joined(text)
    marked = _mark_negated(norm, sorted(_split_joined_names(norm, exact, knowledge, slashed) + fuzzy,
                                        key=lambda m: (m.start, m.end)), exclude_markers)
    absent = _absent_terms(norm, marked, knowledge, exclude_markers, slashed)
    # a phrase stands under the same negation as a word ("without marking duplicates")
    marked = _with_phrase_hits(_outside_absent_tools(marked, absent),
                               _mark_negated(norm, phrase_hits, exclude_markers))
    marked, absent = _output_readings(norm, _alignment_of_single_cells(marked), absent, knowledge)
    marked = _offered_alternatives(norm, _without_steps_describing_the_input(
        norm, _without_words_of_datatype_phrases(marked)), knowledge, slashed)
    marked = _references_named(norm, _file_contents(norm, _without_alternative_layouts(norm, marked, knowledge)),
                               knowledge)
    marked = _assays_of_methods(norm, marked, knowledge)
    addresses = _addresses(text, norm)
    marked, named_in_addresses = _named_in_addresses(marked, addresses)
    absent = [a for a in absent if not _inside(a, addresses)]

    def ids(kind: str, negated: bool = False) -> tuple[str, ...]:
        return tuple(dict.fromkeys(m.id for m in marked
                                   if m.kind == kind and m.negated == negated and not m.offered_beside))

    datatypes = ids("datatype")
    if phrase_target and phrase_target in datatypes:
        # an explicit target phrase ("into a count matrix") is the last thing wanted
        datatypes = tuple(d for d in datatypes if d != phrase_target) + (phrase_target,)
    formats = ids("format")
    spans = _account(norm, marked, absent, knowledge, addresses, named_in_addresses)
    unrecognized = tuple(dict.fromkeys(sp.text for sp in spans if sp.role == "unrecognized"))
    return Request(
        query=query,
        normalized=norm,
        language=_language(text),
        matches=tuple(marked),
        operations=ids("operation"),
        datatypes=datatypes,
        constraints=tuple(dict.fromkeys(ids("constraint") + tuple(phrase_constraints))),
        preferred_tools=ids("tool"),
        excluded_tools=ids("tool", negated=True),
        output_format=formats[-1] if formats else None,
        unrecognized=unrecognized,
        spans=spans,
        absent=tuple(absent),
        unmatched_clauses=_unmatched_clauses(norm, spans, knowledge),
    )


_READ_ALIGNMENTS = frozenset({"read_alignment", "bisulfite_alignment", "long_read_alignment"})


def _alignment_of_single_cells(matches: list[Match]) -> list[Match]:
    """Reads of single cells aligned (the lexicon's single-cell rule: "比对到参考基因组" of 单细胞 data, "map the reads
    to the genome" of 10x data) are the single-cell quantification's alignment: the words' bulk readings (a read
    aligner, bisulfite alignment) go (before, a bulk aligner was planned and refused for single cells)."""
    cells = [(m.start, m.end) for m in matches
             if m.kind == "operation" and m.id == "single_cell_quantification" and m.how == "phrase" and not m.negated]
    return [m for m in matches if not (m.kind == "operation" and m.id in _READ_ALIGNMENTS
                                       and any(a < m.end and m.start < b for a, b in cells))]


def _without_words_of_datatype_phrases(matches: list[Match]) -> list[Match]:
    """A datatype alias inside a phrase that names a datatype ("variants" in "annotated allelic
    variants") is part of that phrase's datatype, not a second datatype of the request."""
    phrases = [m for m in matches if m.kind == "datatype" and m.how == "phrase"]
    return [m for m in matches if not (m.kind == "datatype" and m.how != "phrase" and any(
        p.start <= m.start and m.end <= p.end and (p.start, p.end) != (m.start, m.end) for p in phrases))]


# "<data> file with the <words>": the words say what the file holds ("gtf file with the genome
# annotation", "BAM files with the duplicates marked"), not a step to run
_HOLDING = re.compile(r"\s+(?:with|containing|that contains?|which contains?|holding)\s+(?:the\s+|its\s+|their\s+)?")
_FILE = re.compile(r"\s+files?")


def _holds(norm: str, data: Match, at: int) -> bool:
    """True if the text between a datatype's words and position `at` is "[file(s)] with (the)"."""
    end = data.end
    file_word = _FILE.match(norm, end)
    if file_word:
        end = file_word.end()
    elif not re.search(r"\bfiles?$", norm[data.start:data.end]):
        return False
    return bool(_HOLDING.fullmatch(norm, end, at))


def _file_contents(norm: str, matches: list[Match]) -> list[Match]:
    """Operation words right after "<datatype> file(s) with (the)" read as that file's contents: the
    datatype, not a step (see _HOLDING)."""
    data = [m for m in matches if m.kind == "datatype"]
    out = []
    for m in matches:
        held_by = next((d for d in data if d.end <= m.start and _holds(norm, d, m.start)), None)
        if m.kind == "operation" and not m.negated and held_by is not None:
            out.append(m.model_copy(update={"kind": "datatype", "id": held_by.id, "alternatives": ()}))
        else:
            out.append(m)
    return out


_AGAINST = re.compile(r"(?<![a-z0-9])(?:(?:against|onto)\s+(?:the\s+|a\s+)?|to\s+(?:the|a|an|our|your|their)\s+)"
                      r"(?:[a-z0-9.]+\s+)?$")
# the reads are aligned in the same sentence: "prior to genome assembly" is the step, "aligned ... to the genome
# assembly" the reference
_ALIGNED = re.compile(r"\b(?:align\w*|map|maps|mapped|mapping)\b")


def _references_named(norm: str, matches: list[Match], knowledge: Knowledge) -> list[Match]:
    """Operation words that are also a reference's name, right after "against/to/onto (the) (human)",
    read as that reference: "aligned using STAR against the human genome assembly" maps to the genome,
    it assembles nothing."""
    out = []
    for m in matches:
        ref = None
        sentence = re.split(r"[.;!?]", norm[max(0, m.start - 160):m.start])[-1]
        if m.kind == "operation" and not m.negated and _AGAINST.search(sentence) and _ALIGNED.search(sentence):
            text = normalize(m.text)
            ref = next((d.id for d in knowledge.datatypes.values() if d.scope == "reference"
                        and any(normalize(a) == text for a in d.aliases.en)), None)
        out.append(m if ref is None else m.model_copy(update={"kind": "datatype", "id": ref, "alternatives": ()}))
    return out


# an assay's name as the kind of a method, not of the data: "we can use any bulk RNA-seq DE method" (on a
# pseudo-bulk matrix of single cells), "standard bulk RNA-seq tools"
_METHOD_KIND_BEFORE = re.compile(r"(?<![a-z0-9])(?:any|other|standard|conventional|traditional|typical|usual|existing|"
                                 r"established|classical|regular)\s+$")
_METHOD_KIND_AFTER = re.compile(r"(?:\s+[\w-]+){0,2}?\s+(?:methods?|tools?|approach(?:es)?|packages?|software|"
                                r"frameworks?|workflows?)(?![a-z0-9])")


def _assays_of_methods(norm: str, matches: list[Match], knowledge: Knowledge) -> list[Match]:
    """An assay named as the kind of a method ("any bulk RNA-seq DE method") says what the method was made
    for, not what the data are: no assay constraint."""
    return [m for m in matches
            if not (m.kind == "constraint" and m.id in knowledge.constraints
                    and knowledge.constraints[m.id].kind == "assay"
                    and _METHOD_KIND_BEFORE.search(norm, 0, m.start) and _METHOD_KIND_AFTER.match(norm, m.end))]


# A tool's name that stands for what the tool wrote, not for running it: "salmon output", "Salmon's
# quant files", "quant.sf files from salmon", "samples already quantified with kallisto".
# (the data's own format words too: "Cell Ranger h5", "the STAR BAMs", "GATK VCFs" are files a tool wrote)
_OUTPUT_NOUN = (r"(?:outputs?|results?|files?|folders?|director(?:y|ies)|quantifications?|quants?|quant\.sf|runs?"
                r"|reports?|estimates?|abundances?|matri(?:x|ces)|h5|hdf5|h5ad|mtx|loom|bams?|crams?|vcfs?)")
_OUTPUT_AFTER = re.compile(rf"(?:'s)?\s+(?:quant(?:\.sf)?\s+|output\s+|result\s+)?{_OUTPUT_NOUN}(?![a-z0-9])")
_OUTPUT_BEFORE = re.compile(
    rf"(?:(?<![a-z0-9]){_OUTPUT_NOUN}|[a-z0-9]+\.(?:sf|tsv|h5|txt|json))\s+(?:(?:produced|generated|made|created|written|"
    r"computed|obtained)\s+)?(?:from|of|by)\s+(?:the\s+)?$"
    # "samples were quantified with Salmon" is Salmon's output; "reads were aligned using STAR" (a methods
    # section) is the alignment step
    r"|(?<![a-z])(?:already|(?<!reads )(?:were|was|been|are|is))\s+(?:quantified|aligned|mapped|processed|"
    r"classified|called|profiled|run)\s+(?:with|by|using|through)\s+(?:the\s+)?$"
    # a file noun and its participle: "BAM files aligned with HISAT2", "VCFs called by GATK" (not "reads mapped
    # with STAR", which a methods section says of the alignment step)
    r"|(?<![a-z0-9])(?:bams?|crams?|vcfs?|files?|alignments?|outputs?|results?|tables?|matri(?:x|ces))\s+"
    r"(?:(?:already|previously)\s+)?(?:quantified|aligned|mapped|processed|classified|called|profiled|generated|"
    r"produced|made|created)\s+(?:with|by|using|through|in)\s+(?:the\s+)?$")


def _output_reading(norm: str, start: int, end: int) -> bool:
    return bool(_OUTPUT_AFTER.match(norm, end) or _OUTPUT_BEFORE.search(norm[max(0, start - 60):start]))


def _output_end(norm: str, end: int) -> int:
    """Where the words naming a tool's output end: after the noun that follows the name ("cellranger h5")."""
    after = _OUTPUT_AFTER.match(norm, end)
    return after.end() if after else end


def _output_readings(norm: str, matches: list[Match], absent: list[AbsentTerm],
                     knowledge: Knowledge) -> tuple[list[Match], list[AbsentTerm]]:
    """Tool names read as the tool's output (see _OUTPUT_AFTER/_OUTPUT_BEFORE): the words name the
    data the tool wrote (an input: "quant.sf files from salmon" does not ask for FASTQ to run Salmon),
    so the tool and the operations on the same words give way to that datatype."""
    spans: list[tuple[int, int, str]] = []
    for m in matches:
        if m.kind == "tool" and not m.negated and _output_reading(norm, m.start, m.end):
            # of a package's tools ("salmon": index, quant), the one carrying the name wrote it
            family = [m.id, *m.alternatives]
            writer = next((t for t in family if normalize(m.text) in {
                normalize(w) for w in (knowledge.tools[t].name, *knowledge.tools[t].aliases.en)}), family[0])
            op = knowledge.operations[knowledge.tools[writer].implements]
            spans.append((m.start, _output_end(norm, m.end), next(iter(op.outputs.values())).datatype))
    # an operation's words inside words naming its own result ("salmon" in "salmon output")
    for m in matches:
        if m.kind == "datatype":
            for o in matches:
                inside = m.start <= o.start and o.end <= m.end and (o.start, o.end) != (m.start, m.end)
                if o.kind == "operation" and inside and any(
                        p.datatype == m.id for p in knowledge.operations[o.id].outputs.values()):
                    spans.append((o.start, o.end, m.id))
    kept_absent = []
    absent_tools = {t.id: t for t in knowledge.lexicon.absent_tools}
    for a in absent:
        tool = absent_tools.get(a.id) if a.kind == "tool" else None
        if tool and tool.operations and not a.negated and _output_reading(norm, a.start, a.end):
            op = knowledge.operations[tool.operations[0]]
            spans.append((a.start, _output_end(norm, a.end), next(iter(op.outputs.values())).datatype))
            continue
        kept_absent.append(a)
    if not spans:
        return matches, absent
    kept = [m for m in matches if not (m.kind in ("tool", "operation")
                                       and any(s <= m.start and m.end <= e for s, e, _ in spans))]
    if not any(m.kind in ("tool", "operation") for m in kept) and not _a_result_made_from(norm, knowledge, kept, spans):
        # nothing else is asked of the output: it is the result wanted ("a quality report generated
        # by FastQC"), so the tool runs; not when a result made from it is named ("a count matrix from
        # BAM files aligned with HISAT2": the alignments are the data)
        return matches, absent
    kept += [Match(kind="datatype", id=dt, text=norm[s:e], start=s, end=e, how="alias") for s, e, dt in spans
             if not any(m.kind == "datatype" and m.id == dt and m.start <= s and e <= m.end for m in kept)]
    return sorted(kept, key=lambda m: (m.start, m.end, m.kind)), kept_absent


def _a_result_made_from(norm: str, knowledge: Knowledge, matches: list[Match], spans: list[tuple[int, int, str]]
                        ) -> bool:
    """True if a datatype named outside the tools' output words is made from one of those outputs (within
    a few steps): the outputs are then the request's data, not its result. Only outputs named as data
    before the tool ("BAM files aligned with HISAT2"), not a tool's "run" ("kallisto run to get a count table")."""
    named = {dt for s, _, dt in spans if _OUTPUT_BEFORE.search(norm[max(0, s - 60):s])}
    if not named:
        return False
    made = made_within(knowledge, named, 3)
    return any(m.kind == "datatype" and m.id in made and not any(s <= m.start and m.end <= e for s, e, _ in spans)
               for m in matches)


def _absent_terms(norm: str, matches: list[Match], knowledge: Knowledge, markers: list[str],
                  slashed: frozenset[tuple[str, str]] = frozenset()) -> list[AbsentTerm]:
    """Tools and analysis families the request names that bioplan lacks.

    A tool of the knowledge matching the same words wins (the list only names what is missing);
    a family whose words an operation or tool alias of the knowledge covers is supported.
    """
    known_tools = [(m.start, m.end) for m in matches if m.kind == "tool"]
    known_terms = [(m.start, m.end) for m in matches if m.kind in ("operation", "tool") and m.how in ("exact", "alias")]
    absent_tools = {t.id: t for t in knowledge.lexicon.absent_tools}
    out: list[AbsentTerm] = []
    for start, end, tool_id in absent_tool_matches(norm, knowledge):
        if any(a <= start and end <= b for a, b in known_tools):
            continue
        term = AbsentTerm(kind="tool", id=tool_id, text=norm[start:end], start=start, end=end)
        out.append(term.model_copy(update={"negated": _negated(norm, term, markers),
                                           "alternative_to": _offered_with(norm, term, absent_tools[tool_id].operations,
                                                                           matches, knowledge, slashed)}))
    for start, end, family in unsupported_analysis_matches(norm, knowledge):
        if any(a <= start and end <= b for a, b in known_terms):
            continue
        term = AbsentTerm(kind="analysis", id=family, text=norm[start:end], start=start, end=end)
        out.append(term.model_copy(update={"negated": _negated(norm, term, markers)}))
    taken = [(a.start, a.end) for a in out if a.kind == "analysis"]
    settings = setting_matches(norm, knowledge)
    over_terms = {s.id for s in knowledge.lexicon.settings if s.over_terms}
    for start, end, setting in settings:
        # a setting inside a term of the knowledge, an analysis it lacks or a longer setting is that term's words
        inside = [(a, b) for a, b, _ in settings if (a, b) != (start, end)]
        if not any(a <= start and end <= b for a, b in (taken + inside if setting in over_terms else
                                                        known_terms + taken + inside)):
            out.append(AbsentTerm(kind="setting", id=setting, text=norm[start:end], start=start, end=end))
    return sorted(out, key=lambda t: (t.start, t.end, t.kind, t.id))


def _sentence(norm: str, pos: int) -> tuple[int, int]:
    starts = [m.end() for m in re.finditer(r"[.!?。！？]\s|\n", norm) if m.end() <= pos]
    ends = [m.start() for m in re.finditer(r"[.!?。！？]\s|\n", norm) if m.start() >= pos]
    return (starts[-1] if starts else 0), (ends[0] if ends else len(norm))


def _has_marker(marker: str, text: str) -> bool:
    """An alternative marker in `text`: a Latin word word-bounded ("or", not "for"); one in another script
    anywhere, since those are written against the tool names ("IQ-TREEやRaxML", "MAFFT等")."""
    if not marker.isascii():
        return marker in text
    return re.search(rf"(?<![a-z0-9]){re.escape(marker)}(?![a-z0-9])", text) is not None


def _offered_with(norm: str, term: AbsentTerm, operations: tuple[str, ...], matches: list[Match],
                  knowledge: Knowledge, slashed: frozenset[tuple[str, str]] = frozenset()) -> str | None:
    """The tool of the knowledge a missing tool is offered beside as an alternative for the same
    operation ("Salmon or Kallisto", "short-read: Bowtie2; long-read: Minimap2"), if any; or for the same
    kind of step (EDAM operation) when the two are written joined by "/" ("BWA-MEM2 / minimap2")."""
    start, end = _sentence(norm, term.start)
    sentence = norm[start:end]
    edams = {knowledge.operations[o].edam for o in operations if o in knowledge.operations} - {None}
    for m in matches:
        if m.kind == "tool" and not m.negated and (_joined_by_slash(norm, term.end, m.start, slashed)
                                                   or _joined_by_slash(norm, m.end, term.start, slashed)):
            same = [t for t in (m.id, *m.alternatives) if knowledge.tools[t].implements in operations
                    or knowledge.operations[knowledge.tools[t].implements].edam in edams]
            if same:
                return same[0]
    markers = lexicon_words(knowledge, "alternative_markers")
    if not any(_has_marker(w, sentence) for w in markers):
        return None
    for m in matches:
        if m.kind == "tool" and not m.negated and start <= m.start < end and any(
                knowledge.tools[t].implements in operations for t in (m.id, *m.alternatives)):
            return next(t for t in (m.id, *m.alternatives) if knowledge.tools[t].implements in operations)
    return None


def _steps(knowledge: Knowledge, m: Match) -> set[str]:
    """The operations a tool name's tools implement (two tools joined by "/" are alternatives only for one
    step: "Kraken2/Bracken" classifies then re-estimates abundance, both of EDAM's taxonomic classification)."""
    return {knowledge.tools[t].implements for t in (m.id, *m.alternatives)}


def _step_kinds(knowledge: Knowledge, m: Match) -> set[str]:
    """The EDAM operations a tool name's tools do (DADA2 assignTaxonomy and Kraken2 both classify
    taxonomically, operation_3460)."""
    edams = (knowledge.operations[knowledge.tools[t].implements].edam for t in (m.id, *m.alternatives))
    return {e for e in edams if e}


# two names written joined by "/" ("Kraken2/Bracken", "BWA-MEM2 / minimap2"): the slash is a space once
# normalised, so the pairs are read from the request as written, by the words on either side
# (a word starts after one of its delimiters: tried from inside a word, a run of 4,000 letters was quadratic)
_SLASH = re.compile(r"(?<![^\s/()\[\],;:])([^\s/()\[\],;:]+)\s*/\s*(?=([^\s/()\[\],;:]+))")
_EDGE = "()[]{},;:.!?'\""


def slash_joined(text: str) -> frozenset[tuple[str, str]]:
    """The (last word before, first word after) pairs of the request's "/" joins, normalised."""
    pairs = set()
    for m in _SLASH.finditer(text):
        left, right = normalize(m.group(1)).split(" "), normalize(m.group(2)).split(" ")
        if left[-1] and right[0]:
            pairs.add((left[-1].strip(_EDGE), right[0].strip(_EDGE)))
    return frozenset(pairs)


def _joined_by_slash(norm: str, end: int, start: int, slashed: frozenset[tuple[str, str]]) -> bool:
    """True when the words ending at `end` and starting at `start` were written joined by "/"."""
    if end > start or norm[end:start].strip():
        return False
    left, right = norm[:end].split(" ")[-1].strip(_EDGE), norm[start:].split(" ")[0].strip(_EDGE)
    return (left, right) in slashed


def _split_joined_names(norm: str, matches: list[Match], knowledge: Knowledge,
                        slashed: frozenset[tuple[str, str]]) -> list[Match]:
    """A tool alias made of two tools' names of different steps written joined by "/" ("Kraken2/Bracken",
    an alias of Bracken) names both: the pipeline of the two, neither hidden behind the other ("Bismark
    Bowtie2", one tool's name, stays one)."""
    tool_aliases = _tables(knowledge).tool_aliases
    out: list[Match] = []
    for m in matches:
        words = norm[m.start:m.end].split(" ")
        split = None
        if m.kind == "tool" and len(words) > 1:
            for i in range(1, len(words)):
                left, right = tool_aliases.get(" ".join(words[:i])), tool_aliases.get(" ".join(words[i:]))
                cut = m.start + len(" ".join(words[:i]))
                if left and right and left != right and _joined_by_slash(norm, cut, cut + 1, slashed) and \
                        knowledge.tools[left].implements != knowledge.tools[right].implements:
                    split = (i, left, right)
                    break
        if split is None:
            out.append(m)
            continue
        i, left, right = split
        cut = m.start + len(" ".join(words[:i]))
        out.append(m.model_copy(update={"id": left, "text": norm[m.start:cut], "end": cut, "alternatives": ()}))
        out.append(m.model_copy(update={"id": right, "text": norm[cut + 1:m.end], "start": cut + 1,
                                        "alternatives": ()}))
    return out


# a tool said to be the default ("annotated by default using HOMER", "HOMER by default"), then a tool for the other
# cases ("any regions called by other tools use snpEff", "otherwise ChIPseeker"): the default runs, the other is offered
_BY_DEFAULT_BEFORE = re.compile(r"\bby default\b[^.;,]{0,30}$")
_BY_DEFAULT_AFTER = re.compile(r"\s*(?:is |are |was |were )?(?:used |run )?by default\b")
_OTHER_CASES = re.compile(r"\b(?:other|others|otherwise|else|alternatively)\b")


def _default_then_other(norm: str, first: Match, between: str) -> bool:
    """The first tool is said to be the default and the words up to the later one speak of the other cases."""
    default = bool(_BY_DEFAULT_BEFORE.search(norm, max(0, first.start - 40), first.start)
                   or _BY_DEFAULT_AFTER.match(norm, first.end))
    return default and bool(_OTHER_CASES.search(between))


def _offered_alternatives(norm: str, matches: list[Match], knowledge: Knowledge,
                          slashed: frozenset[tuple[str, str]] = frozenset()) -> list[Match]:
    """A known tool offered after an alternative marker as another way to do the step of a tool named
    before it in the sentence ("Taxonomical classification using DADA2; alternatives are SINTAX,
    Kraken2, and QIIME2"; "Salmon or kallisto"): the first runs; the offered one is no preference,
    and its name does not ask for its own operation (Kraken2's words are taxonomic classification)."""
    markers = lexicon_words(knowledge, "alternative_markers")
    tools = [m for m in matches if m.kind == "tool" and not m.negated]
    offered: dict[tuple[int, int], str] = {}
    for later in tools:
        start, _ = _sentence(norm, later.start)
        for first in tools:
            between = norm[first.end:later.start]
            if not (start <= first.start and first.end <= later.start) or first.id == later.id:
                continue
            if (_step_kinds(knowledge, first) & _step_kinds(knowledge, later) and (
                    any(_has_marker(w, between) for w in markers)
                    or (_joined_by_slash(norm, first.end, later.start, slashed)
                        and _steps(knowledge, first) & _steps(knowledge, later)))) or _default_then_other(
                    norm, first, between):
                offered[(later.start, later.end)] = first.id
                break
    # a route's offer is the first step's words, a tool's the first tool's id: each marks its own kind of
    # match ("HaplotypeCaller or Mutect2": Mutect2 the tool is offered beside HaplotypeCaller the tool)
    routes = _alternative_routes(norm, matches, knowledge)
    by_kind = {"tool": offered, "operation": {**offered, **routes}}
    return [m.model_copy(update={"offered_beside": by_kind[m.kind][(m.start, m.end)]}) if m.kind in by_kind
            and (m.start, m.end) in by_kind[m.kind] else m for m in matches
            if not (m.kind == "operation" and (m.start, m.end) in by_kind["operation"]
                    and any(t.kind == "tool" and (t.start, t.end) == (m.start, m.end) for t in matches))]


# "starting from the Tn5-shifted, QC-gated BAM files": participles before the data named as the start
_DESCRIBED_INPUT = re.compile(r"\b(from|starting with|start with|given|using|use|with|on)"
                              r"( (the|my|our|your|these|those|all))? "
                              r"(?P<mods>([a-z0-9]+ )?[a-z0-9]+ed(,? (and )?([a-z0-9]+ )?[a-z0-9]+ed)*) ?$")


def _without_steps_describing_the_input(norm: str, matches: list[Match]) -> list[Match]:
    """A step's words used as the participle describing the data a workflow starts from ("from the
    Tn5-shifted, QC-gated BAM files") say what was done to it, not a step to run (before, the plan shifted
    the reads again and ran FastQC on reads nobody gave)."""
    spans = []
    for d in (m for m in matches if m.kind == "datatype"):
        hit = _DESCRIBED_INPUT.search(norm[max(0, d.start - 80):d.start])
        if hit:
            off = max(0, d.start - 80)
            spans.append((off + hit.start("mods"), off + hit.end("mods")))
    # "BAM files which are sorted, markduplicates and index": what was done to the data, said after it,
    # a step or the tool that ran it; "differential expressions already calculated": a step done
    after = [hit.span("mods") for hit in _DESCRIBED_AFTER.finditer(norm)]
    data = {(d.start, d.end) for d in matches if d.kind == "datatype"}

    def done(m: Match) -> bool:
        return m.how in ("exact", "alias", "fuzzy", "phrase") and (
            any(a <= m.start and m.end <= b for a, b in after) or bool(_ALREADY_BEFORE.search(norm[:m.start]))
            or ((m.start, m.end) in data and bool(_SUBJECT_OF_A_STEP.match(norm, m.end)))
            or bool(_ALREADY_AFTER.match(norm[m.end:m.end + 60]))
            or bool(_PASSED_BEFORE.search(norm[max(0, m.start - 60):m.start]))
            or bool(_SHARE_OF_READS.search(norm[max(0, m.start - 40):m.start]))
            or any(a <= m.start and m.end <= b and _HELD.search(norm, max(0, a - 12), a) for a, b in data)
            or (bool(_DONE_AT_START.fullmatch(norm, 0, m.start)) and bool(_DONE_CLAUSE_END.match(norm, m.end))))
    return [m for m in matches if not (m.kind == "operation" and m.how in ("exact", "alias", "fuzzy")
                                       and any(a <= m.start and m.end <= b for a, b in spans))
            and not (m.kind in ("operation", "tool") and done(m))]


# a step the request starts after ("After alignment, we need to count how many reads map to each gene", "Once
# the reads are aligned, ..."): done before the request's own steps
_DONE_AT_START = re.compile(r"(?:after|once|following)(?: (?:the|read|reads|all))*"
                            r"(?: (?:are|were|have been|has been))? ")
_DONE_CLAUSE_END = re.compile(r"(?: (?:is|are|was|were|has been|have been))?"
                              r"(?: (?:done|complete|completed|finished))?\s*,")


# the data, then what was done to it ("*.bam files which are sorted, markduplicates and index")
# (files the user has, not a methods section's "Reads that were identified as PCR duplicates were discarded")
_DESCRIBED_AFTER = re.compile(r"\b(bams?|crams?|sams?|fastqs?|vcfs?|files?)"
                              r" (which|that) (are|were|have been|has been|had been|is|was)"
                              r" (?P<mods>((?!\b(please|then|want|wants|need|needs|now|next|i|we|you|so|to)\b)"
                              r"[^.;!?]){1,80})")
# a step said done: "differential expressions already calculated", "already aligned reads"
_ALREADY_AFTER = re.compile(r"^( [a-z]+)?( (were|was|are|is|have|has|had|been))* (already|previously)( been)?"
                            r" [a-z]+(ed|en|one|un)\b")
_ALREADY_BEFORE = re.compile(r"\b(already|previously)( been)? $")
# data someone holds ("on my normalized counts", "from our trimmed reads"): a step's words inside its name say what
# was done to it, not a step to run
_HELD = re.compile(r"\b(my|our|your|their|these|those)\s+$")
# words naming data that a step is then said to be done to ("Trimmed reads are aligned to the reference genome",
# "Filtered reads (Q>30) were then mapped"): the data the step reads, not a step of their own; not when the verb makes
# them ("marker genes are identified", "peaks were called": the step's result)
_SUBJECT_OF_A_STEP = re.compile(r"\s*(?:\([^()]{0,80}\)\s*)?(?:are|were|is|was|have been|has been|had been|will be|"
                                r"can be|should be|get|got)\s+(?:then\s+|next\s+|subsequently\s+|further\s+|also\s+)?"
                                r"(?!(?:identified|called|detected|generated|produced|computed|calculated|found|obtained|"
                                r"created|built|estimated|inferred|predicted|determined|made|written|trimmed|filtered)\b)"
                                r"(?:[a-z]+ed|[a-z]+en|run|fed|used)\b")
# a step the data went through: "our data has passed some quality checks", "the reads have undergone trimming"
_PASSED_BEFORE = re.compile(r"\b(has|have|had)( already| previously)?( been)?"
                            r" (passed|undergone|gone through|been through|cleared|survived)( [a-z]+){0,2} $")

# a share of the reads a step's words describe is a measure, not the step: "cells with more than 10% of reads
# mapping to the mitochondrial genome", "the percentage of reads aligned"
_SHARE_OF_READS = re.compile(r"(%|\bpercent(age)?|\bfraction|\bproportion|\bshare|\bratio)( of)?( the| all)?"
                             r" (reads|umis|counts|fragments|transcripts) (that are |which are |that were )?$")

# settings of which one holds, offered as alternatives: "using either single-end or paired-end fastq files"
_ONE_OF_KINDS = frozenset({"layout"})
_EITHER_OR = re.compile(r"^\s*(,\s*)?(or|/|and/or|或|或者|または|또는|ou|o|oder)\s*$")


def _without_alternative_layouts(norm: str, matches: list[Match], knowledge: Knowledge) -> list[Match]:
    """Two values of a setting of which one holds, joined by "or" ("Kallisto can perform quantification using
    either single-end or paired-end fastq files"): what a tool accepts, not the user's data; neither is said
    (before, the request named two library layouts and was refused as ambiguous). "single-end and paired-end
    samples" still names both."""
    said = sorted((m for m in matches if m.kind == "constraint" and not m.negated
                   and knowledge.constraints[m.id].kind in _ONE_OF_KINDS), key=lambda m: m.start)
    offered: set[tuple[int, int]] = set()
    for first, later in zip(said, said[1:]):
        if (first.id != later.id and knowledge.constraints[first.id].kind == knowledge.constraints[later.id].kind
                and _EITHER_OR.match(norm[first.end:later.start])):
            offered |= {(first.start, first.end), (later.start, later.end)}
    return [m for m in matches if (m.start, m.end) not in offered or m.kind != "constraint"]


_OR_ONLY = re.compile(r"^\s*(or|and/or|/|或|或者)\s*$")


def _sample_inputs(knowledge: Knowledge, ops: tuple[str, ...]) -> set[str]:
    return {p.datatype for op in ops for p in knowledge.operations[op].inputs.values()
            if knowledge.datatypes[p.datatype].scope != "reference"}


def _alternative_routes(norm: str, matches: list[Match], knowledge: Knowledge) -> dict[tuple[int, int], str]:
    """Two steps joined by a bare "or" that read the same data ("alignment or pseudoalignment" of the
    reads): alternative routes, not two branches; the first named runs, the other is offered (before,
    both ran and the Salmon branch's output went nowhere)."""
    ops = sorted((m for m in matches if m.kind == "operation" and not m.negated), key=lambda m: m.start)
    out: dict[tuple[int, int], str] = {}
    for first, later in zip(ops, ops[1:]):
        ids_first, ids_later = (first.id, *first.alternatives), (later.id, *later.alternatives)
        if (_OR_ONLY.match(norm[first.end:later.start]) and not set(ids_first) & set(ids_later)
                and _sample_inputs(knowledge, ids_first) & _sample_inputs(knowledge, ids_later)):
            out[(later.start, later.end)] = first.text  # words, not an id: which alternative runs is the spec's
    return out


_ROLE: dict[str, SpanRole] = {"operation": "operation", "tool": "tool", "datatype": "datatype", "format": "format",
                              "motif": "motif", "phrase": "operation"}
_FILE_NAME = re.compile(r"[a-z0-9][a-z0-9.+]*\.(?:[a-z][a-z0-9]{0,7})(?:\.gz)?")


def _role(m: Match, knowledge: Knowledge) -> SpanRole:
    if m.kind != "constraint":
        return _ROLE[m.kind]
    con = knowledge.constraints[m.id]
    if con.kind != "organism":
        return "constraint"
    builds = {normalize(b) for b in con.genome_builds}
    return "build" if normalize(m.text) in builds else "organism"


# A web address, an e-mail address or a path names something; the words in it are no instructions:
# "trim with fastp (see https://github.com/alexdobin/STAR)" asks for no alignment, "contact salmon@lab.org"
# for no Salmon, "results in ./bwa_hisat2/" for no bwa (each did). Paths only from '/', './', '../' or '~/':
# "DESeq2/edgeR" and "treated / control" are words. Each starts at a word's start only (linear in the request).
_ADDRESS = re.compile(r"(?i)(?<![a-z0-9+.-])(?:[a-z][a-z0-9+.-]*://|www\.)[^\s<>()\[\]\"'`]+"
                      r"|(?<![a-z0-9._%+-])[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+"
                      r"|(?<![\w/.~])(?:~|\.{1,2})?/[^\s<>()\[\]\"'`,;]*[^\s<>()\[\]\"'`,;.:!?]"
                      # a file name joined by '-' or '_' ("astral-scopedom-40-2.07.fa", "ERR1147227_trimmed.fastq"):
                      # normalising splits it into words, and 'astral' or 'trimmed' in it is no tool, no step
                      r"|(?<![\w.~/-])[a-z0-9+]+(?:[._-][a-z0-9+]+)*[_-][a-z0-9+]+(?:[._-][a-z0-9+]+)*"
                      r"\.(?:fa|fasta|fna|faa|ffn|fq|fastq|sam|bam|cram|vcf|bcf|bed|gff3?|gtf|tsv|csv|txt|nwk|newick|"
                      r"treefile|aln|phy|phylip|dmnd|h5ad|h5|mtx|biom|qza)(?:\.gz)?(?![\w.])")


def _addresses(text: str, norm: str) -> list[tuple[int, int]]:
    """Where the addresses of `text` (`_ADDRESS`) sit in its normalised form `norm`, in order."""
    found, at = [], 0
    for m in _ADDRESS.finditer(text):
        address = normalize(m.group(0)).strip()
        start = norm.find(address, at) if address else -1
        if start >= 0:
            found.append((start, start + len(address)))
            at = start + len(address)
    return found


def _inside(term: Match | AbsentTerm, regions: list[tuple[int, int]]) -> bool:
    return any(a <= term.start and term.end <= b for a, b in regions)


def _named_in_addresses(marked: list[Match], addresses: list[tuple[int, int]]) -> tuple[list[Match], list[Match]]:
    """The terms outside the addresses, and those named in one that the request does not name elsewhere: a
    link's address repeating what its text names ("Adapter trimming ([`Trim Galore!`](https://.../trim_galore/))",
    an nf-core README's steps) asks for nothing more; "trim with fastp (see https://github.com/alexdobin/STAR)"
    names STAR in the address alone, said as not understood."""
    outside = [m for m in marked if not _inside(m, addresses)]
    said = {(m.kind, m.id) for m in outside}
    return outside, [m for m in marked if _inside(m, addresses) and (m.kind, m.id) not in said]


def _account(norm: str, matches: list[Match], absent: list[AbsentTerm], knowledge: Knowledge,
             addresses: Sequence[tuple[int, int]] = (), named: Sequence[Match] = ()) -> tuple[Span, ...]:
    """What every span of the request became: recognised terms, absent tools/analyses, and each
    remaining word as a sample group, file name, filler or unrecognised. The words of an address
    (`addresses`) are a file name, but for the terms `named` in one, which are said as not understood."""
    spans = [Span(text=m.text, start=m.start, end=m.end, role=_role(m, knowledge), id=m.id) for m in matches]
    spans += [Span(text=m.text, start=m.start, end=m.end, role="unrecognized") for m in named]
    spans += [Span(text=w.group(0), start=a + w.start(), end=a + w.end(), role="file_name")
              for a, b in addresses for w in re.finditer(r"[^\W_]+", norm[a:b])
              if not any(m.start <= a + w.start() < m.end for m in named)]
    spans += [Span(text=a.text, start=a.start, end=a.end, id=a.id,
                   role=_ABSENT_ROLES[a.kind]) for a in absent]
    covered = bytearray(len(norm) + 1)  # 1 where a span covers the character (a test per character, not per span)
    for sp in spans:
        covered[sp.start:sp.end] = b"\x01" * (sp.end - sp.start)
    filler = lexicon_words(knowledge, "filler") | STOPWORDS
    groups = lexicon_words(knowledge, "group_words")
    for w in re.finditer(rf"[a-z{_ACCENTED}0-9][a-z{_ACCENTED}0-9.+']*[a-z{_ACCENTED}0-9]|[a-z{_ACCENTED}0-9]", norm):
        start, end = w.span()
        if covered[start]:
            continue
        word = w.group(0)
        role: SpanRole
        if _FILE_NAME.fullmatch(word) and not re.fullmatch(r"[\d.]+", word):
            role = "file_name"
        elif (word in filler or singular(word) in filler or re.fullmatch(r"[\d.]+|[a-z]", word)
              or _instructs_named_tool(norm, end, word, spans, knowledge)):
            role = "filler"
        elif word in groups or singular(word) in groups:
            role = "group"
        else:
            role = "unrecognized"
        spans.append(Span(text=word, start=start, end=end, role=role))
    # one-character filler (的, 并, 再) also sits inside words (合并, 再生): only longer words separate
    # (only for text holding Chinese: telling the Chinese words from the others compiles the CJK pattern)
    chinese = is_cjk(norm)
    zh_filler = sorted((w for w in filler | groups if is_cjk(w) and len(w) >= 2), key=lambda w: (-len(w), w)) \
        if chinese else []
    for run in (_cjk_runs().finditer(norm) if chinese else ()):
        i = run.start()
        while i < run.end():
            if covered[i]:
                i += 1
                continue
            # the longest filler or group word here, else the stretch up to the next covered
            # character or filler word is one unrecognised span
            zh_word = next((w for w in zh_filler if norm.startswith(w, i) and i + len(w) <= run.end()), None)
            if zh_word:
                spans.append(Span(text=zh_word, start=i, end=i + len(zh_word),
                                  role="group" if zh_word in groups else "filler"))
                i += len(zh_word)
                continue
            j = i + 1
            while j < run.end() and not covered[j] and not any(norm.startswith(w, j) for w in zh_filler):
                j += 1
            spans.append(Span(text=norm[i:j], start=i, end=j, role="unrecognized" if j - i >= 2 else "filler"))
            i = j
    return tuple(sorted(spans, key=lambda sp: (sp.start, sp.end, sp.role)))


# "<verb> [up to four words] with|using|via <tool>": the verb is the instruction to run the tool
_VERB_TO_TOOL = re.compile(r"(?:\s+[a-z0-9'-]+){0,4}?\s+(?:with|using|via|through|by)\s+(?:the\s+)?")


def _instructs_named_tool(norm: str, end: int, word: str, spans: list[Span], knowledge: Knowledge) -> bool:
    """True for an instruction verb that asks for what a tool named after it does ("quantify with
    salmon", "map the reads with STAR", "profile the samples using Kraken2"): the verb's stem is in
    the label or words of the tool's operation, so the verb is accounted for by the tool. A verb the
    tool does not do ("cluster ... with Kraken2") stays unrecognised."""
    if word not in lexicon_words(knowledge, "instruction_words"):
        return False
    stem = word[:5]
    tool_starts = {sp.start for sp in spans if sp.role == "tool"}
    for sp in spans:
        # the tool's own operation, or the operation its name was read as ("salmon": quantification)
        op_id = (knowledge.tools[sp.id].implements if sp.role == "tool" and sp.id in knowledge.tools
                 else sp.id if sp.role == "operation" and sp.start in tool_starts else None)
        if op_id not in knowledge.operations or sp.start <= end or not _VERB_TO_TOOL.fullmatch(norm, end, sp.start):
            continue
        op = knowledge.operations[op_id]
        words = re.findall(r"[a-z]+", " ".join((op.label, *op.aliases.en)).lower())
        if any(w.startswith(stem) for w in words):
            return True
    return False


# a comma and the word after it; the CJK range only where the text has CJK (it costs ~1 ms to compile)
_LIST_COMMA = re.compile(r"[,，]\s*(?:and\s+)?([a-z]+)")


@cache
def _zh_list_comma() -> re.Pattern[str]:
    return re.compile(r"[,，]\s*(?:and\s+)?([a-z\u3400-\u9fff]+)")


@cache
def _cjk_runs() -> re.Pattern[str]:
    return re.compile(r"[\u3400-\u9fff]+")


# clause boundaries: sentence punctuation, commas, and "then"-like connectives
_CLAUSE_SPLIT = re.compile(r"[.;!?\n]\s|[;!?\n。；]|\.$|\b(?:and then|then|followed by|after that|afterwards)\b"
                           r"|然后|接着|之后|并且|最后")
_KNOWN_ROLES = frozenset({"operation", "tool", "datatype", "format", "constraint", "organism", "build", "motif",
                          "unknown_tool", "unsupported_analysis", "setting"})
_ABSENT_ROLES: dict[str, SpanRole] = {"tool": "unknown_tool", "analysis": "unsupported_analysis", "setting": "setting"}


# an instruction word whose object is software ("finding the right tools", "only call existing tools",
# "run the scripts"): how the work is done, no analysis asked for (course pages, READMEs)
_SOFTWARE_OBJECT = re.compile(
    r"\s+(?:(?:the|a|an|some|other|these|those|our|your|their|existing|right|appropriate|correct|proper|best|"
    r"available|suitable|different|new|own|external|standard)\s+){0,3}"
    r"(?:tools?|pipelines?|software|programs?|scripts?|packages?|commands?|workflows?|utilities|functions?)\b")


# a clause that says why the step before it is done ("This ensures your analysis relies on highly reliable data
# calls", "which helps avoid false calls", "so that ..."): its subject is that step, its verb a purpose, so an
# instruction word in it ("calls") is a noun of the purpose, no instruction (its words are still not understood)
_RATIONALE = re.compile(
    r"\s*(?:(?:this|that|which|it|doing so|these steps?|this step)\s+(?:(?:in turn|also|further|then)\s+)?"
    r"(?:ensures?|guarantees?|makes? sure|helps?|allows?|enables?|avoids?|prevents?|reduces?|minimi[sz]es?|"
    r"improves?|increases?|keeps?|means?)\b|so that\b|in order to (?:ensure|guarantee|make sure|avoid|prevent)\b)")


def _unmatched_clauses(norm: str, spans: tuple[Span, ...], knowledge: Knowledge) -> tuple[tuple[str, ...], ...]:
    """Instruction clauses ("predict ...", "鉴定 ...") none of whose content words were understood."""
    instructions = lexicon_words(knowledge, "instruction_words")
    # a comma starts a new clause only before an instruction word (", predict genes"); otherwise it
    # separates items of one list ("raw read, alignment, and strand checks")
    commas = [m for m in (_zh_list_comma() if is_cjk(norm) else _LIST_COMMA).finditer(norm)
              if m.group(1) in instructions or singular(m.group(1)) in instructions]
    splits = sorted([(m.start(), m.end(), m.group(0)) for m in _CLAUSE_SPLIT.finditer(norm)]
                    + [(m.start(), m.start() + 1, ",") for m in commas])
    bounds = [0] + [p for start, end, _ in splits for p in (start, end)] + [len(norm)]
    # a clause a connective introduces ("..., then X") is an instruction whatever its verb
    connective = [False] + [bool(re.search(r"\b(?:then|followed|after|afterwards)\b|然后|接着|之后", text))
                            for _, _, text in splits]
    out = []
    for (start, end), introduced in zip(zip(bounds[::2], bounds[1::2]), connective):
        inside = [sp for sp in spans if start <= sp.start < end]
        if any(sp.role in _KNOWN_ROLES for sp in inside):
            continue
        words = [sp.text for sp in inside if sp.role == "unrecognized"]
        if not words:
            continue
        text = norm[start:end]
        if _RATIONALE.match(text):
            continue
        instructed = (introduced
                      or any((sp.text in instructions or singular(sp.text) in instructions)
                             and not _SOFTWARE_OBJECT.match(norm, sp.end) for sp in inside)
                      or any(is_cjk(w) and w in text for w in instructions))
        if instructed:
            out.append(tuple(words))
    return tuple(out)


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

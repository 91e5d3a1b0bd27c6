"""The Operation Semantic Index: every alias of the knowledge base, normalised once.

Terms come from the knowledge (labels, ids and `aliases` of operations,
datatypes, constraints, tools, motifs, output formats), so a domain expert
extends what bioplan understands by editing YAML, never code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from bioplan.knowledge.models import Aliases, Knowledge
from bioplan.knowledge.words import is_cjk, normalize, singular
from bioplan.models import MatchKind

__all__ = ["Term", "absent_tool_matches", "alias_index", "build_terms", "find_aliases", "is_cjk", "lexicon_words",
           "normalize", "singular", "unsupported_analysis_matches"]


@dataclass(frozen=True)
class Term:
    kind: MatchKind  # operation | datatype | constraint | tool | format | motif
    id: str
    alias: str  # normalised
    weight: float  # longer / more specific aliases win ties


def _aliases(label: str | None, ident: str, aliases: Aliases, extra: tuple[str, ...] = ()) -> list[str]:
    words = [ident.replace("_", " ")]
    if label:
        words.append(label)
    words += list(aliases.en) + list(aliases.zh) + list(extra)
    return words


_TERMS: dict[str, tuple[Term, ...]] = {}


def build_terms(knowledge: Knowledge) -> tuple[Term, ...]:
    """All terms of the knowledge, longest alias first (memoised per knowledge content hash)."""
    if knowledge.content_hash not in _TERMS:
        _TERMS[knowledge.content_hash] = _build_terms(knowledge)
    return _TERMS[knowledge.content_hash]


def _build_terms(knowledge: Knowledge) -> tuple[Term, ...]:
    raw: list[tuple[MatchKind, str, str]] = []
    for op in knowledge.operations.values():
        raw += [("operation", op.id, a) for a in _aliases(op.label, op.id, op.aliases)]
    for dt in knowledge.datatypes.values():
        raw += [("datatype", dt.id, a) for a in _aliases(dt.label, dt.id, dt.aliases)]
    for con in knowledge.constraints.values():
        extra = tuple(con.genome_builds) + ((con.scientific_name,) if con.scientific_name else ())
        raw += [("constraint", con.id, a) for a in _aliases(con.label if con.kind != "data" else None, con.id,
                                                             con.aliases, extra)]
    for tool in knowledge.tools.values():
        # the package name (bio.tools id) names every tool of the package: "STAR index" and
        # "(SAMtools)" beside an operation name the package's tool for that operation
        package = (tool.biotools.replace("_", " "),) if tool.biotools else ()
        raw += [("tool", tool.id, a) for a in _aliases(tool.name, tool.id, tool.aliases, package)]
    for fmt in knowledge.lexicon.output_formats:
        raw += [("format", fmt.id, a) for a in list(fmt.aliases.en) + list(fmt.aliases.zh)]
    terms: dict[tuple[str, str, str], Term] = {}
    for kind, ident, alias in raw:
        norm = normalize(alias)
        if not norm or (len(norm) < 2 and not is_cjk(norm)):
            continue
        key = (kind, ident, norm)
        terms[key] = Term(kind, ident, norm, float(len(norm)))
    return tuple(sorted(terms.values(), key=lambda t: (-t.weight, t.kind, t.id, t.alias)))


_INDEX: dict[str, dict[str, list[Term]]] = {}


def alias_index(knowledge: Knowledge) -> dict[str, list[Term]]:
    """Aliases keyed by their first word (Latin) or first character (Chinese).

    Matching walks the request's word starts and Chinese characters and tries only the
    aliases that can start there, instead of running thousands of regular expressions:
    the first request of a process costs a dictionary build, not a regex compilation.
    """
    if knowledge.content_hash not in _INDEX:
        index: dict[str, list[Term]] = {}
        for term in build_terms(knowledge):
            key = term.alias[0] if is_cjk(term.alias[0]) else re.split(r"[^a-z0-9]", term.alias, maxsplit=1)[0]
            index.setdefault(key or term.alias[0], []).append(term)
        _INDEX[knowledge.content_hash] = index
    return _INDEX[knowledge.content_hash]


def find_aliases(norm: str, knowledge: Knowledge) -> list[tuple[int, int, Term]]:
    """Every (start, end, term) where an alias occurs in the normalised text.

    Latin aliases match whole words (an optional plural s/es), Chinese aliases anywhere.
    """
    index = alias_index(knowledge)
    found: list[tuple[int, int, Term]] = []
    n = len(norm)
    for i, ch in enumerate(norm):
        if is_cjk(ch):
            for term in index.get(ch, ()):
                if norm.startswith(term.alias, i):
                    found.append((i, i + len(term.alias), term))
            continue
        if not (ch.isalnum() and ch.isascii()) or (i > 0 and norm[i - 1].isascii() and norm[i - 1].isalnum()):
            continue
        word = re.match(r"[a-z0-9]+", norm[i:])
        if not word:
            continue
        for term in index.get(word.group(0), ()):
            alias = term.alias
            if is_cjk(alias[0]) or not norm.startswith(alias, i):
                continue
            end = i + len(alias)
            for suffix in ("", "s", "es"):
                e = end + len(suffix)
                if norm.startswith(suffix, end) and (e >= n or not (norm[e].isascii() and norm[e].isalnum())):
                    found.append((i, e, term))
                    break
    return found


# --------------------------------------------------------------------------- honesty lists

_WORDS: dict[tuple[str, str], frozenset[str]] = {}


def lexicon_words(knowledge: Knowledge, section: str) -> frozenset[str]:
    """The normalised words of a word list of the lexicon (filler, group_words, instruction_words)."""
    key = (knowledge.content_hash, section)
    if key not in _WORDS:
        aliases: Aliases = getattr(knowledge.lexicon, section)
        _WORDS[key] = frozenset(normalize(w) for w in (*aliases.en, *aliases.zh) if normalize(w))
    return _WORDS[key]


@cache
def _word_pattern(alias: str) -> re.Pattern:
    body = re.escape(alias).replace(r"\ ", r"\s+")
    if is_cjk(alias):
        return re.compile(body)
    return re.compile(rf"(?<![a-z0-9]){body}(?:e?s)?(?![a-z0-9])")


_ABSENT: dict[str, tuple[tuple[str, str], ...]] = {}


def _absent_words(knowledge: Knowledge) -> tuple[tuple[str, str], ...]:
    """(normalised name or alias, absent tool id), in matching priority order."""
    if knowledge.content_hash not in _ABSENT:
        out = []
        for tool in knowledge.lexicon.absent_tools:
            words = {normalize(a) for a in (tool.name, tool.id.replace("_", " "), *tool.aliases.en, *tool.aliases.zh)}
            # longest first, so "gatk haplotypecaller" wins over "gatk"
            out += [(w, tool.id) for w in sorted(words, key=lambda w: (-len(w), w)) if w]
        _ABSENT[knowledge.content_hash] = tuple(out)
    return _ABSENT[knowledge.content_hash]


def absent_tool_matches(norm: str, knowledge: Knowledge) -> list[tuple[int, int, str]]:
    """(start, end, absent tool id) of every non-overlapping mention of a tool the knowledge lacks."""
    found: list[tuple[int, int, str]] = []
    for word, tool_id in _absent_words(knowledge):
        # a match contains the word's first token verbatim: skip (and never compile) the hundreds of
        # patterns whose token is absent -- compiling them all cost ~30 ms of every request
        if word.split()[0] not in norm:
            continue
        for m in _word_pattern(word).finditer(norm):
            if not any(m.start() < e and s < m.end() for s, e, _ in found):
                found.append((m.start(), m.end(), tool_id))
    return sorted(found)


def unsupported_analysis_matches(norm: str, knowledge: Knowledge) -> list[tuple[int, int, str]]:
    """(start, end, family id) of every mention of an analysis family bioplan does not do.

    A family whose operations the knowledge now has is supported and never reported.
    """
    found: list[tuple[int, int, str]] = []
    for family in knowledge.lexicon.unsupported_analyses:
        if any(op in knowledge.operations for op in family.operations):
            continue
        for pattern in family.patterns:
            compiled = re.compile(pattern)
            group = "m" if "m" in compiled.groupindex else 0
            for m in compiled.finditer(norm):
                start, end = m.span(group)
                if start < 0:
                    start, end = m.span(0)
                if end > start:
                    found.append((start, end, family.id))
    return sorted(set(found))

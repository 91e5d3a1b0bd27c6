"""The Operation Semantic Index: every alias of the knowledge base, normalised once.

Terms come from the knowledge (labels, ids and `aliases` of operations,
datatypes, constraints, tools, motifs, output formats), so a domain expert
extends what bioplan understands by editing YAML, never code.
"""

from __future__ import annotations

import importlib
import re
import sys
from array import array
from dataclasses import dataclass, field
from functools import cache
from types import ModuleType
from typing import Any, NamedTuple

from bioplan.cache import Memo
from bioplan.knowledge.models import Aliases, Knowledge
from bioplan.knowledge.words import is_cjk, normalize, singular
from bioplan.models import MatchKind

__all__ = ["TYPO_MIN_WORD", "Term", "absent_tool_matches", "alias_index", "build_terms", "find_aliases", "is_cjk",
           "lexicon_index", "lexicon_matcher", "lexicon_pattern", "lexicon_words", "normalize", "required_literals",
           "singular",
           "unsupported_analysis_matches", "setting_matches"]


class Term(NamedTuple):
    """One alias of the knowledge. A named tuple, not a frozen dataclass: the disk-cached index holds
    ~5,000 of them, and a tuple unpickles from its fields alone where a dataclass instance needs its
    own attribute dict (~5 ms of every request; only the fields are ever read)."""

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


def build_terms(knowledge: Knowledge) -> tuple[Term, ...]:
    """All terms of the knowledge, longest alias first (`lexicon_index`)."""
    return lexicon_index(knowledge).terms


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
    for motif in knowledge.motifs.values():  # a pipeline named by its name ("GATK best practices")
        raw += [("motif", motif.id, a) for a in list(motif.aliases.en) + list(motif.aliases.zh)]
    terms: dict[tuple[str, str, str], Term] = {}
    for kind, ident, alias in raw:
        norm = normalize(alias)
        if not norm or (len(norm) < 2 and not is_cjk(norm)):
            continue
        key = (kind, ident, norm)
        terms[key] = Term(kind, ident, norm, float(len(norm)))
    return tuple(sorted(terms.values(), key=lambda t: (-t.weight, t.kind, t.id, t.alias)))


def alias_index(knowledge: Knowledge) -> dict[str, list[Term]]:
    """Aliases keyed by their first word (Latin) or first character (Chinese) (`lexicon_index`).

    Matching walks the request's word starts and Chinese characters and tries only the
    aliases that can start there, instead of running thousands of regular expressions.
    """
    return lexicon_index(knowledge).by_start


def _by_start(terms: tuple[Term, ...]) -> dict[str, list[Term]]:
    index: dict[str, list[Term]] = {}
    for term in terms:
        key = term.alias[0] if _starts_anywhere(term.alias[0]) else re.split(r"[^a-z0-9]", term.alias, maxsplit=1)[0]
        index.setdefault(key or term.alias[0], []).append(term)
    return index


def _starts_anywhere(ch: str) -> bool:
    """A character an alias may start at inside a word: a CJK ideograph, Japanese kana or Korean Hangul (written
    without spaces between words: "シングルセルRNA-seq解析", "단일세포"; kana and Hangul are no ideographs)."""
    return not ch.isascii() and (is_cjk(ch) or "\u3040" <= ch <= "\u30ff" or "\uac00" <= ch <= "\ud7af")


def find_aliases(norm: str, knowledge: Knowledge) -> list[tuple[int, int, Term]]:
    """Every (start, end, term) where an alias occurs in the normalised text.

    Latin aliases match whole words (an optional plural s/es; the Greek plural of a last word in -sis, "association
    analyses"), Chinese aliases anywhere.
    """
    index = alias_index(knowledge)
    found: list[tuple[int, int, Term]] = []
    n = len(norm)
    for i, ch in enumerate(norm):
        if _starts_anywhere(ch):
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
            if is_cjk(alias[0]):
                continue
            end = i + len(alias)
            if not norm.startswith(alias, i):
                if alias.endswith("sis") and norm.startswith(alias[:-2] + "es", i) and (
                        end >= n or not (norm[end].isascii() and norm[end].isalnum())):
                    found.append((i, end, term))
                continue
            for suffix in ("", "s", "es"):
                e = end + len(suffix)
                if norm.startswith(suffix, end) and (e >= n or not (norm[e].isascii() and norm[e].isalnum())):
                    found.append((i, e, term))
                    break
    return found


# --------------------------------------------------------------------------- honesty lists

def lexicon_words(knowledge: Knowledge, section: str) -> frozenset[str]:
    """The normalised words of a word list of the lexicon (filler, group_words, instruction_words)."""
    return lexicon_index(knowledge).words[section]


def _word_lists(knowledge: Knowledge) -> dict[str, frozenset[str]]:
    """Every word list (an `Aliases` field) of the lexicon, normalised."""
    out = {}
    for section in type(knowledge.lexicon).model_fields:
        aliases = getattr(knowledge.lexicon, section)
        if isinstance(aliases, Aliases):
            out[section] = frozenset(n for n in (normalize(w) for w in (*aliases.en, *aliases.zh)) if n)
    return out


@cache
def _word_pattern(alias: str) -> re.Pattern:
    body = re.escape(alias).replace(r"\ ", r"\s+")
    if is_cjk(alias):
        return re.compile(body)
    return re.compile(rf"(?<![a-z0-9]){body}(?:e?s)?(?![a-z0-9])")


_ABSENT: dict[str, tuple[tuple[str, str, str], ...]] = {}


def _absent_words(knowledge: Knowledge) -> tuple[tuple[str, str, str], ...]:
    """(normalised name or alias, its first word, absent tool id), in matching priority order."""
    if knowledge.content_hash not in _ABSENT:
        out = []
        for tool in knowledge.lexicon.absent_tools:
            words = {normalize(a) for a in (tool.name, tool.id.replace("_", " "), *tool.aliases.en, *tool.aliases.zh)}
            # longest first, so "gatk haplotypecaller" wins over "gatk"
            out += [(w, tool.id) for w in sorted(words, key=lambda w: (-len(w), w)) if w]
        # and longest first across tools: "diamond blastp" (DIAMOND's mode) wins over BLAST's "blastp"
        out.sort(key=lambda pair: -len(pair[0]))
        _ABSENT[knowledge.content_hash] = tuple((w, w.split()[0], tool_id) for w, tool_id in out)
    return _ABSENT[knowledge.content_hash]


# where a name is a tool's: after an instruction to run one, or before the kind of program it is
_TOOL_BEFORE = re.compile(r"\b(with|using|via|run|runs|running|ran|use|uses|used|tools?|software|programs?|packages?|"
                          r"such as|like|e g|or|and)\s+(the\s+)?$|(用|使用|采用|利用|、)\s*$")
_TOOL_AFTER = re.compile(r"^(\s+v?\d[\w.]*)?\s*(\(\s*(v(ersion)?\s*)?\d|\b(aligners?|alignments?|to align|algorithm|"
                         r"software|program|tool|package|was|were|is)\b|、|等|进行|比对|对齐)")


def _in_tool_context(norm: str, start: int, end: int) -> bool:
    return bool(_TOOL_BEFORE.search(norm[max(0, start - 40):start]) or _TOOL_AFTER.match(norm[end:end + 40]))


def absent_tool_matches(norm: str, knowledge: Knowledge) -> list[tuple[int, int, str]]:
    """(start, end, absent tool id) of every non-overlapping mention of a tool the knowledge lacks. A name that
    is also a word of a study's design (`group_words`: "muscle", a tissue) is the tool only where a tool is
    named (`_in_tool_context`): "airway smooth muscle cells" names no aligner, "aligned with MUSCLE" does."""
    found: list[tuple[int, int, str]] = []
    design_words = lexicon_words(knowledge, "group_words")
    for word, first, tool_id in _absent_words(knowledge):
        # a match contains the word's first token verbatim: skip (and never compile) the hundreds of
        # patterns whose token is absent -- compiling them all cost ~30 ms of every request
        if first not in norm:
            continue
        for m in _word_pattern(word).finditer(norm):
            if word in design_words and not _in_tool_context(norm, m.start(), m.end()):
                continue
            if not any(m.start() < e and s < m.end() for s, e, _ in found):
                found.append((m.start(), m.end(), tool_id))
    return sorted(found)


# the families bioplan lacks, by knowledge (tests build many knowledge bases in one process)
_FAMILIES: Memo[str, list[tuple[str, tuple[str, ...]]]] = Memo(8)


def unsupported_analysis_matches(norm: str, knowledge: Knowledge) -> list[tuple[int, int, str]]:
    """(start, end, family id) of every mention of an analysis family bioplan does not do.

    A family whose operations the knowledge now has is supported and never reported.
    """
    hit = _FAMILIES.get(knowledge.content_hash)
    if hit is None:
        hit = _FAMILIES.keep(knowledge.content_hash, [
            (f.id, f.patterns) for f in knowledge.lexicon.unsupported_analyses
            if not any(op in knowledge.operations for op in f.operations)])
    return _entry_matches(norm, knowledge, hit)



def setting_matches(norm: str, knowledge: Knowledge) -> list[tuple[int, int, str]]:
    """(start, end, setting id) of every setting the request gives (a threshold, strandedness, ...)."""
    return _entry_matches(norm, knowledge, [(s.id, s.patterns) for s in knowledge.lexicon.settings])


def _entry_matches(norm: str, knowledge: Knowledge,
                   entries: list[tuple[str, tuple[str, ...]]]) -> list[tuple[int, int, str]]:
    found: list[tuple[int, int, str]] = []
    matcher = lexicon_matcher(norm, knowledge)
    passing, known = matcher.passing, matcher.known
    for entry_id, patterns in entries:
        for pattern in patterns:
            if pattern not in passing and pattern in known:
                continue  # cannot match (`LexiconMatcher`)
            compiled = matcher(pattern)
            if compiled is None:
                continue
            group = "m" if "m" in compiled.groupindex else 0
            for m in compiled.finditer(norm):
                start, end = m.span(group)
                if start < 0:
                    start, end = m.span(0)
                if end > start:
                    found.append((start, end, entry_id))
    return sorted(set(found))


# --------------------------------------------------------------------------- pattern prefilter
# The lexicon holds a few hundred regular expressions (intent phrases, analysis families).
# Compiling them all cost ~45 ms of every request, and most cannot match the request at all: each
# needs one of a few literal strings ("gene", "pathway", "融合基因"). Those strings are read from
# the parsed pattern once per knowledge (cached on disk beside it); a pattern is compiled, once
# per process, only for a text that contains one of them.

# A pattern's triggers: sets of strings such that every text the pattern matches holds a string of
# each set. Empty when no such set was found: the pattern is then always compiled and run.
Triggers = tuple[frozenset[str], ...]
_IGNORE_CASE_FLAG = re.compile(r"\(\?[a-zA-Z]*i")


def required_literals(pattern: str) -> Triggers:
    """The triggers of `pattern` (lower-cased for a pattern with the ignore-case flag), from the
    parsed pattern: each run of literal characters in sequence is one set, and so is each required
    alternation (the union of one set of each branch). Empty if Python's regular expression parser
    (a private module) cannot be read."""
    try:
        sre_constants = importlib.import_module("re._constants")
        parsed = importlib.import_module("re._parser").parse(pattern)
        found = _sequence_requirements(list(parsed), sre_constants)
    except Exception:  # another Python's parser or an invalid pattern: no prefilter, same result
        return ()
    if parsed.state.flags & re.IGNORECASE or _IGNORE_CASE_FLAG.search(pattern):
        found = [frozenset(t.lower() for t in needed) for needed in found]
    return tuple(dict.fromkeys(found))


def _sequence_requirements(items: list, c: ModuleType) -> list[frozenset[str]]:
    """Every required set of a sequence of parsed items: its literal runs, and the requirements of
    its groups, alternations and repetitions of at least one."""
    out: list[frozenset[str]] = []
    run: list[str] = []
    for op, av in items:
        if op == c.LITERAL:
            run.append(chr(av))
            continue
        if run:
            out.append(frozenset({"".join(run)}))
            run = []
        if op == c.SUBPATTERN:
            out += _sequence_requirements(list(av[3]), c)
        elif op == c.BRANCH:
            out += _branch_requirement(av[1], c)
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and av[0] >= 1:
            out += _sequence_requirements(list(av[2]), c)
        elif op == c.ATOMIC_GROUP:
            out += _sequence_requirements(list(av), c)
    if run:
        out.append(frozenset({"".join(run)}))
    return out


def _branch_requirement(branches: list, c: ModuleType) -> list[frozenset[str]]:
    """One set for an alternation: the union of the most selective set of each branch; none if a
    branch has no required string (it can match anything)."""
    union: set[str] = set()
    for branch in branches:
        found = _sequence_requirements(list(branch), c)
        if not found:
            return []
        # the longest shortest string is the rarest; fewer alternatives break ties
        union |= max(found, key=lambda t: (min(map(len, t)), -len(t)))
    return [frozenset(union)]


def pattern_triggers(knowledge: Knowledge) -> dict[str, Triggers]:
    """Pattern -> its triggers, for every intent phrase and analysis-family pattern (`lexicon_index`)."""
    return lexicon_index(knowledge).triggers


TYPO_MIN_WORD = 5  # shorter words are never corrected as typos of a phrase's words


def _phrase_vocabulary(knowledge: Knowledge, terms: tuple[Term, ...]) -> tuple[str, ...]:
    """Latin words (5+ letters) of the aliases and of the literal text of the intent phrases: the
    words a typo inside an intent phrase ("anotate the varaints") may stand for."""
    words: set[str] = set()
    for term in terms:
        if not is_cjk(term.alias):
            words.update(w for w in re.findall(r"[a-z]+", term.alias) if len(w) >= TYPO_MIN_WORD)
    for rule in knowledge.lexicon.phrases:
        # literal words of the pattern, not its escapes (\bword, \w*): strip backslash-letter pairs
        literal = re.sub(r"\\[a-zA-Z]", " ", rule.pattern)
        words.update(w for w in re.findall(r"[a-z]+", literal) if len(w) >= TYPO_MIN_WORD)
    return tuple(sorted(words))


def _triggers(knowledge: Knowledge) -> dict[str, Triggers]:
    patterns = [rule.pattern for rule in knowledge.lexicon.phrases]
    patterns += [p for family in knowledge.lexicon.unsupported_analyses for p in family.patterns]
    patterns += [p for setting in knowledge.lexicon.settings for p in setting.patterns]
    return {p: required_literals(p) for p in dict.fromkeys(patterns)}


# --------------------------------------------------------------------------- the cached index


@dataclass(frozen=True)
class LexiconIndex:
    """What matching a request needs from the knowledge, built once per knowledge."""

    content_hash: str
    terms: tuple[Term, ...]  # every alias, longest first
    by_start: dict[str, list[Term]]  # aliases by first word (Latin) or first character (Chinese)
    triggers: dict[str, Triggers]  # lexicon pattern -> its triggers
    words: dict[str, frozenset[str]]  # word list of the lexicon (filler, group_words, ...) -> its words
    vocabulary: tuple[str, ...]  # the words a typo inside an intent phrase may stand for, sorted
    latin_terms: tuple[Term, ...] = ()  # the aliases without a CJK ideograph, longest first
    # lexicon pattern -> its compiled program (`_program`), for an index cached on disk
    programs: dict[str, tuple[int, bytes, int, dict[str, int], tuple[str | None, ...]]] = field(default_factory=dict)


# The code that builds the index: part of its cache key, with the Python version (its regular
# expression parser reads the triggers, and `normalize` its Unicode tables).
LEXICON_CODE = ("bioplan.request.lexicon", "bioplan.knowledge.words")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_LEXICON: dict[str, LexiconIndex] = {}


def lexicon_index(knowledge: Knowledge) -> LexiconIndex:
    """The knowledge's LexiconIndex: memoised per content hash, and cached on disk for knowledge
    loaded from files (a content hash that is a sha256), so a request process normalises no
    alias and parses no pattern."""
    hit = _LEXICON.get(knowledge.content_hash)
    if hit is not None:
        return hit
    from bioplan import cache as disk_cache

    key = None
    if _SHA256.fullmatch(knowledge.content_hash):
        key = disk_cache.content_key([knowledge.content_hash.encode(), sys.version.encode(),
                                      disk_cache.source_fingerprint(LEXICON_CODE).encode()])
        cached = disk_cache.read("lexicon", key, LexiconIndex)
        if cached is not None and cached.content_hash == knowledge.content_hash:
            _LEXICON[knowledge.content_hash] = cached
            return cached
    terms = _build_terms(knowledge)
    triggers = _triggers(knowledge)
    # the compiled programs only where they are kept (on disk): compiling all ~260 patterns costs ~45 ms
    programs = {p: prog for p in triggers if (prog := _program(p)) is not None} if key is not None else {}
    index = LexiconIndex(knowledge.content_hash, terms, _by_start(terms), triggers, _word_lists(knowledge),
                         _phrase_vocabulary(knowledge, terms), tuple(t for t in terms if not is_cjk(t.alias)), programs)
    _LEXICON[knowledge.content_hash] = index
    if key is not None:
        disk_cache.write("lexicon", key, index)
    return index


# Compiling a pattern (sre's parser and code generator, in Python) cost 12-15 ms of every plan for
# the ~20 lexicon patterns a request triggers, and `re` keeps nothing across processes. The lexicon
# index cached on disk keeps each pattern's compiled program, the arguments `re.compile` hands to
# sre's C constructor (`_sre.compile`); a request process builds a pattern from its program
# (~10 us). A program is kept only when the pattern built from it equals `re.compile`'s (same
# flags and code); the cache key holds the Python version, and sre validates every program it is
# given. Another Python, or anything unexpected, falls back to `re.compile`: the same pattern.
_PATTERNS: dict[str, re.Pattern[str]] = {}


def _program(pattern: str) -> tuple[int, bytes, int, dict[str, int], tuple[str | None, ...]] | None:
    """(flags, code, groups, group index, index group) of `pattern` as `re.compile` computes them."""
    try:
        parser = importlib.import_module("re._parser")
        compiler = importlib.import_module("re._compiler")
        parsed = parser.parse(pattern, 0)
        code = compiler._code(parsed, 0)
        groupindex = dict(parsed.state.groupdict)
        indexgroup: list[str | None] = [None] * parsed.state.groups
        for name, i in groupindex.items():
            indexgroup[i] = name
        program = (parsed.state.flags, array("I", code).tobytes(), parsed.state.groups - 1, groupindex,
                   tuple(indexgroup))
        return program if _from_program(pattern, program) == re.compile(pattern) else None
    except Exception:  # another Python's sre: no program, `re.compile` as before
        return None


def _from_program(pattern: str, program: tuple[int, bytes, int, dict[str, int], tuple[str | None, ...]]) \
        -> re.Pattern[str]:
    flags, code, groups, groupindex, indexgroup = program
    sre: Any = importlib.import_module("_sre")
    return sre.compile(pattern, flags, array("I", code).tolist(), groups, groupindex, indexgroup)


def _compiled(pattern: str, knowledge: Knowledge) -> re.Pattern[str]:
    hit = _PATTERNS.get(pattern)
    if hit is None:
        program = lexicon_index(knowledge).programs.get(pattern)
        try:
            hit = _from_program(pattern, program) if program is not None else re.compile(pattern)
        except Exception:  # a program sre refuses: compiled from the pattern
            hit = re.compile(pattern)
        _PATTERNS[pattern] = hit
    return hit


def lexicon_pattern(pattern: str, text: str, knowledge: Knowledge) -> re.Pattern[str] | None:
    """The compiled `pattern` of the lexicon, or None when it cannot match `text` (a set of its
    triggers has no string in it): the pattern is then neither compiled nor run."""
    return lexicon_matcher(text, knowledge)(pattern)


def lexicon_matcher(text: str, knowledge: Knowledge) -> LexiconMatcher:
    """`lexicon_pattern` for one text: the triggers of every pattern of the index are tested once per text
    (`_passing`), so a caller asking for hundreds of patterns looks each up instead of testing it again."""
    return LexiconMatcher(text, knowledge)


class LexiconMatcher:
    """`lexicon_pattern(pattern, text, knowledge)` as `matcher(pattern)` for one text; a caller running through
    many patterns skips, without a call, each one `passing` lacks that the index knows (`known`): it cannot match."""

    __slots__ = ("known", "passing", "_knowledge", "_text")

    def __init__(self, text: str, knowledge: Knowledge) -> None:
        index = lexicon_index(knowledge)
        self._text, self._knowledge = text, knowledge
        self.passing = _passing(text, index)
        self.known = index.triggers

    def __call__(self, pattern: str) -> re.Pattern[str] | None:
        if pattern in self.passing:
            return _compiled(pattern, self._knowledge)
        if pattern in self.known:
            return None
        # a pattern the index lacks: its triggers read now
        triggers = required_literals(pattern)
        lowered = self._text.lower()
        if triggers and not all(any(t in lowered for t in needed) for needed in triggers):
            return None
        return _compiled(pattern, self._knowledge)


class _Prefilter(NamedTuple):
    """An index's triggers arranged to test a text once: the trigger strings of fewer than three characters,
    the others by their first three, each gated pattern (with its triggers) under every string of its key set
    (the set of its rarest string: one of its sets, so a pattern none of whose key strings is in a text cannot
    match it), and the patterns without triggers (always run)."""

    short: tuple[str, ...]
    by_prefix: dict[str, tuple[str, ...]]
    by_key: dict[str, tuple[tuple[str, Triggers], ...]]
    always: frozenset[str]


_PREFILTERS: Memo[str, _Prefilter] = Memo(8)  # tests build many knowledge bases in one process
_PASSING_MAX = 64  # texts remembered: a parse asks about ~4 (the request, with its context, typo-corrected)
_PASSING: Memo[tuple[str, str], frozenset[str]] = Memo(_PASSING_MAX, oldest_first=True)


def _prefilter(index: LexiconIndex) -> _Prefilter:
    hit = _PREFILTERS.get(index.content_hash)
    if hit is None:
        strings = sorted({t for triggers in index.triggers.values() for needed in triggers for t in needed})
        by_prefix: dict[str, list[str]] = {}
        for t in strings:
            if len(t) >= 3:
                by_prefix.setdefault(t[:3], []).append(t)
        by_key: dict[str, list[tuple[str, Triggers]]] = {}
        for pattern, triggers in index.triggers.items():
            key = max(triggers, key=lambda needed: (min(map(len, needed)), -len(needed)), default=frozenset())
            for t in sorted(key):
                by_key.setdefault(t, []).append((pattern, triggers))
        hit = _Prefilter(tuple(t for t in strings if len(t) < 3), {k: tuple(v) for k, v in by_prefix.items()},
                         {k: tuple(v) for k, v in by_key.items()},
                         frozenset(p for p, t in index.triggers.items() if not t))
        _PREFILTERS.keep(index.content_hash, hit)
    return hit


def _passing(text: str, index: LexiconIndex) -> frozenset[str]:
    """The patterns of the index that may match `text`: each set of their triggers has a string in the
    lower-cased text (the test `lexicon_pattern` made of each pattern, here made once per text: a string of
    three or more characters is looked for only where the text holds its first three)."""
    key = (index.content_hash, text)
    hit = _PASSING.get(key)
    if hit is None:
        pre = _prefilter(index)
        lowered = text.lower()
        present = {t for t in pre.short if t in lowered}
        for prefix in {lowered[i:i + 3] for i in range(len(lowered) - 2)}:
            present.update(t for t in pre.by_prefix.get(prefix, ()) if t in lowered)
        hit = pre.always | {pattern for t in present for pattern, triggers in pre.by_key.get(t, ())
                            if all(not present.isdisjoint(needed) for needed in triggers)}
        _PASSING.keep(key, hit)
    return hit

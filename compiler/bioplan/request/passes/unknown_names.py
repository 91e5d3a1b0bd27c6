"""Tool-like names the knowledge does not know ("DiffChIPL", "BS-SNPer", "hisat3n", "PEHaplo").

A tool the lexicon knows of but bioplan lacks is `absent_tools` (refused by `honesty.refuse_absent_tools`);
this pass catches the others: a word nothing of the knowledge matched (`unrecognized` in the parse's word
accounting) that sits where a tool is named and is shaped like a tool's name. Without this the request
was planned with bioplan's own tools and the user never told that their tool was not used.

Position (any one): after "with/using/via/run/use/through" (and Romance, German and Chinese
equivalents; after "with" a step earlier in the clause, else only a name with a capital or digit inside),
"X: a ... method", "the X tool/package/software", in parentheses after a step ("... QC (ataqv)"), before
"for" a step ("HmmUFOtu for OTU clustering", a name with a capital or digit inside only), or listed beside a
tool ("X, Y and Z", "X/Y"). Shape: case changing inside the word (DiffChIPL, PEHaplo,
scVelo), letters with digits (Bowtie2, hisat3n), a hyphenated name with capitals (BS-SNPer), a
capitalised word that does not start a sentence (see `_tool_shaped`).
Never: gene symbols beside gene words, the inputs' sample, condition and file names, units, accession
ids, kits, chemistries and sequencers, molecule words (mRNA, eQTL, CpG, SNPs), histone marks, a name
before "cells"/"reads"/"output", a tool of the inputs' history ("which were deduplicated with X").
Said, not refused: a name offered as an alternative ("STAR or hisat3n"), one named beside a tool bioplan
has in one pair of parentheses (a deviation), a database ("the FooDB database": a warning, not used).

Every pattern is compiled once, at import; the pass costs a scan of the request's words.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, replace

from bioplan.errors import UnknownToolError
from bioplan.knowledge.words import normalize
from bioplan.models import Request, SniffedFile
from bioplan.request.passes.draft import SpecDraft
from bioplan.request.text import plain_request

# a name as written: letters first, then letters/digits, parts joined by - _ . + (not a trailing dot)
# a name is whole: an accented Latin letter continues a word ("Naïve" is no tool 'Na', "séquences" no 'quences')
_TOKEN = re.compile(r"(?<![A-Za-z0-9_.\-\u00c0-\u024f])[A-Za-z][A-Za-z0-9]*(?:[-_.+][A-Za-z0-9]+)*"
                    r"(?![A-Za-z0-9_\-\u00c0-\u024f])")
# the words before a name that say a tool runs
_BEFORE = re.compile(
    r"(?:\b(?:with|using|use|uses|used|via|through|run|runs|running|employing|utili[sz]ing|usando|utilizando"
    r"|mediante|con|com|avec|mit|par|utilisant)\s+(?:(?:the|a|an|our|my|their|in-house|custom)\s+)*"
    r"(?:(?:tool|package|program|software|pipeline|script|method|algorithm)s?\s+)?"
    r"|(?:用|使用|采用|利用|通过|借助)\s*)$", re.IGNORECASE)
_WITH_BY = re.compile(r"\b(?:with|con|com|avec|mit|par)\s+(?:(?:the|a|an|our|my|their)\s+)*$", re.IGNORECASE)
_KIND_AFTER = re.compile(r"\s+(?:(?:r|python|perl|java|bioconductor|cran|pypi|command-line|in-house)\s+)?"
                         r"(?:tool|package|software|program|script|module)s?\b",
                         re.IGNORECASE)
# "DiffChIPL: a differential peak analysis method ..." (a paper's or README's title)
_TITLE_AFTER = re.compile(r"\s*:\s+(?:an?|the)\s+[^.:;!?]{0,100}?\b(?:method|tool|package|pipeline|software|framework|"
                          r"algorithm|approach|toolkit|program)s?\b", re.IGNORECASE)
# a name described as a tool or as what a tool does, the subject of its sentence: "PatternCNV is a versatile tool
# to ...", "exactSNP outputs a VCF", "The input to exactSNP includes a SAM/BAM file" (a tool's page or README)
_IS_A_AFTER = re.compile(r"\s+(?:is|was)\s+(?:an?|the)\s+(?:[\w-]+\s+){0,4}?(?:tool|package|software|program|pipeline|"
                         r"algorithm|toolkit|framework|caller|aligner|library|utility)s?\b", re.IGNORECASE)
_ACTS_AFTER = re.compile(r"\s+(?:outputs|reports|writes|produces|generates|detects|calls|takes|accepts|reads)\s+"
                         r"(?:an?|the|one|all|its|each)?\s*(?:[\w/-]+\s+){0,2}?(?:files?|formats?|vcf|bam|sam|bed|"
                         r"tables?|reports?|snps?|variants?|peaks?|reads|output)\b", re.IGNORECASE)
_INPUT_TO = re.compile(r"(?i)\b(?:inputs?|outputs?|options?|parameters?)\s+(?:to|of|from)\s+$")
# a name for a step, in a list of what a pipeline integrates: "FastP for read trimming, HmmUFOtu for operational
# taxonomic units (OTU) clustering, Vsearch for chimera checking" (a paper's abstract)
_FOR_STEP = re.compile(r"\s+for\s+(?:the\s+)?", re.IGNORECASE)
_FOR_STEP_REACH = 48  # characters after "for" a step's words start within
_DB_AFTER = re.compile(r"\s+(?:reference\s+)?(?:database|databases|db|atlas|catalog|catalogue|collection|"
                       r"panel|resource|repository|archive|portal|browser)\b", re.IGNORECASE)
_DB_SHAPE = re.compile(r"(?i)(?<=..)db$|^db[a-z]|(?<=..)base$|^(?:gnomad|clinvar|cosmic|uniprot|pfam|interpro|silva|"
                       r"unite|greengenes|gtdb|ncbi|refseq|genbank|ensembl|gencode|ucsc|kegg|reactome|msigdb|wikipathways|"
                       r"encode|gtex|tcga|icgc|geo|sra|ena|ddbj|arrayexpress|eggnog|card|vfdb|rfam|mirbase|"
                       r"dfam|repbase|jaspar|hocomoco|cellmarker|panglaodb|hpa|omim|hgmd|orphanet|pharmgkb)$")
# "(a, b and c)" right after a word: the names a step ran with
_PAREN = re.compile(r"\w[^\w(]*\(([^()]{1,120})\)")
_PAREN_ITEMS = re.compile(r"\s*(?:,|;|/|\band\b|\bor\b|&|\+)\s*", re.IGNORECASE)
# a German noun, capitalised by the grammar, by its suffix ("Differentielle Ausdrucksanalyse (Statistik)",
# "(Normalisierung)", "(Qualitätskontrolle)"): in parentheses after a step it glosses the step, it names no tool
_GERMAN_NOUN = re.compile(r"[A-ZÄÖÜ][a-zäöüß]+(?:ik|ung|ungen|ierung|ität|analyse|analysen|kontrolle|verfahren)")
_LIST_GAP = re.compile(r"\s*(?:,\s*(?:and\s+|or\s+)?|/|\s(?:and|or|&|und|et|y|e)\s)\s*", re.IGNORECASE)
# shapes of a tool's name
_MIXED = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
_ALNUM = re.compile(r"(?=.*[A-Za-z]{2})(?=.*\d)")
# molecule, assay and data words with capitals inside: mRNA, scRNA, eQTL(s), hESC, SNPs, UMIs, InDels (a longer
# lower-case head before capitals is a tool's name unless the capitals are RNA/DNA: exactSNP, not nascentRNA)
_MOLECULE = re.compile(r"[a-z]{1,4}[A-Z]{2,}s?|[a-z]{5,6}(?:RNA|DNA)s?|[A-Z]{2,}s|[A-Z][a-z]?[A-Z]{2,}s?"
                       r"|(?:In|in)[Dd]els?"
                       r"|[A-Z]{2,}-?[a-z]{1,3}")
_NOT_NAMES = re.compile(
    r"(?i)(?:cpgs?|chgs?|chhs?|dnase|rnase|mnase|hifi|polya|chip|chips|chipmentation|github|gitlab|bitbucket|python3?|"
    r"rstudio|rmarkdown|jupyter(?:lab)?|macos|ios|iphone|ipad|powerpoint|latex|javascript|typescript|youtube|"
    r"linkedin|pubmed|biorxiv|medrxiv|chatgpt|openai|ig[gmade]\d?|snakemake|nextflow|dsl2?|galaxy|bioconductor|cran|"
    r"h[1-4](?:a\.?z|ax|[kstry]\d+(?:me[1-3]?|ac|ub|ph|cr|bu|la|bhb)?)|anti-\w+|"
    r"linux|unix|windows|bash|shell|perl|java|awk|excel|rscript|"
    r"docker|singularity|apptainer|conda|bioconda|mamba|slurm|"
    r"covid-?19|sars-cov-?2|hiv-?1|hiv-?2|hpv\d*|ebv|hbv|hcv|mers-cov|h1n1|h3n2|e\.?coli|"
    # kits, chemistries, platforms and sequencers
    r"truseq\w*|nextera\w*|nebnext\w*|kapa\w*|smarter\w*|smart-seq\d*|sureselect\w*|twist\w*|idt\w*|qiagen\w*|"
    r"agilent\w*|illumina\w*|novaseq\w*|hiseq\w*|miseq\w*|nextseq\w*|iseq\w*|minion\w*|promethion\w*|"
    r"gridion\w*|flongle\w*|chromium\w*|visium\w*|xenium\w*|cosmx\w*|merscope\w*|dnbseq\w*|bgiseq\w*|mgiseq\w*|"
    r"sequel\w*|revio\w*|aviti\w*|pacbio\w*|nanopore\w*|r9\.4\.1|r10\.4\.1|ont|ion|proton|v[1-4]|"
    r"grch\d+|hg\d+|mm\d+|t2t|chm13\w*|grcm\d+|grcz\d+|dm\d|ce\d+|saccer\d|tair\d+|"
    # samples' generic names ("Controls (Sample1, Sample2) vs Experiment (Sample1, ...)", Biostars): a sample, no tool
    r"(?:samples?|reps?|replicates?|ctrls?|controls?|treated|treatments?|patients?|donors?|cases?|mocks?|wt|ko|"
    r"conditions?|groups?|mice|mouse|experiments?)[-_.]?\d+[a-z]?|"
    # reads, lanes, chromosomes, sexes, versions, units
    r"r[12]|i[12]|l00\d|chr\w+|x|y|mt|v\d+(?:\.\d+)*|\d+\w*|[a-z]{1,2}\d{1,2})")
# accession ids: runs, studies, samples, assemblies, genes, transcripts, variants
_ACCESSION = re.compile(r"(?i)(?:[SED]R[RXSP]|PRJ[NED][AB]?|SAM[NED][A-Z]?|GS[EM]|GPL|E-MTAB-?|GC[AF]_?|ENS[A-Z]*|"
                        r"N[MRCGTPW]_|X[MRP]_|rs|ERP|SRP|PXD|MTBLS|EGA[SDF]?)\d+(?:\.\d+)?")
# words that make the names around them genes ("TP53 knockout", "expression of SOX2")
_GENE_WORDS = re.compile(
    r"(?i)\b(?:genes?|markers?|knock-?outs?|knock-?downs?|k[od]|mutants?|mutations?|mutated|deletions?|deleted|"
    r"deficient|null|overexpress\w*|express\w*|loci|locus|alleles?|isoforms?|transcripts?|promoters?|enhancers?|"
    r"targets?|positive|negative|signatures?|pathways?|fusions?|variants?|cre|flox\w*|fl/fl|-/-|\+/-|"
    r"such as|e\.g\.|like|including|symbols?|biomarkers?|receptors?|ligands?|cytokines?|proteins?|antibod\w*|"
    r"inhibit\w*|treated|stimulated|infected|transfected|exposed|incubated|induced|silenc\w*|sgrnas?|sirnas?|"
    r"shrnas?|crispr\w*|levels?|abundance|reporter|tagged|fused|gfp|mcherry)\b")
_NEAR_BEFORE = re.compile(r"(?:\S+\s+){0,3}$")
_NEAR_AFTER = re.compile(r"(?:\s+\S+){0,2}")
_GENE_SYMBOL = re.compile(r"[A-Z][A-Z0-9]{1,9}(?:-[A-Z0-9]{1,4})?|[A-Z][a-z]{1,4}\d{1,3}[a-z]?|[a-z]{2,5}\d{1,3}[a-z]?")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n\s*|[\"'(\[]\s*)$")
# an alternative offered ("STAR or hisat3n", "(BWA-mem || Sentieon)"): not the user's choice of tool
_OR = re.compile(r"(?i)(?<!/)\b(?:or|ou|oder|o|alternatively|alternatives?|instead)\b|\|\|")
_RUN_WORD = re.compile(r"(?i)\b(?:with|using|use|via|through|run|before|after|then)\b")
# the inputs' history, not an instruction: "my BAM files which were deduplicated with MarkDuplicates"
_DONE = re.compile(r"(?i)\b(?:(?:which|that)\s+(?:were|was|had\s+been|have\s+been|has\s+been)|already|previously"
                   r"|have\s+been|has\s+been|had\s+been)\b")
# what follows a name that is a subject or data, not a tool: "HepG2 cells", "CellRanger output", "HG002 reads"
_SUBJECT_AFTER = re.compile(r"(?i)[\s-]+(?:cells?|cell\s+lines?|lines?|samples?|reads|data|librar(?:y|ies)|cohorts?|"
                            r"patients?|donors?|mice|mouse|rats?|strains?|isolates?|tissues?|organoids?|outputs?|"
                            r"results?|files?|format|matri(?:x|ces)|tables?|objects?|antibod(?:y|ies)|marks?|"
                            r"knock-?outs?|mutants?|genes?|proteins?|alleles?|variants?|loci|locus|transcripts?)\b")
_LOOK_BACK = 240  # characters a sentence's context is looked for before a name (bounds the work per name)
_STEP_BEFORE = frozenset({"operation", "tool", "datatype", "format", "motif", "unknown_tool", "unsupported_analysis"})
_TOOL_ROLES = frozenset({"tool", "unknown_tool"})


@dataclass(frozen=True)
class UnknownName:
    """A tool-like (or database-like) name of the request no knowledge matched."""

    text: str
    start: int  # in the plain request text
    end: int
    kind: str  # "tool" or "database"
    position: str  # why it stands where a tool is named: "after 'using'", "in parentheses", ...
    # not the user's one choice: "offered" as an alternative ("STAR or hisat3n"), or the words of a tool
    # bioplan has named with it in one pair of parentheses ("(BEDTools, bedGraphToBigWig)"): said, not refused
    beside: str | None = None


def _strings(value: object, out: set[str], budget: list[int]) -> None:
    """Every string of a fact's value (sample, condition and column names), lower-cased, bounded."""
    if budget[0] <= 0:
        return
    budget[0] -= 1
    if isinstance(value, str):
        out.add(value.lower())
    elif isinstance(value, dict):
        for k, v in value.items():
            _strings(k, out, budget)
            _strings(v, out, budget)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for v in value:
            _strings(v, out, budget)


def input_names(files: tuple[SniffedFile, ...]) -> frozenset[str]:
    """The inputs' own names: samples, conditions, columns, file names and their stems (lower case)."""
    out: set[str] = set()
    budget = [20_000]
    for f in files:
        name = re.split(r"[\\/]", f.path.rstrip("/\\"))[-1].lower()
        out |= {name, name.split(".")[0]}
        if f.sample:
            out.add(f.sample.lower())
        for fact in f.facts:
            _strings(fact.value, out, budget)
    return frozenset(out)


def _located(text: str, norm: str, start: int, end: int, cursor: int) -> tuple[int, int] | None:
    """Where the name text[start:end] sits in the normalised request (the same place when the
    normalisation kept every length, else the next place its normalised form occurs)."""
    if len(text) == len(norm):
        return start, end
    said = normalize(text[start:end])
    at = norm.find(said, cursor) if said else -1
    return (at, at + len(said)) if at >= 0 else None


@dataclass(frozen=True)
class _Words:
    """The parse's word accounting, indexed once per request: which characters a term of the knowledge
    (or anything but an unrecognised word) covers, which an unrecognised word, where the steps start."""

    known: bytearray
    unknown: bytearray
    steps: list[int]

    @classmethod
    def of(cls, request: Request) -> _Words:
        known, unknown = bytearray(len(request.normalized)), bytearray(len(request.normalized))
        for sp in request.spans:
            mark = unknown if sp.role == "unrecognized" else known
            mark[sp.start:sp.end] = b"\x01" * (sp.end - sp.start)
        return cls(known, unknown, sorted(sp.start for sp in request.spans if sp.role in _STEP_BEFORE))

    def unrecognised(self, start: int, end: int) -> bool:
        """Every word the parse accounted in [start, end) is unrecognised (no term of the knowledge)."""
        return self.known.find(1, start, end) < 0 and self.unknown.find(1, start, end) >= 0

    def step_between(self, start: int, end: int) -> bool:
        i = bisect_right(self.steps, start)
        return i < len(self.steps) and self.steps[i] < end


def _not_a_name(token: str, inputs: frozenset[str]) -> bool:
    lower = token.lower()
    return (lower in inputs or lower.rstrip("s") in inputs or bool(_NOT_NAMES.fullmatch(token))
            or bool(_ACCESSION.fullmatch(token)) or bool(_MOLECULE.fullmatch(token)))


def _a_step_before(request: Request, words: _Words, nstart: int) -> bool:
    """A step, tool or data word earlier in the clause ("align the reads with X"), not a treatment
    ("cells treated with X")."""
    clause = max(request.normalized.rfind(c, max(0, nstart - _LOOK_BACK), nstart) for c in ".;!?()")
    return words.step_between(max(clause, nstart - _LOOK_BACK), nstart)


# a citation in parentheses: "(Krueger & Andrews, 2011)", "(Hao et al., 2014; Park & Wu, 2016)"
_CITATION = re.compile(r"[^()]*\b(?:1[89]|20)\d\d[a-z]?\b[^()]*")
_CITED_AUTHORS = re.compile(r"\s*[A-Z][\w'-]+(?:\s+(?:&|and)\s+[A-Z][\w'-]+|\s+et\s+al\.?)?,?\s+"
                            r"(?:1[89]|20)\d\d[a-z]?\s*")


def _in_parentheses(text: str, start: int, end: int) -> bool:
    """Inside "(...)" of a few short items right after a word: "trimming (Trim Galore!)", "(picard, Preseq)";
    not a citation's authors ("(Krueger & Andrews, 2011)")."""
    opening, closing = text.rfind("(", max(0, start - 120), start), text.find(")", end, end + 120)
    if opening < 0 or closing < 0 or ")" in text[opening:start] or "(" in text[end:closing]:
        return False
    inside = text[opening + 1:closing]
    if _CITATION.fullmatch(inside) and any(_CITED_AUTHORS.fullmatch(c) for c in inside.split(";")):
        return False
    items = [i for i in _PAREN_ITEMS.split(text[opening + 1:closing]) if i]
    return (bool(text[:opening].rstrip()) and text[:opening].rstrip()[-1].isalnum() and len(items) <= 6
            and all(len(i.split()) <= 3 for i in items))


def _position(request: Request, words: _Words, text: str, start: int, end: int, nstart: int) -> str | None:
    """Why the name stands where a tool is named, or None. After "with"/"by" with no step before it in
    the clause ("Haplotype reconstruction with PEHaplo") the position is weak: `_tool_shaped` then takes
    only names a capital or digit inside marks."""
    kind = _KIND_AFTER.match(text, end)
    if kind:
        return "before '" + kind.group(0).strip() + "'"
    if _DB_AFTER.match(text, end):
        return "before 'database'"
    if _TITLE_AFTER.match(text, end):
        return "named as a method"
    if (_IS_A_AFTER.match(text, end) or _ACTS_AFTER.match(text, end)
            or _INPUT_TO.search(text, max(0, start - 30), start)):
        return "described as a tool"
    before = _BEFORE.search(text, max(0, start - 60), start)
    if before and _DONE.search(text, _sentence_start(text, start), start):
        return None  # a step said done: the tool is the inputs' history (`drop_done` says so)
    if before:
        word = (before.group(0).split() or ["a verb"])[0].lower()
        weak = _WITH_BY.search(before.group(0)) and not _a_step_before(request, words, nstart)
        return f"after '{word}'" + (" (weak)" if weak else "")
    if _in_parentheses(text, start, end):
        return "in parentheses after a step"
    step_for = _FOR_STEP.match(text, end)
    if step_for and len(text) == len(request.normalized):
        after = nstart + (step_for.end() - start)
        if words.step_between(after - 1, after + _FOR_STEP_REACH):
            return "before 'for' a step"
    return None


def _tool_shaped(token: str, position: str, text: str, start: int) -> bool:  # noqa: C901
    """Shaped like a tool's name for where it stands: a capital or digit inside, a hyphenated name
    with capitals; after a word that runs a tool also a capitalised word off a sentence's start, and all
    capitals (not after "with": more often a treatment, "treated with DMSO"); in parentheses a capitalised
    word that is a whole item ("(Krona)"). A plain lower-case word never (too often an adjective:
    "the recommended software", "the selected tools")."""
    if _MIXED.search(token) or _ALNUM.match(token):
        return True
    parts = [p for p in token.split("-") if p]
    if len(parts) > 1 and any((p.isupper() and len(p) >= 2) or _MIXED.search(p) for p in parts) \
            and not all(p[:1].isupper() and p[1:].islower() for p in parts):
        return True
    if position.endswith("(weak)") or position.startswith("before") or position == "listed beside a tool":
        return False
    if len(parts) > 1 and all(p[:1].isupper() and p[1:].islower() for p in parts):
        return False  # a method named after people: Benjamini-Hochberg, Burrows-Wheeler
    if token.isupper():  # after "with" more often a treatment ("with DMSO"); in parentheses an abbreviation
        return len(token) >= 3 and position.startswith("after") and not position.startswith("after 'with")
    if token[0].isupper() and position.startswith("after"):
        return not _SENTENCE_START.search(text, max(0, start - 4), start)
    # a capitalised word in parentheses only as a whole item or with one capitalised word: "(Krona)", "(Trim Galore!)"
    if token[0].isupper() and position.startswith("in parentheses"):
        return _whole_item(text, start, start + len(token)) and not _GERMAN_NOUN.fullmatch(token)
    return False


def _whole_item(text: str, start: int, end: int) -> bool:
    """The name is a whole item of its parentheses, or one with a capitalised word ("Trim Galore!")."""
    opening, closing = text.rfind("(", max(0, start - 120), start), text.find(")", end, end + 120)
    for item in _PAREN_ITEMS.split(text[opening + 1:closing]):
        words = item.strip(" !?.").split()
        if text[start:end] in words:
            return len(words) == 1 or (len(words) == 2 and all(w[:1].isupper() for w in words))
    return False


def _companion(request: Request, text: str, start: int, end: int) -> str | None:
    """A tool bioplan has named in the same parentheses: the step runs with it."""
    opening, closing = text.rfind("(", max(0, start - 120), start), text.find(")", end, end + 120)
    if opening < 0 or closing < 0 or ")" in text[opening:start] or "(" in text[end:closing] \
            or len(text) != len(request.normalized):
        return None
    return next((text[sp.start:sp.end] for sp in request.spans
                 if sp.role == "tool" and opening < sp.start and sp.end <= closing), None)


def _sentence_start(text: str, start: int, marks: str = ".;!?") -> int:
    """Where the sentence (or parenthesis) holding `start` begins, looking back at most `_LOOK_BACK`."""
    return max(max(text.rfind(c, 0, start) for c in marks) + 1, start - _LOOK_BACK, 0)


def _offered(text: str, start: int) -> bool:
    """Offered as an alternative: an "or" earlier in its sentence or parentheses ("STAR or hisat3n")."""
    ors = list(_OR.finditer(text, _sentence_start(text, start, ".;!?("), start))
    return bool(ors) and not _RUN_WORD.search(text, ors[-1].end(), start)


def _gene_context(text: str, start: int, end: int, token: str, position: str) -> bool:
    """A gene-like symbol (TP53, Trp53, sox2, HLA-A) beside a gene word: next to it ("TP53 knockout",
    "expression of SOX2") where a tool would stand ("cells with Trp53 knockout"), else anywhere near it
    in its clause ("SOX2 and NANOG genes")."""
    if not _GENE_SYMBOL.fullmatch(token):
        return False
    near = _NEAR_BEFORE.search(text, max(0, start - 40), start)
    after = _NEAR_AFTER.match(text, end)
    window = (near.start() if near else start, after.end() if after else end)
    if not position.startswith("after"):
        stop = min((i for i in (text.find(c, end, end + 48) for c in ".;!?") if i >= 0), default=len(text))
        window = (max(_sentence_start(text, start), start - 48), min(stop, end + 48))
    return bool(_GENE_WORDS.search(text, *window))


def _database(token: str, text: str, end: int) -> bool:
    """Named as a database: shaped like one (FooDB, SILVA), or a name before "database"."""
    return bool(_DB_SHAPE.search(token)) or bool(_DB_AFTER.match(text, end)) and bool(
        _MIXED.search(token) or _ALNUM.match(token) or (token.isupper() and len(token) >= 3))


def _listed_beside(request: Request, text: str, start: int, end: int, named: list[tuple[int, int]]) -> bool:
    """Listed beside a tool ("Kraken2, Kaiju and MALT", "DESeq2/DiffChIPL") or a name already found."""
    if len(text) != len(request.normalized):
        return False
    tools = [(sp.start, sp.end) for sp in request.spans if sp.role in _TOOL_ROLES] + named
    return any((b <= start and _LIST_GAP.fullmatch(text, b, start)) or (end <= a and _LIST_GAP.fullmatch(text, end, a))
               for a, b in tools)


def unknown_names(request: Request, inputs: frozenset[str] = frozenset()) -> list[UnknownName]:
    """Tool-like and database-like names of the request that no knowledge matched, in order."""
    text, norm, words = plain_request(request.query), request.normalized, _Words.of(request)
    found: list[UnknownName] = []
    later: list[tuple[str, int, int]] = []
    cursor = 0
    for m in _TOKEN.finditer(text):
        token, (start, end) = m.group(0), m.span()
        where = _located(text, norm, start, end, cursor)
        if (where is None or not words.unrecognised(*where) or _not_a_name(token, inputs)
                or _SUBJECT_AFTER.match(text, end)):
            continue
        cursor = where[1]
        position = _position(request, words, text, start, end, where[0])
        if position is None:
            later.append((token, start, end))
            continue
        if _gene_context(text, start, end, token, position):
            continue
        if _database(token, text, end):
            found.append(UnknownName(token, start, end, "database", position))
        elif position == "before 'database'":
            continue
        elif _tool_shaped(token, position, text, start):
            found.append(UnknownName(token, start, end, "tool", position))
    for token, start, end in later:  # names listed beside a tool or a name found
        named = [(n.start, n.end) for n in found if n.kind == "tool"]
        if (_listed_beside(request, text, start, end, named) and not _gene_context(text, start, end, token, "listed")
                and _tool_shaped(token, "listed", text, start)):
            kind = "database" if _database(token, text, end) else "tool"
            found.append(UnknownName(token, start, end, kind, "listed beside a tool"))
    return sorted((replace(n, beside="offered") if _offered(text, n.start)
                   else replace(n, beside=_companion(request, text, n.start, n.end)) for n in found),
                  key=lambda n: n.start)


def _unknown_names_error(names: list[UnknownName]) -> UnknownToolError:
    said = ", ".join(f"'{n.text}'" for n in names)
    return UnknownToolError(
        f"{said} {'looks' if len(names) == 1 else 'look'} like the name of a tool bioplan does not know "
        f"({'; '.join(f'{n.text}: {n.position}' for n in names)}); planning the request with bioplan's own "
        "tools would not run it",
        ["to run bioplan's own tools for the steps instead, pass --substitute (compile's output, the plan "
         "report and the emitted README will say so)",
         "if it is not a tool (a sample, a gene, a kit), rephrase the request without it",
         "to add the tool: write ontology/tools/<id>.yaml and its templates, then run `bioplan check-knowledge`;"
         " see ontology/README.md"],
        {"tools": {n.text: {"text": n.text, "operations": [], "bioplan_tools": [], "known": False}
                   for n in names}})


def refuse_unknown_names(draft: SpecDraft) -> SpecDraft:
    """unknown_tool: a tool-like name no knowledge matched (`unknown_names`); with --substitute a
    deviation (bioplan's own tools run). A database-like name is a warning: not used."""
    names = unknown_names(draft.request, input_names(draft.files))
    tools = [n for n in names if n.kind == "tool" and not n.beside]
    draft = draft.warn(*(f"'{n.text}' looks like a database bioplan does not know; it is not used"
                         for n in names if n.kind == "database"))
    draft = draft.deviate(*(f"'{n.text}' looks like a tool bioplan does not know, "
                            + ("offered as an alternative" if n.beside == "offered" else f"named beside {n.beside}")
                            + "; it is not run" for n in names if n.kind == "tool" and n.beside))
    if tools and not draft.substitute:
        raise _unknown_names_error(tools)
    return draft.deviate(*(f"substituted: '{n.text}' looks like a tool bioplan does not know ({n.position}); "
                           "bioplan's own tools run instead (--substitute)" for n in tools))

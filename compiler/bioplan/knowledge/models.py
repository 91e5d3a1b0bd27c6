"""The frozen Knowledge model: datatypes, operations, constraints, tools, motifs, lexicon.

The YAML files under `ontology/` and `motifs/` are validated by JSON Schemas derived
from these models (`knowledge.load.file_schemas`) first, then loaded into these
models, then checked semantically (`knowledge.checks`). See ontology/README.md for
the format a domain expert edits.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Frozen(BaseModel):
    # defer_build: the knowledge a process reads back from the cache is never validated, so a
    # `bioplan plan` does not pay for building the validators (built on the first validation)
    # Model-valued defaults are default factories for the same reason: `Aliases()` written as a
    # default would validate (and so build Aliases' validator) when this module is imported.
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Aliases(Frozen):
    """Words a user may write for a term. `en` and `zh` are matched after normalisation."""

    en: tuple[str, ...] = ()
    zh: tuple[str, ...] = ()


# Where a datatype lives in a workflow:
#  - sample:    one file (or mate pair) per sample, scattered with a {sample} wildcard
#  - cohort:    one file for the whole study (matrices, tables, reports over all samples)
#  - reference: one file shared by all samples that the user provides or a rule builds
Scope = Literal["sample", "cohort", "reference"]


class DatatypeParts(Frozen):
    """What each of several files of a cohort datatype is (VCFs: parts of one call set), by
    whether their sample columns differ (per-sample files, merged) or agree (per-region files,
    concatenated)."""

    distinct_samples: str
    same_samples: str


class Datatype(Frozen):
    id: str
    label: str
    description: str
    edam: str | None = None  # e.g. "data_3917"; checked against the edam-ontology package
    scope: Scope
    formats: tuple[str, ...] = ()  # physical formats seen in practice; informative only
    # A reference datatype that the user may supply through config instead of -i
    # (genome FASTA, GTF, gene set library, classifier database).
    config_provided: bool = False
    # Subtyping: a datatype may feed any port that accepts its parent
    # (trimmed_reads is_a raw_reads: an aligner takes raw or trimmed reads).
    is_a: str | None = None
    # Gene identifier namespace of a gene list (entrez, ensembl, symbol), where fixed.
    id_namespace: str | None = None
    # Paired-end reads come as two mate files per sample (sample-scope read datatypes only).
    mates: bool = False
    # Suggested sources for config_provided datatypes ("Ensembl GRCm39 primary assembly").
    sources: tuple[str, ...] = ()
    # Which side of a gene-set comparison the datatype's gene ids are on: "genes" (data whose id
    # namespace enrichment compares with the library's) or "gene_sets" (the library itself).
    gene_ids: Literal["genes", "gene_sets"] | None = None
    # A file of this datatype that already holds cell groups (facts cluster_columns/label_columns)
    # is read as this datatype when the requested steps read it (normalised cells -> clustered).
    grouped_as: str | None = None
    # Datatypes a request may name for a file sniffed as this one -> the warning that the file is
    # treated as this datatype ("{path}" is the file's path).
    contradicts: dict[str, str] = Field(default_factory=dict)
    # several input files of this cohort datatype are parts of it (see DatatypeParts)
    parts: DatatypeParts | None = None
    # Made and read only inside a pipeline (DADA2's learned error model and filtered reads): a request
    # without files never starts from it, but from what the steps making it read.
    internal: bool = False
    aliases: Aliases = Field(default_factory=Aliases)


class Port(Frozen):
    datatype: str
    description: str = ""
    optional: bool = False


class Operation(Frozen):
    id: str
    label: str
    description: str
    edam: str | None = None
    inputs: dict[str, Port]
    outputs: dict[str, Port]
    # Data constraints the inputs must satisfy; they become precondition steps.
    requires: tuple[str, ...] = ()
    # Context constraints (assays) outside which the operation makes no sense; empty = any.
    assays: tuple[str, ...] = ()
    cost: float = 1.0
    # Whether the planner may feed a more processed subtype produced elsewhere in the plan
    # (trimmed instead of raw reads). False for QC of the data as delivered.
    refine_inputs: bool = True
    # Operations that make this one's data by another route: when the request also asks for one of
    # them, the words that named this one described that route (variant calling beside joint
    # genotyping of per-sample GVCFs), so this one is not run as well.
    superseded_by: tuple[str, ...] = ()
    # Reads the samples of one individual together (tumour against its matched normal): a sample
    # sheet of several patients is refused, not run as one individual (request/passes/individuals.py)
    one_individual: bool = False
    aliases: Aliases = Field(default_factory=Aliases)


ConstraintKind = Literal["organism", "assay", "layout", "library", "data"]


class FactTest(Frozen):
    """How the sniffed inputs decide a data constraint: a file of one of `datatypes` with the fact
    `fact` makes it hold when the value equals `equals`, or is at least `at_least`, or (neither
    given) is true; a later file decides over an earlier one."""

    fact: str
    datatypes: tuple[str, ...]
    equals: str | None = None
    at_least: int | None = None


class Constraint(Frozen):
    id: str
    kind: ConstraintKind
    label: str
    description: str
    # organisms: scientific name, taxon id, genome builds, Ensembl gene id prefix, KEGG code
    scientific_name: str | None = None
    taxon_id: int | None = None
    genome_builds: tuple[str, ...] = ()
    ensembl_prefix: str | None = None
    kegg_code: str | None = None
    # organisms and layouts: the value the task spec records for the kind ("human", "paired");
    # default: the id
    value: str | None = None
    # layouts: read files per sample (2 paired-end, 1 single-end)
    mates: int | None = None
    # data constraints: how the sniffed inputs decide it (the planner prunes what requires a failed one)
    decided_by: FactTest | None = None
    # data constraints: how the emitted workflow checks it (a check script under templates/scripts)
    check: str | None = None
    # datatypes whose reading makes this constraint a precondition of the reading step (exact ids,
    # not subtypes): a step reading a reference genome checks it first. A context constraint (a
    # layout) is added only when the study holds it, and only on data given as inputs.
    checked_on_read: tuple[str, ...] = ()
    # data constraints: what the user can do when the inputs fail it and a step is ruled out for
    # that (the why-not error's hint, planner/plan.py)
    hint: str | None = None
    # datatypes a data constraint is about: its check reads only those inputs of the guarded
    # step (and steps reading the same files share one check)
    applies_to: tuple[str, ...] = ()
    # the formats the check script reads (check_paired_mates reads gzip-compressed FASTQ only): a given
    # input it would check in another format is refused at compile time (codegen/plain_inputs.py); empty = any
    check_formats: tuple[str, ...] = ()
    # constraints this one cannot hold together with (same kind alternatives)
    conflicts: tuple[str, ...] = ()
    aliases: Aliases = Field(default_factory=Aliases)


class FormatSniff(Frozen):
    """How an input of a format is recognised without code (request/sniffers/signatures.py): its name
    ends with one of the format's extensions and its content starts with `magic` and/or its first
    non-blank line matches `header`; it then holds `datatype`."""

    datatype: str
    magic: str | None = None  # the first bytes after gzip decompression, as text ("\x89HDF" escapes)
    header: str | None = None  # a regular expression searched in the first non-blank line


class Format(Frozen):
    """A physical file format (formats belong to tool ports, never to datatypes)."""

    id: str  # fastq.gz, bam, tsv, csv, h5ad, vcf.gz, gtf, gff3, fasta, hisat2_index, ...
    label: str
    edam: str | None = None  # format_xxxx
    extensions: tuple[str, ...] = ()
    # a folder, not a file (aligner indexes, databases): a reference of this format is a directory in
    # the workflow (Snakemake `directory()`), made as one by the compile pre-check
    directory: bool = False
    sniff: FormatSniff | None = None
    # how a user turns a file of this format into what the tools read, said when a given input's format is read
    # by no tool of the plan and no format adapter bridges it (CRAM -> BAM needs the reference it was made with)
    convert_hint: str = ""


class ToolPort(Frozen):
    # A format id of formats.yaml; an input port may accept alternatives: "tsv|csv".
    format: str
    # file name under the step's output directory; may use {sample}
    path: str | None = None
    directory: bool = False
    description: str = ""
    # An input port of an optional operation input that the tool reads only when the workflow
    # has that file (given, or produced by another step): without it the tool runs as it is and
    # nothing is asked of the user (STAR's index takes a GTF's splice junctions when there is one).
    when_available: bool = False
    # An output a QC aggregator reads (a FastQC report, fastp's JSON, STAR's Log.final.out, a
    # featureCounts summary): every plan that makes one ends in a MultiQC report of them all
    # (codegen/qc_report.py), and the file is kept as a result.
    qc_report: bool = False
    # An input port that reads `format` only, not its uncompressed variant (STAR's readFilesCommand
    # gunzips every read file): a given plain file (reads.fastq) on it is refused at compile time with
    # the command that compresses it (codegen/plain_inputs.py). Default: both variants are read.
    compressed_only: bool = False


class Resources(Frozen):
    threads: int = 1
    mem_mb: int = 2000
    runtime: int = 60  # minutes
    # memory grows with input size (aligner indexes): mem_mb + mem_mb_per_gb_input * GB(input)
    mem_mb_per_gb_input: int = 0
    # memory grows with the genome the step holds (index builders, STAR): + mem_mb_per_gb_genome * GB of the
    # genome (a genome FASTA input, else the organism's build in references.yaml; unknown: nothing added)
    mem_mb_per_gb_genome: int = 0
    # time grows with what one job reads (aligners, trimmers, callers): runtime + runtime_per_gb_input * GB
    runtime_per_gb_input: int = 0
    # time grows with the genome the step holds, as its memory does (index builders): + minutes per GB
    runtime_per_gb_genome: int = 0
    # a trivial step (a small table reshaped, filtered or merged): on a cluster it runs beside the
    # workflow engine on the submit node (Snakemake `localrule`, Nextflow's local executor in the
    # slurm profile), not as a scheduler job of its own
    local: bool = False


class Software(Frozen):
    conda: tuple[str, ...]  # pinned conda specs, e.g. "bioconda::fastp=0.23.4"
    container: str  # biocontainer image with tag
    version: str
    version_command: str  # prints the tool version
    # the package whose version version_command prints, when it is neither the single-package
    # biocontainer nor the conda package pinned at `version` (codegen/provenance.py package_name)
    package: str | None = None


class PatientPairing(Frozen):
    """How a caller of one individual's tumour and normal samples runs once per patient of a cohort
    (a sample sheet with patient and status columns): the param that names the patient's normal
    sample (its read-group SM, the sample name) and what the caller needs of the pair."""

    normal_param: str  # set per patient to the normal's sample name ("" for a patient without one)
    needs_normal: bool = True  # false: a tumour-only mode runs a patient without a normal (Mutect2)
    one_tumour: bool = False  # true: exactly one tumour per run (Strelka2's somatic workflow; every pair has one)


class Tool(Frozen):
    id: str
    name: str
    implements: str  # operation id
    description: str
    homepage: str
    biotools: str | None = None
    doi: str | None = None
    citation: str
    software: Software
    inputs: dict[str, ToolPort]  # keys: the operation's input port names
    outputs: dict[str, ToolPort]  # keys: the operation's output port names
    # context constraints the tool works under; empty = any (e.g. KEGG organisms)
    supports: tuple[str, ...] = ()
    # extra data constraints the tool needs beyond its operation's
    requires: tuple[str, ...] = ()
    resources: Resources = Field(default_factory=Resources)
    # user-tunable parameters with defaults; they land in config.yaml under params.<tool id>
    params: dict[str, str | int | float | bool | None] = Field(default_factory=dict)
    # param values a constraint in force sets (Trim Galore's --rrbs for an RRBS library)
    params_when: dict[str, dict[str, str | int | float | bool | None]] = Field(default_factory=dict)
    quality: float = 0.5  # ranking prior in [0, 1]: maturity, adoption, fitness for the task
    templates: dict[str, str]  # target -> template path under templates/
    scripts: tuple[str, ...] = ()  # step scripts under templates/scripts/ the template uses
    # nf-core module path (tool/subtool) where the id does not give a leaf: a tool sharing its first
    # word with others (star beside star_genome_generate) is star/align (codegen/nf_core_names.py)
    nf_module: str | None = None
    runnable_offline: bool = True  # false if the tool needs the network at run time
    # a tool of a `one_individual` operation: how it runs once per patient (None: one individual only)
    pairing: PatientPairing | None = None
    aliases: Aliases = Field(default_factory=Aliases)


class Motif(Frozen):
    id: str
    label: str
    description: str
    operations: tuple[str, ...]  # in pipeline order; `motif --contains--> operation`
    prior: float = 0.5  # how typical the motif is in practice, in [0, 1]
    # operations practice never skips in this motif (duplicate marking before germline calling,
    # GATK best practice): the ranking does not count their cost against a plan that has them
    essential: tuple[str, ...] = ()
    assays: tuple[str, ...] = ()
    # operation -> the tool the pipeline runs for it (GATK best practices call with HaplotypeCaller): preferred
    # when the request names the motif and no tool of its own for that operation
    tools: dict[str, str] = Field(default_factory=dict)
    aliases: Aliases = Field(default_factory=Aliases)


class PhraseRule(Frozen):
    """An intent phrase: a regular expression over the normalised request."""

    pattern: str
    operations: tuple[str, ...] = ()
    target: str | None = None
    constraints: tuple[str, ...] = ()
    description: str = ""


class OutputFormatTerm(Frozen):
    id: str
    aliases: Aliases = Field(default_factory=Aliases)


class AbsentTool(Frozen):
    """A tool people name that the knowledge base does not have (yet): refused by name, never swapped."""

    id: str
    name: str
    aliases: Aliases = Field(default_factory=Aliases)  # whole words, matched like tool aliases
    # what the name implies: operations of the knowledge, or analysis families it lacks
    operations: tuple[str, ...] = ()
    analyses: tuple[str, ...] = ()
    # a tool of the knowledge that is this tool's direct successor (same method and command line,
    # e.g. MACS3 for MACS2): used in its place with a note, not refused
    successor: str | None = None


class UnsupportedAnalysis(Frozen):
    """An analysis family bioplan does not do yet, recognised so that it is refused, never dropped."""

    id: str
    label: str
    # regular expressions over the normalised request (like phrases; intent words in group "m")
    patterns: tuple[str, ...]
    # what bioplan can do instead (one sentence)
    instead: str
    # operation ids that, once the knowledge has any of them, make the family supported
    operations: tuple[str, ...] = ()


class SettingParam(Frozen):
    """A tool param a request setting sets: a fixed value, or the number in the request's words."""

    tools: tuple[str, ...]
    param: str
    value: float | int | str | None = None  # None: the last number of the setting's words
    # how the number reads: as said; a fraction ("5%" is 0.05); a fold change (2 is log2 1, unless
    # the words say log)
    scale: Literal["number", "fraction", "log2"] = "number"
    minimum: float | None = None
    maximum: float | None = None
    # a contrast's level (the setting's `levels`): the reference or the tested level the words name
    level: Literal["reference", "test"] | None = None


class ContrastWords(Frozen):
    """How a contrast's words name the condition column's levels ("KO against WT", "compare mutant to wild type")."""

    # level names read as the reference when the words name one (the control-like levels)
    reference: tuple[str, ...]
    # a regular expression the request must match for its words to be a contrast (a differential analysis named)
    context: str | None = None
    # words naming one level ("wt", "wild type", "wildtype"), each group one level of a sample sheet
    aliases: tuple[tuple[str, ...], ...] = ()


class RequestSetting(Frozen):
    """A setting people give inside a request bioplan can plan (a threshold, strandedness, a tool
    parameter, a tool version): set on the planned tools that take it (`sets`), else stated in the
    report as not honoured, never dropped silently."""

    id: str
    label: str
    # regular expressions over the normalised request (like phrases; the setting's words in group "m")
    patterns: tuple[str, ...]
    # what the workflow does when no planned tool takes it (one sentence: the default, where to change it)
    instead: str
    sets: tuple[SettingParam, ...] = ()
    # tools that do what the setting says with no param to set (CPM: edgeR CPM): honoured when planned
    honoured_by: tuple[str, ...] = ()
    # its words may also name an operation ("TPM" is count normalisation): read beside that term
    over_terms: bool = False
    # a contrast: its patterns name two levels in groups `a` and `b`, set as the `level` params
    levels: ContrastWords | None = None
    # said when a planned tool of a step another tool honours it for does not ("TMM" beside DESeq2's own
    # size factors); None: "<tool> does not take it"
    unlike: str | None = None


class Lexicon(Frozen):
    phrases: tuple[PhraseRule, ...] = ()
    output_formats: tuple[OutputFormatTerm, ...] = ()
    # words that say "not this tool" (a tool named without one is wanted)
    exclude_markers: Aliases = Field(default_factory=Aliases)
    absent_tools: tuple[AbsentTool, ...] = ()
    unsupported_analyses: tuple[UnsupportedAnalysis, ...] = ()
    # settings inside a request: set on the tools that take them, else a warning "not honoured: ..."
    settings: tuple[RequestSetting, ...] = ()
    # words that carry no request content (per language): every other word must be understood
    filler: Aliases = Field(default_factory=Aliases)
    # words naming sample groups / conditions ("treated", "control", "KO")
    group_words: Aliases = Field(default_factory=Aliases)
    # words offering tools as alternatives ("Salmon or Kallisto"): an absent tool offered beside a
    # tool of the knowledge for the same operation is not refused
    alternative_markers: Aliases = Field(default_factory=Aliases)
    # words that make a clause an instruction ("predict", "assemble", "预测"): such a clause
    # whose content words all go unrecognised is refused as partially understood
    instruction_words: Aliases = Field(default_factory=Aliases)


class Knowledge(Frozen):
    datatypes: dict[str, Datatype]
    formats: dict[str, Format]
    operations: dict[str, Operation]
    constraints: dict[str, Constraint]
    tools: dict[str, Tool]
    motifs: dict[str, Motif]
    lexicon: Lexicon
    content_hash: str  # sha256 over every loaded file; keys caches

    def tools_for(self, operation_id: str) -> list[Tool]:
        return sorted((t for t in self.tools.values() if t.implements == operation_id), key=lambda t: t.id)

"""Tools bioinformaticians name (issue 18), one case table per family in tests/tool_cases/*.yaml
(the schema: tests/tool_cases/README.md). Each case is planned when its request names the tools,
compiles for both targets and both read layouts, passes `snakemake -n`, `snakemake --lint`,
`snakefmt --check`, Nextflow's strict parser, every module has a stub and its tool's version
command, and each tool's rule and module match the golden files in tests/golden/tools/
(BIOPLAN_UPDATE_GOLDEN=1 rewrites them). A case names the end-to-end run of its tools
(tests/e2e/...), or why they cannot run here (not in Debian or on PyPI): those get every check short
of a run.
"""

from __future__ import annotations

import gzip
import hashlib
import os
from pathlib import Path

import pytest
import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

from bioplan.compile import compile_request, plan_request
from bioplan.models import InputProfile
from bioplan.request.parse import parse_request
from bioplan.request.spec import build_spec
from conftest import GOLDEN, ROOT, PlanOnce, SniffOnce, skip_or_fail_in_ci
from helpers import DryRunLoop, loop_checks

TOOL_GOLDEN = GOLDEN / "tools"
CASE_DIR = Path(__file__).resolve().parent / "tool_cases"
SAMPLES = ("ctrl_1", "ctrl_2", "treated_1", "treated_2")
LAYOUTS = ("paired", "single")
TARGETS = (("snakemake", "Snakefile"), ("nextflow", "main.nf"))


class ToolCase(BaseModel):
    """One request of tests/tool_cases/<family>.yaml."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    request: str
    inputs: tuple[str, ...] = ()
    reads: bool = True
    binds: dict[str, str]
    references: tuple[str, ...] = ()
    known_sites: bool = False
    run: str | None = None
    not_runnable: str | None = None

    @model_validator(mode="after")
    def _run_or_why_not(self) -> ToolCase:
        if (self.run is None) == (self.not_runnable is None):
            raise ValueError("a case names its end-to-end run (run:) or why it has none (not_runnable:), not both")
        return self


class GoldenFiles(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    case: str
    rule: str
    module: str


class Family(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    cases: dict[str, ToolCase]
    golden: dict[str, GoldenFiles] = Field(default_factory=dict)
    named: tuple[tuple[str, str], ...] = ()


def load_families() -> dict[str, Family]:
    """The case tables, read with libyaml's safe loader where PyYAML has it (the same values as
    yaml.safe_load's in a tenth of its time: every xdist worker reads them while collecting)."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return {path.stem: Family.model_validate(yaml.load(path.read_text(), Loader=loader))
            for path in sorted(CASE_DIR.glob("*.yaml"))}


FAMILIES = load_families()
CASES: dict[str, ToolCase] = {case: spec for family in FAMILIES.values() for case, spec in family.cases.items()}
GOLDEN_FILES: dict[str, GoldenFiles] = {tool: files for family in FAMILIES.values()
                                        for tool, files in family.golden.items()}
NAMED: list[tuple[str, str]] = [pair for family in FAMILIES.values() for pair in family.named]


def write_transcriptome(genome: Path, gtf: Path, out: Path) -> None:
    """The spliced transcripts of the GTF (what `gffread -w` writes), without needing gffread."""
    contigs, name = {}, None
    for line in genome.read_text().splitlines():
        if line.startswith(">"):
            name = line[1:].split()[0]
            contigs[name] = []
        elif name:
            contigs[name].append(line.strip())
    seqs = {k: "".join(v) for k, v in contigs.items()}
    exons: dict[str, list[tuple[str, int, int, str]]] = {}
    for line in gtf.read_text().splitlines():
        cols = line.split("\t")
        if line.startswith("#") or len(cols) < 9 or cols[2] != "exon":
            continue
        tx = cols[8].split('transcript_id "')[1].split('"')[0]
        exons.setdefault(tx, []).append((cols[0], int(cols[3]), int(cols[4]), cols[6]))
    complement = str.maketrans("ACGTNacgtn", "TGCANtgcan")
    with out.open("w") as fh:
        for tx, parts in sorted(exons.items()):
            seq = "".join(seqs[c][s - 1:e] for c, s, e, _ in sorted(parts, key=lambda p: p[1]))
            if parts[0][3] == "-":
                seq = seq.translate(complement)[::-1]
            fh.write(f">{tx}\n{seq}\n")


@pytest.fixture(scope="module")
def data(workspace) -> Path:
    d = workspace / "data" / "rnaseq_fastq"
    if not (d / "transcripts.fa").exists():
        write_transcriptome(d / "genome.fa", d / "genes.gtf", d / "transcripts.fa")
    if not (d / "proteins.faa").exists():  # reference proteins for a DIAMOND database (metagenomics.yaml)
        (d / "proteins.faa").write_text(">ref_protein_1 planted\nMKRISTTITTTITITTGNGAGLEHHHHHHKLLVVAGGSW\n"
                                        ">ref_protein_2 planted\nMSDNQLKEFAEKLGIRVEQLRQWLEENRPHLQAVAKGEK\n")
    return d


def single_end(data: Path) -> Path:
    """The example's single-end reads as a single-end run writes them: under names no one reads as
    mates ('ctrl_1.fastq.gz' and 'ctrl_2.fastq.gz' look like the mates of a sample 'ctrl') and
    without the '1:N:0:' mate comment of the paired run they were cut from; with a sample sheet."""
    se = data.parent / "rnaseq_fastq_se"
    if not se.exists():
        se.mkdir()
        rows = ["sample\tcondition"]
        for sample in SAMPLES:
            name = sample.replace("_", "")
            with gzip.open(data / "reads_se" / f"{sample}.fastq.gz", "rt") as src:
                lines = src.read().splitlines()
            lines[::4] = [header.split()[0] for header in lines[::4]]
            with gzip.open(se / f"{name}.fastq.gz", "wt") as dst:
                dst.write("\n".join(lines) + "\n")
            rows.append(f"{name}\t{'control' if sample.startswith('ctrl') else 'treated'}")
        (se / "samples.tsv").write_text("\n".join(rows) + "\n")
    return se


def case_inputs(data: Path, case: str, layout: str) -> list[str]:
    spec = CASES[case]
    if not spec.reads:  # the same files for both layouts
        return [str(data / f) for f in spec.inputs]
    if layout == "paired":
        reads = [str(data / "reads" / f"{s}_R{m}.fastq.gz") for s in SAMPLES for m in (1, 2)]
        return reads + [str(data / f) for f in spec.inputs]
    se = single_end(data)
    reads = [str(se / f"{s.replace('_', '')}.fastq.gz") for s in SAMPLES]
    return reads + [str((se if f == "samples.tsv" else data) / f) for f in spec.inputs]


def put_references(workdir: Path, spec: ToolCase) -> None:
    """What the user puts at the config's reference paths before a run (`snakemake -n` stops before
    any job when a reference is missing): at the path config.yaml gives each named reference key, a
    folder for a key ending in /, else an empty file; the
    known sites as two SNVs on the example genome's chr1, bgzipped and tabix-indexed."""
    config = yaml.safe_load((workdir / "config" / "config.yaml").read_text())
    for ref in spec.references:
        path = workdir / config["references"][ref.rstrip("/")]
        if ref.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
    if spec.known_sites:
        vcf = workdir / "resources" / "known_variant_sites.vcf"
        vcf.parent.mkdir(parents=True, exist_ok=True)
        vcf.write_text("##fileformat=VCFv4.2\n##contig=<ID=chr1>\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n"
                       "chr1\t2\trs1\tA\tG\t.\t.\t.\nchr1\t9\trs2\tC\tT\t.\t.\t.\n")
        import pysam  # here, not at collection: only the e2e dry runs put references (~0.04 CPU-s a worker)

        pysam.tabix_index(str(vcf), preset="vcf", force=True)


class CaseCompiles(dict):
    """(case, layout, target) -> CompileResult, each compiled on first use (a test, or an xdist worker,
    compiles only the cases it reads), without compile's `snakemake -n` pre-check: the e2e test
    test_snakemake_passes_dry_run_lint_and_snakefmt dry-runs, lints and formats each Snakefile itself.
    The two targets of a case and layout compile one plan (conftest.PlanOnce), and the reads every case
    shares are sniffed once (conftest.SniffOnce)."""

    def __init__(self, data: Path, workspace: Path, knowledge):
        super().__init__()
        self.data, self.workspace, self.knowledge = data, workspace, knowledge
        self.plans, self.sniffs = PlanOnce(), SniffOnce()

    def __missing__(self, key: tuple[str, str, str]):
        case, layout, target = key
        spec, entry = CASES[case], dict(TARGETS)[target]
        dest = self.workspace / "named_tools" / f"{case}_{layout}_{target}" / entry
        with self.plans, self.sniffs:
            result = compile_request(spec.request, case_inputs(self.data, case, layout), str(dest), target=target,
                                     force=True, validate=False, knowledge=self.knowledge)
        self[key] = result
        return result


@pytest.fixture(scope="module")
def compiled(data, workspace, knowledge):
    return CaseCompiles(data, workspace, knowledge)


def xdist_group_of(item) -> str | None:
    """The tests of one case share a pytest-xdist worker (tests/conftest.py: xdist_group), so each
    case is compiled by one worker only; the other tests of the module form one more group."""
    params = getattr(item, "callspec", None)
    params = params.params if params is not None else {}
    if "case" in params:
        return params["case"]
    return GOLDEN_FILES[params["tool"]].case if "tool" in params and "layout" in params else None


def test_the_case_tables_are_consistent(knowledge):
    """Every golden entry names a case of its family and a tool the case binds; every tool, operation
    and e2e module named exists; no case name is used twice."""
    assert sum(len(f.cases) for f in FAMILIES.values()) == len(CASES), "a case name is used in two families"
    for name, family in FAMILIES.items():
        for case, spec in family.cases.items():
            assert spec.binds.keys() <= knowledge.operations.keys(), (name, case)
            assert set(spec.binds.values()) <= knowledge.tools.keys(), (name, case)
            assert spec.run is None or (ROOT / spec.run).is_file(), (name, case, spec.run)
        for tool, files in family.golden.items():
            assert files.case in family.cases and tool in family.cases[files.case].binds.values(), (name, tool)
        assert {tool for _, tool in family.named} <= knowledge.tools.keys(), name


@pytest.mark.parametrize("case", CASES)
def test_the_named_tools_are_bound(compiled, case):
    for layout in LAYOUTS:
        plan = compiled[case, layout, "snakemake"].plan
        bound = {s.operation: s.tool for s in plan.steps}
        assert CASES[case].binds.items() <= bound.items(), bound


@pytest.mark.parametrize(("query", "tool"), NAMED)
def test_naming_the_tool_is_no_longer_refused(knowledge, query, tool):
    """The absent-tools entries of lexicon.yaml are gone: the tool is preferred, not unknown_tool."""
    request = parse_request(query, knowledge)
    assert not [a for a in request.absent if a.kind == "tool"], request.absent
    spec = build_spec(request, InputProfile(), knowledge)
    assert spec.preferred_tools == (tool,) and spec.required_operations == (knowledge.tools[tool].implements,)
    assert not spec.deviations


def test_kallisto_index_and_quant_come_together(knowledge, data):
    """A kallisto index is read only by kallisto quant (and a Salmon index only by Salmon)."""
    files = case_inputs(data, "kallisto", "paired")
    for word, index_tool, quant_tool in (("kallisto", "kallisto_index", "kallisto_quant"),
                                         ("salmon", "salmon_index", "salmon_quant")):
        result = plan_request(f"quantify transcripts with {word} and summarise to genes with tximport", files,
                              knowledge)
        tools = {s.operation: s.tool for s in result.plans[0].steps}
        assert (tools["transcriptome_indexing"], tools["transcript_quantification"]) == (index_tool, quant_tool)


def test_recalibration_sits_between_duplicate_marking_and_calling(compiled):
    """BQSR reads the duplicate-marked BAMs and HaplotypeCaller the recalibrated ones; the known sites
    come from the config (a reference the user fills in), not from an input."""
    plan = compiled["gatk_germline", "paired", "snakemake"].plan
    steps = {s.operation: s for s in plan.steps}
    assert steps["base_recalibration"].sources["bam"] == "duplicate_marking"
    assert steps["base_recalibration"].sources["known_sites"] == "config:known_variant_sites"
    assert steps["variant_calling"].sources["bams"] == "base_recalibration"


def test_the_merged_table_reads_the_reestimated_profiles(compiled):
    """Kraken2 -> Bracken -> merge: the table merges Bracken's profiles (made from Kraken2's reports:
    a supertype, but more processed), never Kraken2's reports beside an unread Bracken step."""
    for layout in LAYOUTS:
        steps = {s.operation: s for s in compiled["taxpasta", layout, "snakemake"].plan.steps}
        assert steps["abundance_table_merge"].sources["profiles"] == "abundance_estimation"
        assert steps["abundance_estimation"].sources["classification"] == "taxonomic_classification"


def test_somatic_calling_is_not_germline_calling(compiled):
    """A somatic request plans Mutect2 alone (no germline caller beside it); the normal sample is the
    tool's `normal_sample` param, passed as -normal only when set (tumour-only otherwise)."""
    plan = compiled["somatic", "paired", "snakemake"].plan
    assert "variant_calling" not in {s.operation for s in plan.steps}
    rule = (compiled["somatic", "paired", "snakemake"].output_dir / GOLDEN_FILES["gatk4_mutect2"].rule).read_text()
    assert 'normal_sample=config["params"]["gatk4_mutect2"]["normal_sample"]' in rule
    assert 'inputs+=(-normal "$normal")' in rule
    module = (compiled["somatic", "paired", "nextflow"].output_dir / GOLDEN_FILES["gatk4_mutect2"].module).read_text()
    assert "normal_sample ? \"--normal-sample ${normal_sample}\" : ''" in module


@pytest.fixture(scope="session")
def check_loop():
    """One Snakemake process per pytest worker for every case's dry run, lint and snakefmt (about
    0.3 s a workflow instead of ~4 s of three new processes, each importing Snakemake)."""
    loop = DryRunLoop()
    yield loop
    loop.close()


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", CASES)
def test_snakemake_passes_dry_run_lint_and_snakefmt(compiled, check_loop, case, layout):
    """validate_workflow's checks, arguments and verdicts, in the shared process (helpers.loop_checks)."""
    workdir = compiled[case, layout, "snakemake"].output_dir
    put_references(workdir, CASES[case])  # what `snakemake -n` checks (the fast tests read no reference)
    for name, ok, output in loop_checks(check_loop, workdir):
        assert ok, f"{name} failed for {case}/{layout}:\n{output[-3000:]}"


def parsed_sources(pipeline: Path) -> str:
    """A digest of what the strict parser reads in a pipeline: its .nf and .config files, by path."""
    digest = hashlib.sha256()
    for path in sorted(p for p in pipeline.rglob("*") if p.suffix in (".nf", ".config") and p.is_file()):
        digest.update(f"{path.relative_to(pipeline)}\0".encode() + path.read_bytes() + b"\0")
    return digest.hexdigest()


def test_nextflow_passes_the_strict_parser(compiled, nf_lint, monkeypatch):
    """Every case x layout in one parser run (Java starts once): the output names any failing file.
    A pipeline whose parsed files equal another's, byte for byte at the same paths (a case whose two
    layouts emit the same sources), is parsed once: the parser's verdict on them is the same.
    The pipeline's own functions (utils_bioplan_pipeline, a quarter of the bytes parsed) are taken by the
    parser's fast pass (NF_LINT_SLL): a construct it finds ambiguous makes nf-lang parse the file again
    the slow way, in every `nextflow lint` (and here: ~30 % more CPU)."""
    distinct = {}
    for case in CASES:
        for layout in LAYOUTS:
            pipeline = compiled[case, layout, "nextflow"].output_dir
            distinct.setdefault(parsed_sources(pipeline), pipeline)
    monkeypatch.setenv("NF_LINT_SLL", "/subworkflows/local/utils_bioplan_pipeline/")
    result = nf_lint(*distinct.values())
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count(": OK (") == len(distinct), result.stdout  # each pipeline parsed
    assert "needs the slow pass" not in result.stdout, result.stdout


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", CASES)
def test_every_nextflow_module_has_a_stub_and_a_version_command(compiled, knowledge, case, layout):
    workdir = compiled[case, layout, "nextflow"].output_dir
    for tool, files in GOLDEN_FILES.items():
        if files.case != case:
            continue
        text = (workdir / files.module).read_text()
        assert "stub:" in text and "topic: versions" in text
        assert knowledge.tools[tool].software.version_command.replace("'", "\\'") in text


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("tool", GOLDEN_FILES)
def test_golden_rule_and_module(compiled, tool, layout):
    """The rule and module of each tool match tests/golden/tools/<tool>.<layout>.{smk,nf}."""
    files = GOLDEN_FILES[tool]
    produced = {
        f"{tool}.{layout}.smk": (compiled[files.case, layout, "snakemake"].output_dir / files.rule).read_text(),
        f"{tool}.{layout}.nf": (compiled[files.case, layout, "nextflow"].output_dir / files.module).read_text(),
    }
    for name, text in produced.items():
        golden = TOOL_GOLDEN / name
        if os.environ.get("BIOPLAN_UPDATE_GOLDEN"):
            golden.parent.mkdir(parents=True, exist_ok=True)
            golden.write_text(text)
        if not golden.exists():
            skip_or_fail_in_ci(f"no golden file {golden}; BIOPLAN_UPDATE_GOLDEN=1 writes it")
        assert text == golden.read_text(), f"{name} differs from the golden file"

"""References (issue 14): every file a workflow reads that the user did not pass is named (compile's
output, --json, config, README), checked before any job runs, and follows the organism and genome build.

The development-set test (marked e2e) dry-runs every plannable case of
compiler/bioplan/evaluate/dev_set.yaml: `snakemake -n` passes, or stops only with the start-check
message naming exactly the references compile named, and with those in place it passes (so
nothing unnamed is read). Cases whose workflow IR is the same apart from the request's own words
(the request text, the workflow name, deviations and unrecognised words, which reach only config
`request:` and the READMEs, never a rule or an input path) emit the same rules over the same files,
so one dry run stands for the group (about 180 cases, about 110 workflows). The README's headline
`bioplan compile` example, read from README.md, is compiled first and must dry-run clean (every file it
reads is given). The dry runs share one
Snakemake process (tests/helpers.py DryRunLoop), which works while the next workflow is emitted:
dry-running all ~180 compiles one `snakemake` process each took 12 minutes on the shared 2 cores.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from bioplan.compile import compile_request, plan_request
from bioplan.errors import BioplanError, ConstraintViolationError
from bioplan.evaluate.cases import DEV_SET, load_cases
from bioplan.evaluate.fixtures import ensure_data, needed_classes, resolve_inputs, write_fixtures
from bioplan.knowledge.references import check_catalog, load_catalog
from bioplan.validate.snakemake_checks import dry_run
from helpers import DryRunLoop

START_CHECK = re.compile(r"bioplan: (\d+) reference file\(s\) missing")
NAMED = re.compile(r"^  references\.([A-Za-z0-9_]+): ", re.MULTILINE)


# --------------------------------------------------------------------------- the development set


# The request's own words: they reach config `request:` and the READMEs, never a rule or a path.
REQUEST_WORDS = {"query", "name", "deviations", "unrecognized"}
README_HEADLINE = "README.md headline example"


def _readme_headline(data: Path) -> tuple[SimpleNamespace, list[str]]:
    """(a case-like record, inputs) of the first `bioplan compile` command of README.md's bash blocks,
    its `data/...` inputs read from the session's example data (what setup.sh generates)."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```bash\n(.*?)^```", readme, re.S | re.M)
    lines = next(b for b in blocks if "bioplan compile" in b).replace("\\\n", " ").splitlines()
    words = shlex.split(next(line for line in lines if line.lstrip().startswith("bioplan compile")))
    request, options = words[2], words[3:]
    flags = set(options[0::2])
    assert flags <= {"-i", "-o"}, f"the README's compile has options this test does not read: {flags}"
    inputs = [str(data / value.removeprefix("data/")) for flag, value in zip(options[0::2], options[1::2])
              if flag == "-i"]
    assert inputs and all(Path(p).exists() for p in inputs), inputs
    return SimpleNamespace(id=README_HEADLINE, request=request), inputs


def _dev_set_workflows(knowledge, workspace, base):
    """{IR without the request's own words: [(case, inputs, declared, plan result)]} over every plannable case."""
    from bioplan.codegen.ir import synthesize

    cf = load_cases(DEV_SET, knowledge)
    cases = [c for c in cf.cases if c.expect.error is None]
    data, fixtures = workspace / "data", base / "fixtures"  # the session's example data, generated once
    fixtures.mkdir()
    failed = ensure_data(data, needed_classes(cases, cf.fixtures))
    assert not failed, f"example data this machine cannot generate leaves cases undried: {failed}"
    write_fixtures(cf, fixtures, data, cases)
    headline, headline_inputs = _readme_headline(data)
    groups: dict[str, list[tuple]] = {}
    for case, (inputs, declared) in [(headline, (headline_inputs, {})),
                                     *((c, resolve_inputs(c, data, fixtures)) for c in cases)]:
        try:
            result = plan_request(case.request, inputs, knowledge, declared=declared)
            workflow = synthesize(knowledge, result.spec, result.plans[0], workdir=str(base / "out" / "w"))
        except BioplanError:
            continue  # a case bioplan refuses is the eval's business, not this test's
        groups.setdefault(workflow.model_dump_json(exclude=REQUEST_WORDS), []).append((case, inputs, declared, result))
    return groups


@pytest.fixture(scope="module")
def dev_dry_runs(knowledge, workspace, tmp_path_factory):
    """([(case ids, CompileResult, first dry run)] for one compile per distinct workflow of the development
    set, compiled from the plan made while grouping (not planned twice); each is dry-run in the shared Snakemake
    process while the next one is emitted], the loop, open for the test's second round)."""
    base = tmp_path_factory.mktemp("devset")
    groups = _dev_set_workflows(knowledge, workspace, base)
    assert sum(map(len, groups.values())) > 150, "most development-set cases should plan"
    loop = DryRunLoop()
    try:
        compiled = []
        for i, members in enumerate(groups.values()):
            case, inputs, declared, result = members[0]
            res = compile_request(case.request, inputs, str(base / "out" / f"{i:03d}" / "Snakefile"), validate=False,
                                  knowledge=knowledge, declared=declared, planned=result)
            loop.submit(res.output_dir)
            compiled.append(([m[0].id for m in members], res))
        firsts = loop.results()
        # the loop stays for the test's second round (a Python and Snakemake start fewer)
        yield [(ids, res, first) for (ids, res), first in zip(compiled, firsts)], loop
    finally:
        loop.close()


@pytest.mark.e2e
def test_every_dev_set_plan_dry_runs_or_stops_naming_only_its_references(dev_dry_runs):
    dev_dry_runs, loop = dev_dry_runs
    with_refs = []
    for case_ids, res, (code, output) in dev_dry_runs:
        workdir = res.output_dir
        named = {r.key for r in res.workflow.references}
        config = yaml.safe_load((workdir / "config" / "config.yaml").read_text(encoding="utf-8"))
        # config and README name the same references compile named
        assert set(config.get("references") or {}) == named, case_ids
        readme = (workdir / "README.md").read_text(encoding="utf-8")
        assert all(f"`references.{k}`" in readme for k in named), case_ids
        assert "MissingInputException" not in output, f"{case_ids}: a raw MissingInputException\n{output}"
        if code == 0:
            assert not named, f"{case_ids}: passed although references are missing"
            continue
        m = START_CHECK.search(output)
        assert m, f"{case_ids}: snakemake -n failed other than on references:\n{output[-2000:]}"
        in_message = set(NAMED.findall(output))
        assert in_message == named and int(m.group(1)) == len(named), (case_ids, output)
        with_refs.append((case_ids, res))
    assert len(with_refs) >= 3, "the development set has plans that need references"
    # the README's headline example: first of its group, compiled as written, and nothing is missing
    headline = [(ids, code, output) for ids, _, (code, output) in dev_dry_runs if README_HEADLINE in ids]
    assert headline, "the README's headline example did not plan"
    (ids, code, output), = headline
    assert ids[0] == README_HEADLINE and code == 0, (ids, output[-2000:])
    # the shared Snakemake process judges as a fresh `snakemake -n` does (one workflow checked both ways)
    fresh = dry_run(with_refs[0][1].output_dir)
    assert not fresh.ok and set(NAMED.findall(fresh.output)) == {r.key for r in with_refs[0][1].workflow.references}
    # with the named references in place, nothing else is missing (in the fixture's loop)
    for _, res in with_refs:
        config = yaml.safe_load((res.output_dir / "config" / "config.yaml").read_text(encoding="utf-8"))
        for r in res.workflow.references:
            path = res.output_dir / config["references"][r.key]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.mkdir(exist_ok=True) if r.directory else path.touch()
        loop.submit(res.output_dir)
    seconds = loop.results()
    for (case_ids, _), (code, output) in zip(with_refs, seconds):
        assert code == 0, f"{case_ids}: with every named reference present:\n{output[-2000:]}"


def test_compile_json_lists_references_with_the_steps_reading_them(workspace, tmp_path):
    from click.testing import CliRunner

    from bioplan.cli import main

    data = workspace / "data" / "bulk_de"
    out = tmp_path / "wf" / "Snakefile"
    result = CliRunner().invoke(main, ["compile", "mouse bulk RNA-seq raw counts: differential expression, then "
                                       "KEGG enrichment", "-i", str(data / "counts.csv"), "-i",
                                       str(data / "samples.tsv"), "-i", str(data / "gene_sets_kegg.gmt"),
                                       "-o", str(out), "--no-validate", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output[result.output.index("{"):])
    refs = {r["name"]: r for r in report["references"]}
    assert set(refs) == {"gene_id_mapping"}
    mapping = refs["gene_id_mapping"]
    assert mapping["read_by"] == ["gene_id_conversion"] and mapping["format"] == "tsv"
    assert mapping["file_name"] == "Mus_musculus.GRCm39.112.gene_id_mapping.tsv"
    assert "Mus_musculus.GRCm39.112.entrez.tsv.gz" in mapping["where"] and mapping["why"]
    text = CliRunner().invoke(main, ["compile", "mouse bulk RNA-seq raw counts: differential expression, then "
                                     "KEGG enrichment", "-i", str(data / "counts.csv"), "-i",
                                     str(data / "samples.tsv"), "-i", str(data / "gene_sets_kegg.gmt"),
                                     "-o", str(tmp_path / "wf2" / "Snakefile"), "--no-validate"])
    assert "references.gene_id_mapping: resources/ensembl-112/Mus_musculus.GRCm39.112.gene_id_mapping.tsv" \
        in text.output and "read by gene_id_conversion" in text.output


def test_the_start_check_names_every_missing_reference_once(workspace, tmp_path):
    """Snakemake stops at parse time with one message; a reference put in place leaves the list."""
    reads = sorted(str(p) for p in (workspace / "data" / "rnaseq_fastq").glob("*.fastq.gz"))
    res = compile_request("mouse RNA-seq: align the reads with hisat2 and count reads per gene", reads,
                          str(tmp_path / "wf" / "Snakefile"), validate=False)
    keys = {r.key for r in res.workflow.references}
    assert {"reference_genome", "gene_annotation"} <= keys
    out = dry_run(res.output_dir)
    assert not out.ok and set(NAMED.findall(out.output)) == keys and "MissingInputException" not in out.output
    assert "get it: Ensembl 112 Mus musculus GRCm39" in out.output
    config = yaml.safe_load((res.output_dir / "config" / "config.yaml").read_text())
    genome = res.output_dir / config["references"]["reference_genome"]
    genome.parent.mkdir(parents=True, exist_ok=True)
    genome.write_text(">1\nACGT\n")
    again = dry_run(res.output_dir)
    assert set(NAMED.findall(again.output)) == keys - {"reference_genome"}


# --------------------------------------------------------------------------- organism and build


def _reference_paths(res) -> dict[str, str]:
    config = yaml.safe_load((res.output_dir / "config" / "config.yaml").read_text(encoding="utf-8"))
    return config["references"]


@pytest.mark.parametrize("request_words, expected", [
    ("human GRCh38", {"reference_genome": "resources/ensembl-112/Homo_sapiens.GRCh38.dna.primary_assembly.fa",
                      "gene_annotation": "resources/ensembl-112/Homo_sapiens.GRCh38.112.gtf"}),
    ("human GRCh37", {"reference_genome": "resources/ensembl-87/Homo_sapiens.GRCh37.dna.primary_assembly.fa",
                      "gene_annotation": "resources/ensembl-87/Homo_sapiens.GRCh37.87.gtf"}),
    ("human hg19", {"reference_genome": "resources/gencode-46lift37/GRCh37.primary_assembly.genome.fa",
                    "gene_annotation": "resources/gencode-46lift37/gencode.v46lift37.annotation.gtf"}),
    ("mouse GRCm39", {"reference_genome": "resources/ensembl-112/Mus_musculus.GRCm39.dna.primary_assembly.fa",
                      "gene_annotation": "resources/ensembl-112/Mus_musculus.GRCm39.112.gtf"}),
    ("mouse mm10", {"reference_genome": "resources/gencode-m25/GRCm38.primary_assembly.genome.fa",
                    "gene_annotation": "resources/gencode-m25/gencode.vM25.annotation.gtf"}),
    ("mouse GRCm38", {"reference_genome": "resources/ensembl-102/Mus_musculus.GRCm38.dna.primary_assembly.fa",
                      "gene_annotation": "resources/ensembl-102/Mus_musculus.GRCm38.102.gtf"}),
])
def test_genome_and_annotation_follow_organism_and_build(workspace, tmp_path, request_words, expected):
    reads = sorted(str(p) for p in (workspace / "data" / "rnaseq_fastq").glob("*.fastq.gz"))
    res = compile_request(f"{request_words} RNA-seq: align the reads with hisat2 and count reads per gene", reads,
                          str(tmp_path / "wf" / "Snakefile"), validate=False)
    paths = _reference_paths(res)
    assert {k: paths[k] for k in expected} == expected
    build = res.workflow.genome_build
    assert build == {"hg19": "GRCh37", "mm10": "GRCm38"}.get(request_words.split()[1], request_words.split()[1])
    config = (res.output_dir / "config" / "config.yaml").read_text(encoding="utf-8")
    assert f"for genome build {build}." in config
    readme = (res.output_dir / "README.md").read_text(encoding="utf-8")
    wrong = {"GRCh38", "GRCh37", "GRCm39", "GRCm38"} - {build}
    hints = " ".join(r.hint for r in res.workflow.references)
    assert not [w for w in wrong if w in hints], hints  # no hint invites another build
    assert f"genome build {build}" in readme


def test_gene_sets_follow_the_organism(workspace, tmp_path):
    """MSigDB species code and collection follow organism and analysis; mouse KEGG is not in MSigDB."""
    data = workspace / "data" / "bulk_de"
    counts, samples = str(data / "counts.csv"), str(data / "samples.tsv")
    go = compile_request("mouse bulk RNA-seq raw counts: differential expression, then GO enrichment",
                         [counts, samples, str(data / "id_mapping.tsv")], str(tmp_path / "go" / "Snakefile"),
                         validate=False)
    lib = next(r for r in go.workflow.references if r.datatype == "gene_set_library")
    assert lib.file_name.startswith("m5.go.bp.v2024.1.Mm.") and lib.downloads
    assert lib.downloads[0].url.endswith(f"/release/2024.1.Mm/{lib.file_name}")
    assert ".Hs." not in lib.hint
    kegg = compile_request("mouse bulk RNA-seq raw counts: differential expression, then KEGG enrichment",
                           [counts, samples, str(data / "id_mapping.tsv")], str(tmp_path / "kegg" / "Snakefile"),
                           validate=False)
    lib = next(r for r in kegg.workflow.references if r.datatype == "gene_set_library")
    assert not lib.downloads and "no mouse KEGG" in lib.hint and ".Hs." not in lib.hint


def test_two_analyses_get_one_library_each(workspace, tmp_path):
    data = workspace / "data" / "bulk_de"
    res = compile_request("mouse bulk RNA-seq raw counts: differential expression, then KEGG and GO enrichment",
                          [str(data / "counts.csv"), str(data / "samples.tsv")], str(tmp_path / "wf" / "Snakefile"),
                          validate=False)
    libraries = {r.key: r for r in res.workflow.references if r.datatype == "gene_set_library"}
    assert set(libraries) == {"gene_set_library_go_enrichment", "gene_set_library_kegg_enrichment"}
    assert libraries["gene_set_library_go_enrichment"].read_by == ("go_enrichment",)
    assert libraries["gene_set_library_go_enrichment"].file_name.startswith("m5.go.bp.")
    assert not libraries["gene_set_library_kegg_enrichment"].downloads  # no mouse KEGG in MSigDB


def test_the_nextflow_schema_describes_references_for_the_organism_and_given_files_by_content(workspace, tmp_path):
    """nextflow_schema.json: a reference's description is its organism-aware hint (mouse GO sets, not
    the human KEGG file a datatype's first source names); a given file's is what it holds."""
    data = workspace / "data" / "bulk_de"
    res = compile_request("mouse bulk RNA-seq raw counts: differential expression, then GO enrichment",
                          [str(data / "counts.csv"), str(data / "samples.tsv"), str(data / "id_mapping.tsv")],
                          str(tmp_path / "nf" / "main.nf"), target="nextflow", validate=False)
    schema = json.loads((tmp_path / "nf" / "nextflow_schema.json").read_text(encoding="utf-8"))
    params = {k: v for group in schema["$defs"].values() for k, v in group.get("properties", {}).items()}
    library = next(r for r in res.workflow.references if r.datatype == "gene_set_library")
    assert params[library.key]["description"] == library.hint[:200]
    assert ".Mm." in params[library.key]["description"] and ".Hs." not in params[library.key]["description"]
    assert params["raw_count_matrix"]["description"].startswith("Genes x samples matrix of raw")
    # the same hint wherever the config inputs are described (the RO-Crate's entry for the config key)
    crate = json.loads((tmp_path / "nf" / "ro-crate-metadata.json").read_text(encoding="utf-8"))
    described = [e.get("description", "") for e in crate["@graph"]]
    assert f"config/config.yaml references.{library.key}: {library.hint}" in described


def test_human_gene_sets_are_msigdb_hs(tmp_path):
    counts = tmp_path / "counts.csv"
    genes = [f"ENSG{n:011d}" for n in range(1, 41)]
    counts.write_text("gene_id,a1,a2,a3,b1,b2,b3\n" + "".join(
        f"{g},{10 + i},{12 + i},{11 + i},{30 + 2 * i},{28 + 2 * i},{33 + 2 * i}\n" for i, g in enumerate(genes)))
    samples = tmp_path / "samples.tsv"
    samples.write_text("sample\tcondition\na1\tA\na2\tA\na3\tA\nb1\tB\nb2\tB\nb3\tB\n")
    res = compile_request("human bulk RNA-seq raw counts: differential expression, then KEGG enrichment",
                          [str(counts), str(samples)], str(tmp_path / "wf" / "Snakefile"), validate=False)
    by_type = {r.datatype: r for r in res.workflow.references}
    assert by_type["gene_set_library"].file_name == "c2.cp.kegg_legacy.v2024.1.Hs.entrez.gmt"
    assert by_type["gene_id_mapping"].file_name == "Homo_sapiens.GRCh38.112.gene_id_mapping.tsv"


def test_the_organism_is_inferred_from_gene_id_prefixes_and_a_disagreeing_request_is_an_error(knowledge, workspace,
                                                                                                 tmp_path):
    """No organism in the request: Ensembl mouse ids (ENSMUSG) make the references mouse ones; a request
    saying human over them is refused naming the file."""
    data = workspace / "data" / "bulk_de"
    inputs = [str(data / "counts.csv"), str(data / "samples.tsv"), str(data / "gene_sets_kegg.gmt")]
    from bioplan.codegen.ir import synthesize

    result = plan_request("bulk RNA-seq raw counts: differential expression, then KEGG enrichment", inputs, knowledge)
    assert any("inferred from gene ids" in w for w in result.spec.warnings), result.spec.warnings
    workflow = synthesize(knowledge, result.spec, result.plans[0], workdir=str(tmp_path / "wf"))
    (mapping,) = [r for r in workflow.references if r.key == "gene_id_mapping"]
    assert mapping.file_name == "Mus_musculus.GRCm39.112.gene_id_mapping.tsv"
    with pytest.raises(ConstraintViolationError, match="counts.csv"):
        plan_request("human bulk RNA-seq raw counts: differential expression, then KEGG enrichment", inputs, knowledge)


def _vcf(path: Path, chr1_length: int, reference: str = "", chrom: str = "1") -> str:
    header = ["##fileformat=VCFv4.2", f"##contig=<ID={chrom},length={chr1_length}>"]
    if reference:
        header.append(f"##reference={reference}")
    header.append("##INFO=<ID=DP,Number=1,Type=Integer,Description=\"Depth\">")
    header.append("#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO")
    path.write_text("\n".join(header) + f"\n{chrom}\t100\t.\tA\tG\t50\tPASS\tDP=20\n")
    return str(path)


def test_the_build_is_inferred_from_a_vcf_and_a_disagreeing_request_is_an_error(tmp_path):
    grch37 = _vcf(tmp_path / "calls.vcf", 249250621, "file:///ref/human_g1k_v37.fasta")
    result = plan_request("filter the variants by quality", [grch37])
    assert result.spec.constraints["genome_build"] == "GRCh37"
    assert any("genome build GRCh37 inferred" in w for w in result.spec.warnings)
    says = r"says GRCh38 but .*calls.vcf is GRCh37: chromosome 1 is 249,250,621 bp"
    with pytest.raises(ConstraintViolationError, match=says):
        plan_request("human GRCh38: filter the variants by quality", [grch37])
    mm10 = _vcf(tmp_path / "mouse.vcf", 195471971, chrom="chr1")
    with pytest.raises(ConstraintViolationError, match="GRCm39"):
        plan_request("mouse GRCm39: filter the variants by quality", [mm10])
    spec = plan_request("mouse: filter the variants by quality", [mm10]).spec
    assert spec.constraints["genome_build"] == "GRCm38" and spec.constraints["reference_names"] == "chr"


def test_a_gtf_header_names_its_build(tmp_path):
    gtf = tmp_path / "genes.gtf"
    gtf.write_text("#!genome-build GRCm38.p6\n#!genome-version GRCm38\n"
                   '1\tensembl\tgene\t100\t900\t.\t+\t.\tgene_id "ENSMUSG00000000001"; gene_name "Gnai3";\n')
    with pytest.raises(ConstraintViolationError, match="GRCm38"):
        plan_request("mouse mm39 RNA-seq: align the reads with hisat2 and count reads per gene", [str(gtf)])


def test_the_catalog_agrees_with_the_knowledge(knowledge):
    organisms = {c.id for c in knowledge.constraints.values() if c.kind == "organism"}
    builds = {c.id: c.genome_builds for c in knowledge.constraints.values() if c.kind == "organism"}
    assert check_catalog(load_catalog(), organisms, builds) == []
    # a catalog naming an organism the knowledge lacks is reported
    assert check_catalog(load_catalog(), organisms - {"organism_mouse"}, builds)


def test_the_nextflow_pipeline_checks_its_references_before_any_process(workspace, tmp_path, nf_lint):
    data = workspace / "data" / "bulk_de"
    res = compile_request("mouse bulk RNA-seq raw counts: differential expression, then KEGG enrichment",
                          [str(data / "counts.csv"), str(data / "samples.tsv"), str(data / "gene_sets_kegg.gmt")],
                          str(tmp_path / "nf" / "main.nf"), target="nextflow")
    main = (res.output_dir / "main.nf").read_text(encoding="utf-8")
    body = main[main.index("workflow {"):]
    assert body.index("checkReferences()") < body.index("BIOPLAN (")
    assert "['gene_id_mapping', " in main
    config = (res.output_dir / "nextflow.config").read_text(encoding="utf-8")
    assert "gene_id_mapping = 'resources/ensembl-112/Mus_musculus.GRCm39.112.gene_id_mapping.tsv'" in config
    readme = (res.output_dir / "README.md").read_text(encoding="utf-8")  # the README's table of references
    row = next(line for line in readme.replace("\\_", "_").splitlines() if line.startswith("| `--gene_id_mapping` |"))
    assert "resources/ensembl-112/Mus_musculus.GRCm39.112.gene_id_mapping.tsv" in row
    assert "| gene_id_conversion |" in row and "Mus_musculus.GRCm39.112.entrez.tsv.gz" in row
    lint = nf_lint(res.output_dir)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    shutil.rmtree(res.output_dir)


@pytest.mark.e2e
def test_a_nextflow_run_stops_before_any_task_naming_every_missing_reference(workspace, tmp_path):
    """The start check, run by Nextflow: after validateParameters() and before any task, one message lists
    each missing reference with its parameter, where to get it and that --fetch true downloads it."""
    import os

    from test_reference_fetch import _nextflow

    nextflow = _nextflow()
    if nextflow is None:
        from conftest import skip_or_fail_in_ci

        skip_or_fail_in_ci("no Nextflow runtime (bash scripts/install-nextflow.sh .venv/bin)")
    data = workspace / "data" / "bulk_de"
    res = compile_request("mouse bulk RNA-seq raw counts: differential expression, then KEGG enrichment",
                          [str(data / "counts.csv"), str(data / "samples.tsv"), str(data / "gene_sets_kegg.gmt")],
                          str(tmp_path / "nf" / "main.nf"), target="nextflow", validate=False)
    env = {**os.environ, "NXF_ANSI_LOG": "false", "NXF_HOME": str(tmp_path / "nxf_home")}
    import nextflow_jvm  # the tests' JVM options and no HTML reports (a run that stops at the start)

    run = nextflow_jvm.run([nextflow, "run", ".", "-profile", "local", "-stub-run"], cwd=res.output_dir, env=env,
                           timeout=600)
    said = run.stdout + run.stderr
    assert run.returncode != 0
    assert "bioplan: 1 reference file(s) missing:" in said, said[-3000:]
    assert "--gene_id_mapping: resources/ensembl-112/Mus_musculus.GRCm39.112.gene_id_mapping.tsv" in said
    assert "Mus_musculus.GRCm39.112.entrez.tsv.gz" in said and "or run with --fetch true to download it" in said
    assert "nothing has run yet" in said and "MissingInputException" not in said
    assert not list((res.output_dir / "work").glob("*/*")), "a task ran before the references were checked"


def test_compile_writes_the_plan_it_is_given_without_planning_again(knowledge, workspace, tmp_path, monkeypatch):
    """compile_request(planned=...) (the dev-set test above compiles the plans it grouped) writes that plan's
    workflow, and never plans."""
    import bioplan.compile as compile_module

    data = workspace / "data" / "bulk_de"
    query = "mouse bulk RNA-seq raw counts: differential expression, then KEGG enrichment"
    inputs = [str(data / "counts.csv"), str(data / "samples.tsv"), str(data / "gene_sets_kegg.gmt")]
    planned = plan_request(query, inputs, knowledge)

    def no_planning(*args, **kwargs):
        raise AssertionError("compile_request planned although given a plan result")

    monkeypatch.setattr(compile_module, "plan_request", no_planning)
    given = compile_request(query, inputs, str(tmp_path / "wf"), validate=False, knowledge=knowledge, planned=planned)
    assert given.result is planned and given.plan == planned.plans[0]
    config = yaml.safe_load((given.output_dir / "config" / "config.yaml").read_text(encoding="utf-8"))
    assert {r.key for r in given.workflow.references} == set(config["references"]) == {"gene_id_mapping"}

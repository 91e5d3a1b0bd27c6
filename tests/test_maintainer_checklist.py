"""The maintainer checklist of issue 15, per reference class and target: what a snakemake-workflows or
nf-core maintainer looks for before accepting a pipeline (layout, per-rule log/threads/resources,
quoted paths, env and container pins that agree, temp() where files are intermediate, validation of
config and sample sheet inside the workflow, config/README.md covering every key, results and DAG in
the README, RO-Crate metadata; nf-core module shape, versions, leaf module paths)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from bioplan.codegen.ir import intermediate_outputs
from bioplan.codegen.qc_report import OPERATION as QC_AGGREGATION
from bioplan.codegen.qc_report import qc_report_ports
from conftest import REFERENCE_CLASSES

TARGETS = ("snakemake", "nextflow")


@pytest.fixture(scope="module")
def compiled(compiled_classes):
    """(class, target) -> the session's shared compile (read-only)."""
    return {(name, target): compiled_classes[name, target] for name in REFERENCE_CLASSES for target in TARGETS}


def _rules(text: str) -> dict[str, str]:
    """rule name -> its text, for every `rule` of a Snakemake file."""
    starts = [(m.start(), m.group(1)) for m in re.finditer(r"^rule (\w+):", text, re.M)]
    ends = [a for a, _ in starts[1:]] + [len(text)] if starts else []
    return {name: text[a:b] for (a, name), b in zip(starts, ends, strict=True)}


def _directive(rule: str, name: str) -> str | None:
    m = re.search(rf"^    {name}:\n((?:        .*\n|\n)+)", rule, re.M)
    return m.group(1) if m else None


def _pins(conda_deps: list[str]) -> dict[str, str]:
    """package -> version of pinned conda specs ('bioconda::fastp=0.23.4')."""
    pins = {}
    for dep in conda_deps:
        spec = dep.split("::")[-1]
        if "=" in spec:
            package, version = spec.split("=", 1)
            pins[package] = version
    return pins


def _container_agrees(image: str, pins: dict[str, str]) -> bool:
    """A single-tool biocontainer carries the version its env pins; a multi-tool (mulled) image is
    named by a hash of its pins (the knowledge checks that pair), so only its tag is asked for."""
    image = image.removeprefix("docker://")
    name, _, tag = image.rpartition("/")[2].partition(":")
    if name.startswith("mulled-v2"):
        return bool(tag)
    if image.startswith("community.wave.seqera.io/library/"):  # Wave: named by its packages, tagged by a hash
        return bool(tag) and set(name.split("_")) <= set(pins)
    return name in pins and tag.split("--")[0] == pins[name]


# ------------------------------------------------------------------------------------ Snakemake

@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_snakemake_standardized_layout(compiled, name):
    res = compiled[name, "snakemake"]
    wf = res.output_dir
    assert res.snakefile == wf / "workflow" / "Snakefile"
    for rel in ("workflow/Snakefile", "workflow/rules/common.smk", "workflow/schemas/config.schema.yaml",
                "config/config.yaml", "config/README.md", "profiles/default/config.yaml",
                "profiles/slurm/config.yaml", "README.md", "ro-crate-metadata.json"):
        assert (wf / rel).is_file(), rel
    assert list((wf / "workflow" / "envs").glob("*.yaml")) and list((wf / "workflow" / "scripts").iterdir())
    if res.workflow.has_samples:
        assert (wf / "config/samples.tsv").is_file() and (wf / "workflow/schemas/samples.schema.yaml").is_file()
    # nothing of the workflow's code at the top: Snakemake finds workflow/Snakefile by itself
    assert sorted(p.name for p in wf.iterdir() if not p.name.startswith(".")) == sorted(
        ["README.md", "config", "profiles", "ro-crate-metadata.json", "workflow"])
    snakefile = (wf / "workflow/Snakefile").read_text()
    assert 'min_version("8.0")' in snakefile and 'configfile: "config/config.yaml"' in snakefile
    assert snakefile.index("rule all:") == snakefile.index("rule ")  # the default target is the first rule


@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_snakemake_validates_config_and_sheet_inside_the_workflow(compiled, name):
    res = compiled[name, "snakemake"]
    common = (res.output_dir / "workflow/rules/common.smk").read_text()
    assert "from snakemake.utils import validate" in common
    assert 'validate(config, schema="../schemas/config.schema.yaml")' in common
    if res.workflow.has_samples:
        assert 'validate(samples, schema="../schemas/samples.schema.yaml")' in common
        schema = yaml.safe_load((res.output_dir / "workflow/schemas/samples.schema.yaml").read_text())
        assert set(schema["required"]) == set(res.workflow.sample_columns)


@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_snakemake_every_rule_has_log_threads_resources_and_software(compiled, name):
    wf = compiled[name, "snakemake"].output_dir
    seen = 0
    for smk in sorted((wf / "workflow/rules").glob("*.smk")):
        for rule_name, rule in _rules(smk.read_text()).items():
            seen += 1
            assert _directive(rule, "log"), (smk.name, rule_name, "log:")
            conda = _directive(rule, "conda")
            container = _directive(rule, "container")
            assert conda and container, (smk.name, rule_name, "conda: and container:")
            env_file = (smk.parent / conda.strip().strip(",").strip('"')).resolve()
            assert env_file.is_file(), (rule_name, env_file)
            pins = _pins(yaml.safe_load(env_file.read_text())["dependencies"])
            assert pins, (rule_name, "the env pins its packages")
            assert _container_agrees(container.strip().strip(",").strip('"'), pins), (rule_name, container, pins)
            if rule_name.startswith("fetch_"):  # local download rules: one thread, the head node
                continue
            assert re.search(r"^    threads: \d+", rule, re.M), (smk.name, rule_name, "threads:")
            resources = _directive(rule, "resources") or ""
            assert "mem_mb=" in resources and "runtime=" in resources, (smk.name, rule_name, resources)
            shell = _directive(rule, "shell") or ""
            # every file a shell command names is quoted by Snakemake (:q), whatever its characters
            assert not re.search(r"\{(input|output|log)(\.\w+|\[\d+\])?\}", shell), (rule_name, shell)
    assert seen >= len(compiled[name, "snakemake"].workflow.steps)


@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_snakemake_intermediates_are_temp(compiled, knowledge, name):
    res = compiled[name, "snakemake"]
    rules = "\n".join(p.read_text() for p in (res.output_dir / "workflow/rules").glob("*.smk"))
    expected = intermediate_outputs(knowledge, res.workflow)
    wrapped = set(re.findall(r'intermediate\(\s*"([^"]+)"', rules))
    assert wrapped == set(expected)


@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_config_readme_explains_every_key(compiled, name):
    wf = compiled[name, "snakemake"].output_dir
    config = yaml.safe_load((wf / "config/config.yaml").read_text())
    readme = (wf / "config/README.md").read_text()

    def leaves(value, prefix=""):
        if isinstance(value, dict) and value:
            for k, v in value.items():
                yield from leaves(v, f"{prefix}.{k}" if prefix else k)
        else:
            yield prefix

    rows = {m.group(1) for m in re.finditer(r"^\| `([^`]+)` \|", readme, re.M)}
    assert set(leaves(config)) <= rows
    for row in re.finditer(r"^\| `[^`]+` \| .* \| (.+) \|$", readme, re.M):
        assert len(row.group(1)) > 20  # a meaning, not a placeholder


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_readme_says_how_to_run_where_results_are_and_draws_the_dag(compiled, name, target):
    res = compiled[name, target]
    readme = (res.output_dir / "README.md").read_text()
    assert "```mermaid\nflowchart TD\n" in readme
    for step in res.workflow.steps:
        assert f'"{step.id}' in readme  # a node of the DAG
    assert "## Results" in readme
    for step in res.workflow.steps:  # what each check guards
        if step.kind == "check":
            name_of = str if target == "snakemake" else str.upper
            assert f"`{name_of(step.id)}` guards `{name_of(step.guards)}`: " in readme, step.id
    for t in res.workflow.targets:
        assert t.path.rsplit("/", 1)[-1] in readme, t.path
    assert "on PATH" in readme  # the tools already installed: neither conda nor containers
    if target == "snakemake":
        assert "snakemake --cores 4 " in readme and "--sdm conda" in readme and "--sdm apptainer" in readme
        assert "--profile profiles/slurm" in readme
    else:
        assert "-profile local" in readme and "-profile docker" in readme and "slurm" in readme


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_qc_reports_end_in_one_multiqc_report(compiled, knowledge, name, target):
    """Every QC report a step writes (FastQC, fastp, STAR, featureCounts, Kraken2, ...) reaches MultiQC."""
    res = compiled[name, target]
    workflow = res.workflow
    reports = qc_report_ports(knowledge, workflow)
    aggregators = [s for s in workflow.steps if s.operation == QC_AGGREGATION]
    if not reports:
        assert aggregators == [], name  # no QC step, no empty report
        return
    assert len(aggregators) == 1 and aggregators[0].tool == "multiqc", [s.id for s in aggregators]
    read = {p.ref.path for p in aggregators[0].inputs}
    assert {port.ref.path for _, port in reports} <= read
    assert any(t.path.endswith("multiqc_report.html") for t in workflow.targets)
    emitted = "\n".join(p.read_text() for p in res.output_dir.rglob("*") if p.is_file() and p.suffix in (".smk", ".nf"))
    assert "multiqc" in emitted


# ------------------------------------------------------------------------------------ Nextflow

@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_nextflow_nf_core_layout_and_module_shape(compiled, name):
    res = compiled[name, "nextflow"]
    wf = res.output_dir
    for rel in ("main.nf", "nextflow.config", "nextflow_schema.json", "conf/base.config", "conf/modules.config",
                "conf/test.config", "README.md", "ro-crate-metadata.json"):
        assert (wf / rel).is_file(), rel
    assert list((wf / "workflows").glob("*.nf"))
    modules = sorted((wf / "modules").rglob("main.nf"))
    assert modules
    for module in modules:
        text = module.read_text()
        folder = module.parent
        assert (folder / "meta.yml").is_file() and (folder / "environment.yml").is_file(), folder
        assert re.search(r"^\s+tag ", text, re.M), module
        assert len(re.findall(r"^\s+label 'process_\w+'", text, re.M)) == 1, module
        assert 'conda "${moduleDir}/environment.yml"' in text, module
        assert "stub:" in text and "emit: versions_" in text, module
        # every module but MultiQC on the versions topic: MultiQC reads it, its own version is emitted off it
        assert ("topic: versions" in text) == (folder.name != "multiqc"), module
        pins = _pins(yaml.safe_load((folder / "environment.yml").read_text())["dependencies"])
        start = text.index("    container ")
        block = text[start:text.index("\n\n", start)]  # the directive: one image, or the engine ternary
        images = re.findall(r"""['"]([\w./-]+:[\w.-]+)['"]""", block)
        assert images, module
        for image in images:
            assert _container_agrees(image.replace("https://depot.galaxyproject.org/singularity/", ""), pins), (
                module, image, pins)


@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_nextflow_modules_are_nf_core_leaves_and_params_are_validated(compiled, name):
    wf = compiled[name, "nextflow"].output_dir
    modules = sorted((wf / "modules").rglob("main.nf"))
    folders = {m.parent for m in modules}
    for folder in folders:  # nf-core: tool/subtool leaves, never a module above another module
        assert not any(other != folder and folder in other.parents for other in folders), folder
    main_nf = (wf / "main.nf").read_text()
    assert "validateParameters()" in main_nf and "include { " in main_nf and "plugin/nf-schema" in main_nf


@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_nextflow_collects_versions(compiled, name):
    wf = compiled[name, "nextflow"].output_dir
    code = "\n".join(p.read_text() for p in [wf / "main.nf", *sorted((wf / "workflows").glob("*.nf"))])
    assert "channel.topic('versions')" in code or 'channel.topic("versions")' in code
    assert "software_versions.yml" in code


def test_crate_names_the_main_workflow_of_each_target(compiled):
    for (name, target), res in compiled.items():
        graph = {e["@id"]: e for e in json.loads((res.output_dir / "ro-crate-metadata.json").read_text())["@graph"]}
        main = graph["./"]["mainEntity"]["@id"]
        assert main == ("workflow/Snakefile" if target == "snakemake" else "main.nf"), (name, target)
        assert Path(res.output_dir / main).is_file()


# ------------------------------------------------------------------ the rest of the written checklist
# The items of the snakemake-workflows and nf-core checklists not asked above (conda channels and
# pins, rule and process naming, rules-only rule files, no cluster keys in rules, Snakemake 8 idioms,
# the sample sheet read as text, nf-core block order, standard labels, ext.args/ext.prefix/when,
# params only in the entry workflow, strict syntax, meta.yml fields, config blocks, tagged images,
# no long shell program inline).

STANDARD_LABELS = {"process_single", "process_low", "process_medium", "process_high", "process_long",
                   "process_high_memory"}
NF_CORE_BLOCK_ORDER = ("tag", "label", "conda", "container", "input:", "output:", "when:", "script:", "stub:")
# A rule's shell or a process's script is a tool call (or a few), one flag per line: a program with its
# own control flow past this many statements belongs in workflow/scripts/ (Nextflow: bin/).
MAX_INLINE_STATEMENTS = 25


def _shell_statements(script: str) -> int:
    """Statements of a shell script: its non-blank, non-comment lines, a line continued with a
    backslash counted with the next one (one flag per line is one command). The thread limits every
    Nextflow process exports first (`thread_env`, as Snakemake sets them for a job) are set-up, no program."""
    joined = re.sub(r"\\\\?\n", " ", script)  # Snakemake's shell strings and Nextflow's GStrings: \ or \\
    return sum(1 for line in joined.splitlines() if line.strip() and not line.strip().startswith(("#", "//"))
               and not line.strip().startswith("export OMP_NUM_THREADS="))


def _images(text: str) -> list[str]:
    """Every container image an emitted file names (Snakemake `container:`, Nextflow `container`)."""
    found = re.findall(r'^    container:\n        "([^"]+)"', text, re.M)
    found += re.findall(r"""['"]((?:https://depot\.galaxyproject\.org/singularity/|biocontainers/|"""
                        r"""community\.wave\.seqera\.io/library/|quay\.io/)[^'"\s]+)['"]""", text)
    return found


@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_snakemake_envs_rule_files_and_idioms(compiled, name):
    res = compiled[name, "snakemake"]
    wf = res.output_dir
    for env in sorted((wf / "workflow/envs").glob("*.yaml")):
        spec = yaml.safe_load(env.read_text())
        assert spec["channels"] == ["conda-forge", "bioconda", "nodefaults"], env.name
        assert all("=" in dep.split("::")[-1] for dep in spec["dependencies"]), (env.name, spec["dependencies"])
    for smk in sorted((wf / "workflow/rules").glob("*.smk")):
        text = smk.read_text()
        for rule_name in _rules(text):
            assert re.fullmatch(r"[a-z][a-z0-9_]*", rule_name), (smk.name, rule_name)
        if smk.name != "common.smk":  # --lint: functions in common.smk, rules elsewhere
            assert not re.search(r"^def ", text, re.M), smk.name
    code = "\n".join(p.read_text() for p in sorted((wf / "workflow").rglob("*")) if p.suffix in (".smk", "")
                     and p.is_file())
    for banned in ("slurm_partition", "slurm_account", "slurm_extra"):  # cluster keys: profiles only
        assert banned not in code, banned
    for old in (r"\bdynamic\(", r"^\s*version:", r"^subworkflow", r"^\s*singularity:", r"^\s*wrapper:\s*\"master/"):
        assert not re.search(old, code, re.M), old  # Snakemake 8+ idioms only
    readme = (wf / "README.md").read_text()
    assert "--use-conda" not in readme and "--use-singularity" not in readme  # --sdm since Snakemake 8
    assert yaml.safe_load((wf / "profiles/slurm/config.yaml").read_text())["executor"] == "slurm"
    if res.workflow.has_samples:  # the sheet read as text, indexed by sample, the column kept
        common = (wf / "workflow/rules/common.smk").read_text()
        assert "dtype=str" in common and '.set_index("sample", drop=False)' in common


@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_snakemake_step_rules_have_benchmarks(compiled, name):
    res = compiled[name, "snakemake"]
    rules = {}
    for smk in (res.output_dir / "workflow/rules").glob("*.smk"):
        rules.update(_rules(smk.read_text()))
    for step in res.workflow.steps:
        if step.kind != "check" and step.id in rules:
            assert _directive(rules[step.id], "benchmark"), step.id


@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_nextflow_process_shape_follows_nf_core(compiled, name):
    wf = compiled[name, "nextflow"].output_dir
    for module in sorted((wf / "modules").rglob("main.nf")):
        text = module.read_text()
        (process,) = re.findall(r"^process (\w+) \{", text, re.M)
        assert re.fullmatch(r"[A-Z][A-Z0-9]*(_[A-Z0-9]+)*", process), (module, process)
        positions = [text.index(f"\n    {block}") for block in NF_CORE_BLOCK_ORDER]
        assert positions == sorted(positions), (module, "tag, label, conda, container, input, output, when, "
                                                        "script, stub")
        (tag,) = re.findall(r"^    tag (.+)$", text, re.M)
        if "tuple val(meta)" in text[text.index("\n    input:"):text.index("\n    output:")]:
            assert tag == '"${meta.id}"', (module, tag)  # per-sample tasks are named by their sample
        (label,) = re.findall(r"^    label '(\w+)'", text, re.M)
        assert label in STANDARD_LABELS, (module, label)
        assert "task.ext.when == null || task.ext.when" in text, module
        script = text[text.index("\n    script:"):text.index("\n    stub:")]
        assert "def args = task.ext.args ?: ''" in script and "task.ext.prefix ?: " in script, module
        meta = yaml.safe_load((module.parent / "meta.yml").read_text())
        assert {"name", "description", "keywords", "tools", "input", "output"} <= set(meta), module
        assert len(meta["keywords"]) >= 3 and all(k == k.lower() for k in meta["keywords"]), module
        # one entry per input channel: a pair's mates are one `path(reads)`, listed once
        names = [next(iter(entry)) for entry in meta["input"]]
        assert len(names) == len(set(names)) and all(re.search(rf"\bpath\({n}[,)]", text) for n in names), module
        environment = yaml.safe_load((module.parent / "environment.yml").read_text())
        assert environment["channels"][:2] == ["conda-forge", "bioconda"], module
        assert all("=" in dep.split("::")[-1] for dep in environment["dependencies"]), module


@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_nextflow_params_only_in_the_entry_workflow_and_strict_syntax(compiled, name):
    wf = compiled[name, "nextflow"].output_dir
    for source in sorted([*(wf / "workflows").glob("*.nf"), *(wf / "modules").rglob("main.nf")]):
        text = source.read_text()
        # params.json is the step scripts' parameter file, not Nextflow's params
        assert not re.search(r"(?<![\w.'])params\.(?!json\b)\w", text), source
    for source in sorted(wf.rglob("*.nf")):
        text = source.read_text()
        for banned in (r"\bChannel\.", r"^\s*for \(", r"^\s*switch\b", r"^import ", r"\baddParams\b", r"^\s+shell:"):
            assert not re.search(banned, text, re.M), (source, banned)


@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_nextflow_config_has_what_nf_core_expects(compiled, name):
    res = compiled[name, "nextflow"]
    wf = res.output_dir
    config = (wf / "nextflow.config").read_text()
    for profile in ("conda", "docker", "singularity", "apptainer", "test", "slurm"):
        assert re.search(rf"^    {profile} \{{", config, re.M), profile
    assert re.search(r"id 'nf-schema@\d+\.\d+\.\d+'", config)  # the plugin pinned
    assert re.search(r"nextflowVersion = '!>=\d", config)
    assert "process.shell = ['/bin/bash', '-euo', 'pipefail']" in config
    for report in ("timeline", "report", "trace", "dag"):
        assert re.search(rf"^{report} \{{\n    enabled = true\n    file = \"\$\{{params\.outdir\}}/pipeline_info/",
                         config, re.M), report
    base = (wf / "conf/base.config").read_text()
    assert "task.attempt" in base and "errorStrategy" in base and "resourceLimits" in base
    for label in STANDARD_LABELS:
        assert f"withLabel: {label} {{" in base, label
    assert "publishDir" in (wf / "conf/modules.config").read_text()
    if res.workflow.has_samples:
        assert (wf / "assets/schema_input.json").is_file()
        main_nf = (wf / "main.nf").read_text()
        assert 'samplesheetToList(params.input, "${projectDir}/assets/schema_input.json")' in main_nf


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_every_image_is_tagged_with_a_version(compiled, name, target):
    wf = compiled[name, target].output_dir
    images = [image for p in sorted(wf.rglob("*")) if p.is_file() and p.suffix in (".smk", ".nf")
              for image in _images(p.read_text())]
    assert images
    for image in images:
        repository, _, tag = image.rpartition("/")[2].partition(":")
        assert tag and tag != "latest", image


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_no_long_shell_program_inline(compiled, name, target):
    wf = compiled[name, target].output_dir
    if target == "snakemake":
        scripts = {f"{p.name}:{rule}": _directive(text, "shell") or ""
                   for p in (wf / "workflow/rules").glob("*.smk") for rule, text in _rules(p.read_text()).items()}
    else:
        scripts = {str(p.relative_to(wf)): (t := p.read_text())[t.index("\n    script:"):t.index("\n    stub:")]
                   for p in (wf / "modules").rglob("main.nf")}
    long = {where: n for where, script in scripts.items() if (n := _shell_statements(script)) > MAX_INLINE_STATEMENTS}
    assert not long, f"move these to a script (workflow/scripts, bin/): {long}"


def test_the_inline_program_measure_counts_statements_not_flags():
    one_call = 'fastp \\\\\n    --thread 4 \\\\\n    -i a.fq \\\\\n    -o b.fq\n'
    assert _shell_statements(one_call) == 1
    assert _shell_statements("# why\nset -e\n\nif [ -d x ]; then\n  cp a b\nfi\n") == 4
    assert _shell_statements("export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} \\\\\n"
                             "    MKL_NUM_THREADS=${task.cpus}\nsamtools index x.bam\n") == 1

"""Attacker-controlled text that reaches the emitted workflow from file CONTENTS and options rather than
from the request or file names: an AnnData obs column name (becomes the cluster_key tool parameter),
a VCF's ##reference header (becomes the genome build), --reference-cache (becomes every reference's
path), --input-type values, and labels of the DOT / Mermaid graphs. Each value must land only inside
its context's string literal (Python tokens, YAML, Groovy, JSON round trips), or be refused by name.
Compiled without the pre-check (validate=False): the emitted files are the same with it, and these
tests read them, they do not run them."""

from __future__ import annotations

import io
import json
import os
import re
import tokenize
from pathlib import Path

import pydot
import pytest
import yaml
from click.testing import CliRunner

from bioplan.cli import main
from bioplan.codegen.dag import dot_string, mermaid_label
from bioplan.compile import compile_request
from bioplan.errors import TargetUnsupportedError, UnreadableInputError
from conftest import example_inputs
from helpers import deadline

pytestmark = pytest.mark.filterwarnings("ignore:'\\w+' deprecated - use:DeprecationWarning")  # pydot/pyparsing

SHELL = "$(touch CANARY)`id`;|&"
HOSTILE = "x'\"" + SHELL + "\\n\r\u2028\u0085${params.x}{{ 7*7 }}\"\"\"*/#"


def _non_string_tokens(path: Path) -> list[str]:
    return [t.string for t in tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
            if t.type != tokenize.STRING]


def _assert_no_code_holds(workdir: Path, needle: str) -> None:
    """The text of `needle` is in no Python token of the Snakefile and rules but strings, and in no
    Nextflow script at all (they read user values from params only)."""
    for path in [workdir / "workflow" / "Snakefile", *(workdir / "workflow" / "rules").glob("*.smk")]:
        if path.exists():
            assert not [t for t in _non_string_tokens(path) if needle in t], path
    for path in [workdir / "main.nf", workdir / "workflows" / "bioplan.nf", *workdir.glob("modules/**/main.nf")]:
        if path.exists():
            assert needle not in path.read_text(), path


def _groovy_string(literal: str) -> str:
    """The value of a Groovy single-quoted string literal (the escapes escape.groovy writes)."""
    assert literal[0] == literal[-1] == "'", literal
    body, out, i = literal[1:-1], [], 0
    simple = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f", "\\": "\\", "'": "'"}
    while i < len(body):
        if body[i] != "\\":
            assert body[i] != "'", f"an unescaped quote ends the string early: {literal}"
            out.append(body[i])
            i += 1
        elif body[i + 1] == "u":
            out.append(chr(int(body[i + 2:i + 6], 16)))
            i += 6
        else:
            out.append(simple[body[i + 1]])
            i += 2
    return "".join(out).encode("utf-16", "surrogatepass").decode("utf-16")


# ------------------------------------------------------------------------------ AnnData obs columns

def _clustered_h5ad(path: Path, column: str) -> str:
    h5py = pytest.importorskip("h5py")
    np = pytest.importorskip("numpy")
    with h5py.File(path, "w") as f:
        f.attrs["encoding-type"] = "anndata"
        for name, index in (("obs", [f"cell{i}" for i in range(20)]), ("var", [f"ENSMUSG{i:011d}" for i in range(30)])):
            g = f.create_group(name)
            g.attrs["_index"] = "_index"
            g.attrs["encoding-type"] = "dataframe"
            g.create_dataset("_index", data=np.array(index, dtype="S"))
        groups = f["obs"].create_group(column)  # an existing clustering: its name is what the file says
        groups.attrs["encoding-type"] = "categorical"
        groups.create_dataset("categories", data=np.array(["0", "1"], dtype="S"))
        groups.create_dataset("codes", data=np.arange(20) % 2)
        f.create_dataset("X", data=np.abs(np.random.default_rng(0).normal(size=(20, 30))).astype("float32"))
        f.create_group("uns").create_group("log1p")
    return str(path)


def test_an_h5ad_obs_column_name_reaches_the_workflow_only_as_data(knowledge, tmp_path):
    # '/' separates HDF5 names, so it cannot be part of one; everything else can
    column = "leiden" + HOSTILE.replace("/", "")
    h5ad = _clustered_h5ad(tmp_path / "clustered.h5ad", column)
    request = "mouse single-cell: marker genes for each of the existing clusters"
    smk = compile_request(request, [h5ad], str(tmp_path / "smk"), knowledge=knowledge, validate=False,
                          allow_partial=True).output_dir
    config = yaml.safe_load((smk / "config" / "config.yaml").read_text())
    keys = [p["cluster_key"] for p in config["params"].values() if "cluster_key" in p]
    assert keys == [column], "the file's clustering column is the cluster_key, exactly as written"
    _assert_no_code_holds(smk, "CANARY")

    nf = compile_request(request, [h5ad], str(tmp_path / "nf"), target="nextflow", knowledge=knowledge,
                         validate=False, allow_partial=True).output_dir
    literals = [line.split(" = ", 1)[1] for line in (nf / "nextflow.config").read_text().splitlines()
                if "_cluster_key = " in line]
    assert [_groovy_string(v.strip()) for v in literals] == [column]
    schema = json.loads((nf / "nextflow_schema.json").read_text())
    defaults = [p.get("default") for group in schema["$defs"].values() for name, p in group["properties"].items()
                if name.endswith("_cluster_key")]
    assert defaults == [column]
    _assert_no_code_holds(nf, "CANARY")


# ------------------------------------------------------------------------------ VCF ##reference

def test_a_vcf_reference_header_names_a_build_never_writes_its_text(knowledge, workspace, tmp_path):
    calls = [ln for ln in (workspace / "data" / "variants" / "calls.vcf").read_text().splitlines()
             if not ln.startswith(("##fileformat", "##reference"))] if (workspace / "data" / "variants").exists() \
        else None
    if calls is None:
        pytest.skip("no variants example in the workspace")
    vcf = tmp_path / "calls.vcf"
    vcf.write_text("##fileformat=VCFv4.2\n##reference=file:///refs/GRCh38 {{ x }} " + SHELL + " \\n# hg19.fa\n"
                   + "\n".join(calls) + "\n")
    request = "Filter the variants in this VCF by quality and annotate their functional consequences"
    for target in ("snakemake", "nextflow"):
        result = compile_request(request, [str(vcf)], str(tmp_path / target), target=target, knowledge=knowledge,
                                 validate=False, allow_partial=True)
        assert result.workflow.genome_build == "GRCh38"  # the catalog's id, not the header's text
        for path in result.output_dir.rglob("*"):
            if path.is_file() and path.suffix != ".vcf":
                assert "CANARY" not in path.read_text(errors="replace"), path


# ------------------------------------------------------------------------------ --reference-cache

GO_REQUEST = ("Mouse bulk RNA-seq raw counts: differential expression between treated and control, then GO "
              "enrichment of the significant genes")


def test_a_hostile_reference_cache_is_data_in_snakemake(knowledge, workspace, tmp_path):
    # (no '$', '`' and not both quotes: the SLURM executor's quoting, tests/test_attacks_round7.py)
    cache = str(tmp_path / "refs x';touch CANARY|&\\n\r\u2028\u0085*/#")
    inputs = example_inputs(workspace, "bulk_de")[:2]
    result = compile_request(GO_REQUEST, inputs, str(tmp_path / "wf"), knowledge=knowledge, validate=False,
                             reference_cache=cache)
    workdir = result.output_dir
    config = yaml.safe_load((workdir / "config" / "config.yaml").read_text())
    paths = list(config["references"].values())
    assert paths and all(p.startswith(cache + "/") for p in paths)
    _assert_no_code_holds(workdir, "CANARY")
    readme = (workdir / "README.md").read_text()
    assert "touch CANARY\\|\\&" in readme and "\u2028" not in readme  # Markdown-escaped, one line


@pytest.mark.parametrize("target,cache,refused", [
    ("snakemake", "refs/{sample}", "Snakemake reads '{name}'"),  # a wildcard in every reference's path
    ("snakemake", "refs/$(touch CANARY)", "each job's command names its input files"),  # SLURM's --wrap
    ("nextflow", "refs/a'b", "Nextflow interpolates"),  # unquoted in the modules' scripts
    ("nextflow", "refs/$(touch CANARY)", "Nextflow interpolates"),
])
def test_a_reference_cache_the_target_cannot_carry_is_refused(knowledge, workspace, tmp_path, target, cache, refused):
    with pytest.raises(TargetUnsupportedError) as err:
        compile_request(GO_REQUEST, example_inputs(workspace, "bulk_de")[:2], str(tmp_path / "wf"), target=target,
                        knowledge=knowledge, validate=False, reference_cache=str(tmp_path / cache))
    assert refused in str(err.value)
    assert not (tmp_path / "wf").exists()


# ------------------------------------------------------------------------------ --input-type, graphs

def test_a_hostile_input_type_value_is_refused_and_printed_inertly(workspace):
    counts = str(workspace / "data" / "bulk_de" / "counts.csv")
    result = CliRunner().invoke(main, ["plan", "differential expression", "-i", counts, "--input-type",
                                       f"{counts}=raw_count_matrix\x1b]0;pwned\x07\n$(id)"])
    assert result.exit_code == 2, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "\\u001b" in result.output  # shown, visibly escaped


@pytest.mark.parametrize("text", [HOSTILE, 'a"]; pwn [shape=box]; x["', "a\\\"b\\", "\u2028]\n[\x85", "<b>&amp;"])
def test_dot_and_mermaid_labels_hold_any_text(text):
    graphs = pydot.graph_from_dot_data(f"digraph g {{ {dot_string('n')} [label={dot_string(text)}]; }}")
    assert graphs is not None and len(graphs) == 1
    nodes = [n for n in graphs[0].get_nodes() if n.get_name() not in ("node", "edge")]
    assert len(nodes) == 1 and not graphs[0].get_edges(), "the label broke out of its string"
    label = mermaid_label(text)
    inner = label[1:-1]
    assert label[0] == label[-1] == '"' and '"' not in inner and "`" not in inner and "\n" not in inner
    assert all(c.isprintable() for c in inner)


def test_an_unreadable_non_utf8_input_type_is_refused(workspace):
    counts = str(workspace / "data" / "bulk_de" / "counts.csv")
    with pytest.raises(UnreadableInputError):
        from bioplan.compile import plan_request

        plan_request("differential expression", [counts], declared={counts: "raw_count_matrix\udcff"})


# ------------------------------------------------------------------------------ spreadsheet formulas

@pytest.mark.parametrize("name", ["=HYPERLINK(A1)", "+cmd|' /C calc'!A0", "@SUM(1+1)"])
def test_a_sample_name_a_spreadsheet_would_run_as_a_formula_is_refused(knowledge, workspace, tmp_path, name):
    """samples.tsv and samplesheet.csv are opened in spreadsheets: a cell starting with '=', '+', '@' (or
    '-') is a formula there (CSV injection), so no sample id starts with one, at compile time or in a
    sample sheet edited afterwards."""
    reads = sorted((workspace / "data" / "rnaseq_fastq" / "reads").glob("ctrl_1_R*.fastq.gz"))
    hostile = []
    for mate, path in enumerate(reads, start=1):
        hostile.append(tmp_path / f"{name.replace('/', '')}_R{mate}.fastq.gz")
        hostile[-1].symlink_to(path)
    with pytest.raises(UnreadableInputError) as err:
        compile_request("run read QC with FastQC", [str(p) for p in hostile], str(tmp_path / "wf"),
                        knowledge=knowledge, validate=False)
    assert "formula" in str(err.value) and name.replace("/", "") in str(err.value)
    from bioplan.codegen.snakemake import SAMPLE_NAME_PATTERN

    assert not re.match(SAMPLE_NAME_PATTERN, name)
    assert not (tmp_path / "wf").exists()


# ------------------------------------------------------------------------------ paths a sample sheet names

def test_paths_a_sample_sheet_names_are_read_only_as_fastq_files(workspace, tmp_path):
    """A sheet's fastq_1/fastq_2 cells are paths bioplan opens: a FIFO, a link to a device, a path
    leaving the sheet's folder, a URL are never read (no hang; said as not found); a file that holds
    no reads is refused naming the sheet; a real FASTQ anywhere is read, as nf-core sheets with
    absolute paths expect."""
    from bioplan.request.sniff import sniff_inputs

    reads = sorted((workspace / "data" / "rnaseq_fastq" / "reads").glob("ctrl_1_R*.fastq.gz"))
    os.mkfifo(tmp_path / "fifo_R1.fastq.gz")
    (tmp_path / "zero_R2.fastq.gz").symlink_to("/dev/zero")
    sheet = tmp_path / "sheet.csv"
    sheet.write_text("sample,fastq_1,fastq_2,condition\n"
                     f"a,{reads[0]},{reads[1]},ctrl\n"
                     "b,fifo_R1.fastq.gz,zero_R2.fastq.gz,ctrl\n"
                     "c,https://example.org/c_R1.fastq.gz,../../../../../../../etc/c_R2.fastq.gz,treated\n")
    with deadline(20):
        profile = sniff_inputs([str(sheet)], {"ENSMUSG": "mus_musculus"})
    assert {f.path for f in profile.files if f.datatype == "raw_reads"} == {str(r) for r in reads}
    assert any("not found here, not read" in w and "fifo_R1.fastq.gz" in w for w in profile.warnings)

    (tmp_path / "-o_R1.fastq.gz").write_text("sample\tcount\nx\t1\n")  # option-like, and no reads
    sheet.write_text("sample,fastq_1\na,-o_R1.fastq.gz\n")
    with deadline(20), pytest.raises(UnreadableInputError) as err:
        sniff_inputs([str(sheet)], {"ENSMUSG": "mus_musculus"})
    assert "is named as sample 'a''s reads by" in str(err.value)



"""Three extensions that need YAML only, shown on a copy of the knowledge (BIOPLAN_DATA_ROOT) that
adds, in YAML and nothing else: input formats the compiler sniffs (formats.yaml `sniff`: extensions
and a header pattern or magic bytes), a reference format that is a folder (formats.yaml
`directory`), and a precondition on reading a datatype (constraints.yaml `checked_on_read`). Each
test shows the same input with the shipped knowledge too, so the YAML is what makes the difference.
The extended copy is validated once for the module (the knowledge checks run on it)."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from bioplan.codegen.ir import synthesize
from bioplan.compile import plan_request, sniff_with_declarations
from bioplan.errors import BioplanError, InvalidKnowledgeError
from bioplan.knowledge.load import load_knowledge
from bioplan.knowledge.models import Knowledge
from helpers import read_yaml, write_yaml

ROOT = Path(__file__).resolve().parents[1]

GENBANK = """LOCUS       NC_001416              48502 bp    DNA     linear   PHG 28-MAR-2018
DEFINITION  Escherichia phage Lambda, complete genome.
ACCESSION   NC_001416
ORIGIN
        1 gggcggcgac ctcgcgggtt ttcgctattt atgaaaattt tccggtttaa ggcgtttccg
//
"""
# UCSC .2bit: signature 0x1A412743 (little-endian), version 0, one sequence
TWOBIT = b"C'A\x1a" + bytes(4) + (1).to_bytes(4, "little") + bytes(4) + b"\x04chr1" + (32).to_bytes(4, "little")
NEW_CHECK = "requires_database_matches_reads"


def copy_knowledge(root: Path) -> Path:
    """A writable copy of ontology/, motifs/ and templates/ for the loader to read instead."""
    for name in ("ontology", "motifs", "templates"):
        shutil.copytree(ROOT / name, root / name)
    return root


def edit_yaml(path: Path, change) -> None:
    data = read_yaml(path)
    change(data)
    write_yaml(path, data)


def add_format(root: Path, format_id: str, **fields) -> None:
    edit_yaml(root / "ontology" / "formats.yaml", lambda d: d["formats"].update({format_id: fields}))


def extend(root: Path) -> None:
    """The YAML edits, and only they."""
    # a text format recognised by its first line, and a binary one by its magic bytes
    add_format(root, "genbank", label="GenBank flat file", edam="format_1936", extensions=[".gb", ".gbk", ".gbff"],
               sniff={"datatype": "reference_sequences", "header": r"^LOCUS\s+\S+\s+\d+ bp"})
    add_format(root, "twobit", label="UCSC 2bit genome", edam="format_3009", extensions=[".2bit"],
               sniff={"datatype": "reference_genome", "magic": "C'A\x1a"})
    # a genome given as a folder of per-chromosome FASTA files (as Bismark's genome preparation reads
    # it): the format, and the port that reads it
    add_format(root, "fasta_folder", label="Genome folder (one FASTA file per chromosome)", edam="format_1929",
               extensions=[".fa", ".fasta"], directory=True)
    edit_yaml(root / "ontology" / "tools" / "bowtie2_build.yaml",
              lambda d: d["inputs"]["genome"].update(format="fasta_folder"))
    # a check on every step that reads sequencing reads (an existing check script)
    edit_yaml(root / "ontology" / "constraints.yaml", lambda d: d["constraints"].update({NEW_CHECK: {
        "kind": "data", "label": "Reads fit the classifier database",
        "description": "Every step reading sequencing reads checks them first (a new check, in YAML).",
        "check": "check_paired_mates", "applies_to": ["raw_reads"], "checked_on_read": ["raw_reads"]}}))


@pytest.fixture(scope="module")
def shipped() -> Knowledge:
    return load_knowledge()


@pytest.fixture(scope="module")
def extended(tmp_path_factory) -> Knowledge:
    root = copy_knowledge(tmp_path_factory.mktemp("knowledge"))
    extend(root)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("BIOPLAN_DATA_ROOT", str(root))
        return load_knowledge()


@pytest.fixture()
def data_copy(tmp_path, monkeypatch):
    """A copy of the knowledge the loader reads, for edits that must fail its checks."""
    root = copy_knowledge(tmp_path / "knowledge")
    monkeypatch.setenv("BIOPLAN_DATA_ROOT", str(root))
    return root


def paired_reads(folder: Path, samples=("A_1", "B_1")) -> list[str]:
    paths = []
    for sample in samples:
        for mate in (1, 2):
            p = folder / f"{sample}_R{mate}.fastq.gz"  # gzip: the paired-end mate check reads no plain FASTQ
            text = "".join(f"@r{i}/{mate}\nACGTACGTAC\n+\nIIIIIIIIII\n" for i in range(4))
            p.write_bytes(gzip.compress(text.encode()))
            paths.append(str(p))
    return paths


# --------------------------------------------------------------------------- a new input format


def test_a_format_with_a_header_signature_is_sniffed_from_yaml_alone(shipped, extended, tmp_path):
    gbk = tmp_path / "lambda.gbk"
    gbk.write_text(GENBANK, encoding="utf-8")
    with pytest.raises(BioplanError):  # shipped: not a format bioplan knows
        sniff_with_declarations(shipped, [str(gbk)], {})

    (found,) = sniff_with_declarations(extended, [str(gbk)], {}).files
    assert (found.datatype, found.format) == ("reference_sequences", "genbank")
    assert "GenBank flat file" in found.evidence[0] and "formats.yaml" in found.evidence[0]

    zipped = tmp_path / "lambda.gbk.gz"  # gzipped: read through the compression, said as a fact
    zipped.write_bytes(gzip.compress(GENBANK.encode()))
    (found,) = sniff_with_declarations(extended, [str(zipped)], {}).files
    assert (found.format, found.fact("compressed")) == ("genbank", True)

    fasta = tmp_path / "lambda.gb"  # the name fits but the content does not: the built-in readers decide
    fasta.write_text(">chr1\nACGTACGT\n>chr2\nACGT\n", encoding="utf-8")
    (found,) = sniff_with_declarations(extended, [str(fasta)], {}).files
    assert found.format == "fasta"


def test_the_hint_for_an_unrecognised_file_names_the_declared_formats(shipped, extended, tmp_path):
    prose = tmp_path / "notes.txt"
    prose.write_text("hello there world\nthis is prose, really\n", encoding="utf-8")
    for knowledge, named in ((shipped, False), (extended, True)):
        with pytest.raises(BioplanError) as e:
            sniff_with_declarations(knowledge, [str(prose)], {})
        recognises = next(h for h in e.value.hints if h.startswith("bioplan recognises"))
        assert ("GenBank flat file (.gb, .gbk, .gbff)" in recognises) is named


def test_a_binary_format_with_magic_bytes_is_sniffed_from_yaml_alone(shipped, extended, tmp_path):
    twobit = tmp_path / "genome.2bit"
    twobit.write_bytes(TWOBIT)
    # the shipped knowledge refuses it by name (a built-in refusal); a declared signature goes first
    with pytest.raises(BioplanError, match="is a 2bit genome sequence file, which bioplan does not read"):
        sniff_with_declarations(shipped, [str(twobit)], {})
    (found,) = sniff_with_declarations(extended, [str(twobit)], {}).files
    assert (found.datatype, found.format) == ("reference_genome", "twobit")


def test_a_signature_naming_an_unknown_datatype_is_a_knowledge_error(data_copy):
    add_format(data_copy, "genbank", label="GenBank flat file", extensions=[".gbk"],
               sniff={"datatype": "reference_sequence", "header": "^LOCUS"})
    with pytest.raises(InvalidKnowledgeError) as e:
        load_knowledge(use_cache=False)
    problems = e.value.details["problems"]
    assert any("formats/genbank/sniff/datatype" in p and "reference_sequences" in p for p in problems)


# --------------------------------------------------------------------------- a new directory-type reference


def genome_reference(knowledge: Knowledge, tmp_path: Path):
    result = plan_request("align the reads with bowtie2", paired_reads(tmp_path), knowledge)
    workflow = synthesize(knowledge, result.spec, result.plans[0])
    # no organism: no provider file, so nothing but the format decides the reference's shape
    return next(r for r in workflow.references if r.datatype == "reference_genome")


def test_a_new_reference_format_is_a_folder_when_formats_yaml_says_so(shipped, extended, tmp_path):
    before = genome_reference(shipped, tmp_path)
    assert (before.format, before.directory) == ("fasta", False)
    after = genome_reference(extended, tmp_path)
    assert (after.format, after.downloads, after.directory) == ("fasta_folder", (), True)


def test_a_tool_writing_a_folder_format_must_say_its_port_is_a_folder(data_copy):
    edit_yaml(data_copy / "ontology" / "tools" / "bowtie2_build.yaml",
              lambda d: d["outputs"]["index"].pop("directory"))
    with pytest.raises(InvalidKnowledgeError) as e:
        load_knowledge(use_cache=False)
    assert any("outputs/index" in p and "bowtie2_index" in p and "directory: true" in p
               for p in e.value.details["problems"])


# --------------------------------------------------------------------------- a new precondition


def preconditions(knowledge: Knowledge, tmp_path: Path) -> tuple[dict[str, tuple[str, ...]], set[tuple[str, str]]]:
    """(operation -> preconditions of the best plan, (constraint, guarded step) of its check steps)."""
    result = plan_request("classify the metagenomic reads with kraken2", paired_reads(tmp_path), knowledge)
    plan = result.plans[0]
    workflow = synthesize(knowledge, result.spec, plan)
    checks = {(s.constraint or "", s.guards or "") for s in workflow.steps if s.kind == "check"}
    return {s.operation: s.preconditions for s in plan.steps}, checks


def test_a_new_precondition_on_reading_a_datatype_is_checked_from_yaml_alone(shipped, extended, tmp_path):
    before, checks_before = preconditions(shipped, tmp_path)
    assert NEW_CHECK not in before["taxonomic_classification"]
    after, checks_after = preconditions(extended, tmp_path)
    assert NEW_CHECK in after["taxonomic_classification"]
    assert {constraint for constraint, _ in checks_after - checks_before} == {NEW_CHECK}

"""Phylogenetics: a set of homologous sequences (FASTA, nucleotide or protein) is aligned with MAFFT and its
maximum-likelihood tree inferred with IQ-TREE (ModelFinder, ultrafast bootstrap) or FastTree; what bioplan
still cannot do (Bayesian dating, whole-genome phylogenomics, ancestral states, placement, trimming, drawing)
and the aligners and tree builders it lacks are refused by name. Planning only (no tool runs): the runs are
tests/e2e/test_phylogenetics_run.py."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bioplan.codegen.ir import synthesize
from bioplan.compile import plan_request
from bioplan.errors import BioplanError
from bioplan.request.sniff import sniff_file
from test_step_scripts import step  # noqa: F401  (the fixture that runs a step script in-process)

ALIGN_IQTREE = "align these 16S sequences with MAFFT and build a maximum-likelihood tree with IQ-TREE"
AMINO = "ACDEFGHIKLMNPQRSTVWY"


def _fasta(path: Path, alphabet: str = "ACGT", n: int = 8, length: int = 600, seed: int = 3,
           names: list[str] | None = None) -> str:
    rng = random.Random(seed)
    ancestor = [rng.choice(alphabet) for _ in range(length)]
    with open(path, "w") as fh:
        for i, name in enumerate(names or [f"taxon_{i}" for i in range(n)]):
            seq = [b if rng.random() > 0.1 else rng.choice(alphabet) for b in ancestor]
            fh.write(f">{name}\n" + "".join(seq[: length - i]) + "\n")
    return str(path)


@pytest.fixture
def nucleotides(tmp_path):
    return _fasta(tmp_path / "seqs.fasta")


@pytest.fixture
def proteins(tmp_path):
    return _fasta(tmp_path / "orthologs.faa", AMINO)


def _tools(result) -> list[str]:
    return [s.tool for s in result.plans[0].steps]


@pytest.mark.parametrize("query, tools", [
    (ALIGN_IQTREE, ["mafft_align", "iqtree"]),
    ("align the sequences with MAFFT and build a tree with FastTree", ["mafft_align", "fasttree"]),
    ("build a phylogenetic tree of these sequences", ["mafft_align", "iqtree"]),  # IQ-TREE is the default
    ("用MAFFT做多序列比对，然后用IQ-TREE构建进化树", ["mafft_align", "iqtree"]),
    ("用FastTree构建系统发育树", ["mafft_align", "fasttree"]),
    ("multiple sequence alignment of these sequences", ["mafft_align"]),
])
def test_named_tools_are_used(knowledge, nucleotides, query, tools):
    result = plan_request(query, [nucleotides], knowledge=knowledge)
    assert _tools(result) == tools
    assert "read_alignment" not in [s.operation for s in result.plans[0].steps]


def test_a_set_of_short_sequences_is_read_as_a_sequence_set(knowledge, nucleotides):
    """Eight 600 bp sequences named taxon_0..7: a set to align, not a genome (the request's alignment reads a
    sequence set); the letters say nucleotide."""
    result = plan_request(ALIGN_IQTREE, [nucleotides], knowledge=knowledge)
    assert [i.datatype for i in result.spec.inputs] == ["sequence_set"]
    assert "nucleotide_sequences" in result.spec.constraint_ids


def test_without_a_request_the_set_is_ambiguous_and_the_hint_names_the_sequence_set(nucleotides):
    with pytest.raises(BioplanError) as e:
        sniff_file(nucleotides, {})
    assert e.value.code == "ambiguous_input"
    assert "sequence_set" in e.value.details["readings"]


def test_protein_sequences_get_fasttree_protein_models(knowledge, proteins, tmp_path):
    result = plan_request("build a maximum likelihood tree with FastTree", [proteins], knowledge=knowledge)
    assert _tools(result) == ["mafft_align", "fasttree"]
    assert "protein_sequences" in result.spec.constraint_ids
    workflow = synthesize(knowledge, result.spec, result.plans[0], workdir=str(tmp_path / "out"))
    assert (workflow.params["fasttree"]["alphabet"], workflow.params["fasttree"]["model"]) == ("", "-lg")


def test_nucleotide_sequences_get_fasttree_gtr(knowledge, nucleotides, tmp_path):
    result = plan_request("build a maximum likelihood tree with FastTree", [nucleotides], knowledge=knowledge)
    workflow = synthesize(knowledge, result.spec, result.plans[0], workdir=str(tmp_path / "out"))
    assert (workflow.params["fasttree"]["alphabet"], workflow.params["fasttree"]["model"]) == ("-nt", "-gtr")


def test_iqtree_selects_the_model_and_bootstraps_by_default(knowledge, nucleotides, tmp_path):
    """ModelFinder Plus and 1000 ultrafast bootstrap replicates, a fixed seed: config parameters a user sees."""
    result = plan_request(ALIGN_IQTREE, [nucleotides], knowledge=knowledge)
    workflow = synthesize(knowledge, result.spec, result.plans[0], workdir=str(tmp_path / "out"))
    assert workflow.params["iqtree"]["model"] == "MFP"
    assert workflow.params["iqtree"]["bootstrap"] == 1000
    assert isinstance(workflow.params["iqtree"]["seed"], int)


def test_the_alignment_is_guarded_by_the_sequence_set_check(knowledge, nucleotides):
    result = plan_request(ALIGN_IQTREE, [nucleotides], knowledge=knowledge)
    msa = next(s for s in result.plans[0].steps if s.operation == "multiple_sequence_alignment")
    assert "requires_three_sequences" in msa.preconditions


def test_two_sequences_are_refused_at_compile_time(knowledge, tmp_path):
    two = _fasta(tmp_path / "two.fasta", n=2)
    with pytest.raises(BioplanError) as e:
        plan_request(ALIGN_IQTREE, [two], knowledge=knowledge)
    assert "requires_three_sequences" in e.value.message and "three sequences" in " ".join(e.value.hints)


def test_three_sequences_are_aligned_but_no_tree_is_built_from_them(knowledge, tmp_path):
    """Three sequences have one unrooted topology (and IQ-TREE refuses to bootstrap them): their alignment is
    planned, a tree of them is refused naming the precondition."""
    three = _fasta(tmp_path / "three.fasta", n=3)
    assert _tools(plan_request("multiple sequence alignment of these sequences", [three], knowledge=knowledge)) == [
        "mafft_align"]
    with pytest.raises(BioplanError) as e:
        plan_request(ALIGN_IQTREE, [three], knowledge=knowledge)
    assert e.value.code == "constraint_violation" and "requires_four_sequences" in e.value.message


@pytest.mark.parametrize("query, code, named", [
    ("align the sequences with MUSCLE and build a tree", "unknown_tool", "MUSCLE"),
    ("align the sequences with Clustal Omega", "unknown_tool", "Clustal Omega"),
    ("infer a maximum likelihood tree with RAxML", "unknown_tool", "RAxML"),
    ("build a time-calibrated tree with BEAST", "unsupported_analysis", "Bayesian phylogenetics"),
    ("estimate divergence times of these sequences", "unsupported_analysis", "Bayesian phylogenetics"),
    ("build a core genome SNP phylogeny of the isolates", "unsupported_analysis", "phylogenomics"),
    ("reconstruct the ancestral sequences on the tree", "unsupported_analysis", "ancestral"),
    ("Phylogenetic placement (EPA-NG)", "unsupported_analysis", "placement"),
    ("align the sequences with MAFFT, trim the alignment with trimAl and build a tree",
     "unsupported_analysis", "trimming"),
    ("align these sequences, build a tree and draw it with ggtree", "unsupported_analysis", "drawing"),
    ("用BEAST做分子钟分析", "unsupported_analysis", "Bayesian"),
])
def test_what_remains_is_refused_by_name(knowledge, query, code, named):
    with pytest.raises(BioplanError) as e:
        plan_request(query, [], knowledge=knowledge)
    assert e.value.code == code
    assert named.lower() in e.value.message.lower()


def test_a_refused_aligner_runs_mafft_with_substitute(knowledge, nucleotides):
    result = plan_request("align the sequences with MUSCLE and build a tree", [nucleotides], knowledge=knowledge,
                          substitute=True)
    assert _tools(result) == ["mafft_align", "iqtree"]
    assert any("MUSCLE" in d for d in result.spec.deviations)


def _check(step, tmp_path, fasta, constraint="requires_three_sequences"):  # noqa: F811  (step: the fixture)
    params = {"constraint": constraint, "guarded_step": "multiple_sequence_alignment",
              "datatypes": {"sequences": "sequence_set"}}
    return step("check_sequence_set.py", {"sequences": fasta}, {"ok": tmp_path / "ok"}, params)


def test_check_passes_a_good_set(step, tmp_path):  # noqa: F811
    run = _check(step, tmp_path, _fasta(tmp_path / "good.fa"))
    assert run.code == 0, run.log
    assert "8 sequences, 593-600 letters" in (tmp_path / "ok").read_text()


@pytest.mark.parametrize("names, constraint, said", [
    (["a", "b"], "requires_three_sequences", "holds 2 sequence(s)"),
    (["a x", "a y", "b"], "requires_three_sequences", "'a'"),  # the tools read the first word: two named 'a'
    (["a", "b", "c"], "requires_four_sequences", "a tree (three have a single unrooted topology) needs at least 4"),
])
def test_check_refuses_a_bad_set(step, tmp_path, names, constraint, said):  # noqa: F811
    run = _check(step, tmp_path, _fasta(tmp_path / "bad.fa", names=names), constraint)
    assert run.code == 1
    assert f"precondition '{constraint}'" in run.terminal and said in run.terminal


MUSCLE_ALIGNMENT = Path(__file__).resolve().parent / "data" / "real_studies" / "biopython" / "muscle.fa"


def _aligned(path: Path) -> str:
    """Six aligned nucleotide sequences of 300 columns, the last three with a 20-column gap."""
    rng = random.Random(9)
    ancestor = [rng.choice("ACGT") for _ in range(300)]
    with open(path, "w") as fh:
        for i in range(6):
            seq = "".join(b if rng.random() > 0.1 else rng.choice("ACGT") for b in ancestor)
            fh.write(f">seq{i}\n" + (seq[:50] + "-" * 20 + seq[70:] if i >= 3 else seq) + "\n")
    return str(path)


@pytest.mark.parametrize("query, tools", [
    ("build a maximum-likelihood tree from this alignment with IQ-TREE", ["iqtree"]),
    ("infer the phylogeny with FastTree", ["fasttree"]),
])
def test_an_aligned_fasta_is_the_alignment_a_tree_is_built_from(knowledge, tmp_path, query, tools):
    """An aligned FASTA (one length, '-' gaps) is read as the alignment when the request builds a tree (no
    realignment), nucleotide by its letters; another request still refuses it by name (tests/test_real_studies.py)."""
    result = plan_request(query, [_aligned(tmp_path / "genes.afa")], knowledge=knowledge)
    assert _tools(result) == tools
    assert [(i.datatype, i.format) for i in result.spec.inputs] == [("multiple_sequence_alignment", "aligned_fasta")]
    assert "nucleotide_sequences" in result.spec.constraint_ids


def test_biopythons_muscle_alignment_is_read_but_three_sequences_make_no_tree(knowledge):
    """Biopython's MUSCLE output (three aligned sequences) is read as the alignment; a tree of three is refused
    naming the precondition, not the file."""
    with pytest.raises(BioplanError) as e:
        plan_request("build a maximum-likelihood tree from this alignment with IQ-TREE", [str(MUSCLE_ALIGNMENT)],
                     knowledge=knowledge)
    assert e.value.code == "constraint_violation" and "requires_four_sequences" in e.value.message

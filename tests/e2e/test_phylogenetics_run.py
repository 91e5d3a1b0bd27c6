"""Phylogenetics end to end with the real tools (Debian's mafft, iqtree2, fasttree), both targets.

Eight sequences descend from one random ancestor through planted clades: two clades A and B (12 %
substitutions from the ancestor, a few deletions), each of two subclades (4 % more), each of two leaves
(1 % more). The compiled workflow (MAFFT --auto, then IQ-TREE 2 with ModelFinder and 1000 ultrafast
bootstrap replicates, or FastTree on proteins) must recover every planted clade as a split of the
unrooted tree, with high support; the Nextflow pipeline must give the same tree as the Snakefile (the
seed is fixed). The tree is read with a small Newick parser below.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from e2e_support import require_binaries, run_ok

pytestmark = pytest.mark.e2e

NUCLEOTIDE_REQUEST = "align these 16S sequences with MAFFT and build a maximum-likelihood tree with IQ-TREE"
PROTEIN_REQUEST = "align the protein sequences and build a phylogenetic tree with FastTree"
AMINO = "ACDEFGHIKLMNPQRSTVWY"
LEAVES = [f"{c}{s}_{j}" for c in "AB" for s in (1, 2) for j in (1, 2)]
CLADES = [{n for n in LEAVES if n.startswith(p)} for p in ("A", "B", "A1", "A2", "B1", "B2")]


def _evolve(rng: random.Random, seq: str, rate: float, alphabet: str, deletions: bool) -> str:
    out = []
    for b in seq:
        r = rng.random()
        if r < rate:
            out.append(rng.choice([x for x in alphabet if x != b]))
        elif not (deletions and r < rate * 1.05):
            out.append(b)
    return "".join(out)


def plant(path: Path, alphabet: str, length: int, seed: int, deletions: bool = True) -> Path:
    """The eight leaves of the planted tree, as a multi-FASTA of unaligned sequences (70 letters a line); nucleotides
    lose a few bases on the way unless `deletions` is false."""
    rng = random.Random(seed)
    dels = deletions and alphabet == "ACGT"
    ancestor = "".join(rng.choice(alphabet) for _ in range(length))
    clades = {c: _evolve(rng, ancestor, 0.12, alphabet, dels) for c in "AB"}
    subclades = {f"{c}{s}": _evolve(rng, clades[c], 0.04, alphabet, dels) for c in "AB" for s in (1, 2)}
    with open(path, "w") as fh:
        for name in LEAVES:
            seq = _evolve(rng, subclades[name.split("_")[0]], 0.01, alphabet, dels)
            fh.write(f">{name}\n" + "".join(seq[i:i + 70] + "\n" for i in range(0, len(seq), 70)))
    return path


def parse_newick(text: str) -> tuple[list[tuple[frozenset[str], str]], set[str]]:
    """(every inner node's leaf set with its label (the branch support), all leaves) of a Newick tree."""
    pos, nodes = 0, []
    text = text.strip()

    def label() -> str:
        nonlocal pos
        start = pos
        while pos < len(text) and text[pos] not in ",():;":
            pos += 1
        name = text[start:pos]
        if pos < len(text) and text[pos] == ":":  # the branch length
            pos += 1
            while pos < len(text) and text[pos] not in ",();":
                pos += 1
        return name

    def node() -> frozenset[str]:
        nonlocal pos
        if text[pos] != "(":
            return frozenset([label()])
        pos += 1
        leaves: set[str] = set()
        while True:
            leaves |= node()
            if text[pos] == ",":
                pos += 1
                continue
            assert text[pos] == ")", text[pos:pos + 20]
            pos += 1
            break
        nodes.append((frozenset(leaves), label()))
        return frozenset(leaves)

    everything = node()
    assert text[pos] == ";", f"not one Newick tree: {text[pos:pos + 20]!r}"
    return nodes, set(everything)


def splits(tree: str) -> dict[frozenset[str], str]:
    """The splits of the unrooted tree, each named by the side without the first leaf, with its support."""
    nodes, leaves = parse_newick(tree)
    first = min(leaves)
    named = {(side if first not in side else frozenset(leaves - side)): support for side, support in nodes}
    return {side: support for side, support in named.items() if 2 <= len(side) <= len(leaves) - 2}


def _clade_splits(tree: str) -> dict[frozenset[str], str]:
    found = splits(tree)
    leaves = set(LEAVES)
    return {frozenset(c): found.get(frozenset(c), found.get(frozenset(leaves - c))) for c in CLADES}


@pytest.fixture(scope="module")
def nucleotides(tmp_path_factory):
    base = tmp_path_factory.mktemp("phylo")
    return base, plant(base / "markers_16s.fasta", "ACGT", 900, seed=7)


@pytest.fixture(scope="module")
def iqtree_run(nucleotides):
    require_binaries("mafft", "iqtree2", "snakemake")
    from bioplan.compile import compile_request

    base, fasta = nucleotides
    workdir = base / "snakemake"
    result = compile_request(NUCLEOTIDE_REQUEST, [str(fasta)], str(workdir / "Snakefile"), force=True,
                             validate=False)
    assert [s.tool for s in result.plan.steps] == ["mafft_align", "iqtree"]
    run_ok(workdir)
    return workdir


def test_the_tree_recovers_every_planted_clade(iqtree_run):
    tree = (iqtree_run / "results/phylogenetic_tree_inference/tree.treefile").read_text()
    found = _clade_splits(tree)
    assert all(s is not None for s in found.values()), f"planted clades missing from {tree}: {found}"
    # ultrafast bootstrap supports (1000 replicates) on the inner branches: every planted clade well supported
    assert all(int(s) >= 95 for s in found.values()), found


def test_modelfinder_chose_the_model_and_the_run_is_recorded(iqtree_run):
    report = (iqtree_run / "results/phylogenetic_tree_inference/tree.iqtree").read_text()
    assert "Best-fit model according to BIC" in report
    assert "8 sequences" in (iqtree_run / "results/checks/check_three_sequences.ok").read_text()
    assert "8 sequences" in (iqtree_run / "results/checks/check_four_sequences.ok").read_text()  # the alignment
    versions = (iqtree_run / "results/pipeline_info/software_versions.yml").read_text()
    assert "mafft:" in versions and "iqtree:" in versions


def test_nextflow_pipeline_gives_the_same_tree(nucleotides, iqtree_run):
    from bioplan.compile import compile_request
    from test_nextflow_run import nextflow_bin
    from test_nextflow_run import run_ok as nextflow_run_ok

    nextflow_bin()  # skips (fails under CI) without a Nextflow runtime
    base, fasta = nucleotides
    workdir = base / "nextflow"
    compile_request(NUCLEOTIDE_REQUEST, [str(fasta)], str(workdir / "main.nf"), target="nextflow", force=True)
    nextflow_run_ok(workdir)
    tree = next((workdir / "results").rglob("*.treefile")).read_text()
    expected = (iqtree_run / "results/phylogenetic_tree_inference/tree.treefile").read_text()
    assert set(splits(tree)) == set(splits(expected))
    assert all(s is not None for s in _clade_splits(tree).values()), tree


def test_fasttree_on_proteins_recovers_the_planted_clades(tmp_path):
    require_binaries("mafft", "fasttree", "snakemake")
    from bioplan.compile import compile_request

    fasta = plant(tmp_path / "orthologs.faa", AMINO, 300, seed=11)
    workdir = tmp_path / "fasttree"
    result = compile_request(PROTEIN_REQUEST, [str(fasta)], str(workdir / "Snakefile"), force=True,
                             validate=False)
    assert [s.tool for s in result.plan.steps] == ["mafft_align", "fasttree"]
    assert "protein_sequences" in result.result.spec.constraint_ids
    run_ok(workdir)
    tree = next((workdir / "results/phylogenetic_tree_inference").glob("*.nwk")).read_text()
    assert all(s is not None for s in _clade_splits(tree).values()), tree
    assert "-lg" in (workdir / "config/config.yaml").read_text()


def test_newick_parser_reads_supports_and_splits():
    found = splits("((a:0.1,b:0.2)90:0.3,(c,d)77,e);")
    assert found == {frozenset("cde"): "90", frozenset("cd"): "77"}  # (a,b) is the other side of (c,d,e)


def test_iqtree_on_a_given_alignment_recovers_the_planted_clades(tmp_path):
    """An aligned FASTA (the planted leaves without indels, clade B missing a 30-column stretch as '-') is the
    alignment the tree is built from: one IQ-TREE step, no realignment."""
    require_binaries("iqtree2", "snakemake")
    from bioplan.compile import compile_request

    unaligned = plant(tmp_path / "plain.fa", "ACGT", 600, seed=5, deletions=False)
    lines = unaligned.read_text().split(">")[1:]
    aligned = tmp_path / "alignment.afa"
    with open(aligned, "w") as fh:
        for record in lines:
            name, *rows = record.split("\n")
            seq = "".join(rows)
            assert len(seq) == 600
            if name.startswith("B"):
                seq = seq[:100] + "-" * 30 + seq[130:]
            fh.write(f">{name}\n{seq}\n")
    workdir = tmp_path / "given"
    result = compile_request("build a maximum-likelihood tree from this alignment with IQ-TREE", [str(aligned)],
                             str(workdir / "Snakefile"), force=True, validate=False)
    assert [s.tool for s in result.plan.steps] == ["iqtree"]
    run_ok(workdir)
    tree = (workdir / "results/phylogenetic_tree_inference/tree.treefile").read_text()
    assert all(s is not None for s in _clade_splits(tree).values()), tree

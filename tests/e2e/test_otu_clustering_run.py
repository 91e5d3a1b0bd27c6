"""OTU clustering of a chimera-free ASV table with VSEARCH (nf-core/ampliseq's post-clustering) on planted ASVs.

Three 250 bp "species" are each an abundant centroid ASV with sequencing-like variants 1-6 bases away
(98-99.6 % identity: the same 97 % OTU), beside a fourth ASV 15 bases (94 %) from the first species
(its own OTU), in three samples with known counts, and one ASV without reads. The compiled workflow
(`vsearch --cluster_size --id 0.97`, then the reads summed per OTU) must give exactly the four
planted OTUs, each named after its most abundant ASV with that ASV's sequence, each sample's count
the sum of its planted members' (no read lost or moved), and the planted membership.
"""

from __future__ import annotations

import csv
import os
import random
import shutil

import pytest
from e2e_support import INSTALL_HINT, env, run_ok

pytestmark = pytest.mark.e2e

REQUEST = "cluster the ASVs into 97% OTUs with VSEARCH"
SAMPLES = ("soil_a", "soil_b", "soil_c")
LENGTH = 250


def _mutate(rng: random.Random, seq: str, n: int) -> str:
    bases = list(seq)
    for i in rng.sample(range(len(bases)), n):
        bases[i] = rng.choice([b for b in "ACGT" if b != bases[i]])
    return "".join(bases)


def plant(folder):
    """The ASV table (DADA2 steps' layout) and the planted OTU of every ASV with reads."""
    rng = random.Random(5)
    species = ["".join(rng.choice("ACGT") for _ in range(LENGTH)) for _ in range(3)]
    rows, otu_of = [], {}
    for s, seq in enumerate(species, 1):
        centroid = f"ASV_{s}"
        rows.append((centroid, seq, [400 * s, 300, 200 + 50 * s]))
        otu_of[centroid] = centroid
        for v, mismatches in enumerate((1, 3, 6), 1):
            asv = f"ASV_{s}{v}"
            rows.append((asv, _mutate(rng, seq, mismatches), [10 * v, 5 * s, v]))
            otu_of[asv] = centroid
    rows.append(("ASV_9", _mutate(rng, species[0], 15), [0, 80, 40]))  # 94 %: an OTU of its own
    otu_of["ASV_9"] = "ASV_9"
    rows.append(("ASV_10", _mutate(rng, species[1], 2), [0, 0, 0]))  # no reads: in no OTU
    rng.shuffle(rows)
    path = folder / "asv_table.nochim.tsv"
    with open(path, "w") as fh:
        fh.write("asv_id\tsequence\t" + "\t".join(SAMPLES) + "\n")
        fh.writelines(f"{a}\t{seq}\t" + "\t".join(map(str, counts)) + "\n" for a, seq, counts in rows)
    return path, {a: (seq, counts) for a, seq, counts in rows}, otu_of


@pytest.fixture(scope="module")
def clustered(tmp_path_factory):
    if shutil.which("vsearch", path=env()["PATH"]) is None or shutil.which("snakemake", path=env()["PATH"]) is None:
        message = f"vsearch or snakemake missing; {INSTALL_HINT}"
        pytest.fail(message) if os.environ.get("CI", "").lower() == "true" else pytest.skip(message)
    from bioplan.compile import compile_request

    base = tmp_path_factory.mktemp("otus")
    table, asvs, otu_of = plant(base)
    workdir = base / "out"
    result = compile_request(REQUEST, [str(table)], str(workdir / "Snakefile"), force=True,
                             declared={str(table): "nonchimeric_asv_table"},
                             validate=False)  # no pre-check: run_ok's start builds the same DAG and runs it
    assert [s.tool for s in result.plan.steps] == ["vsearch_cluster"]
    run_ok(workdir)
    return workdir, asvs, otu_of


def _rows(path) -> list[dict[str, str]]:
    with open(path) as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def test_the_planted_otus_with_their_summed_reads(clustered):
    workdir, asvs, otu_of = clustered
    otus = {r["asv_id"]: r for r in _rows(workdir / "results/otu_clustering/otu_table.tsv")}
    assert sorted(otus) == ["ASV_1", "ASV_2", "ASV_3", "ASV_9"]
    for otu, row in otus.items():
        assert row["sequence"] == asvs[otu][0]  # the centroid's own sequence
        members = [a for a, o in otu_of.items() if o == otu]
        for i, sample in enumerate(("soil_a", "soil_b", "soil_c")):
            assert int(row[sample]) == sum(asvs[a][1][i] for a in members), (otu, sample)


def test_every_asv_with_reads_is_in_its_planted_otu(clustered):
    workdir, asvs, otu_of = clustered
    with open(workdir / "results/otu_clustering/otu_members.tsv") as fh:
        members = dict(line.rstrip("\n").split("\t") for line in fh)
    assert members == otu_of
    assert "ASV_10" not in members and sum(asvs["ASV_10"][1]) == 0

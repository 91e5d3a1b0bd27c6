"""Small RNA-seq (nf-core/smrnaseq's known miRNA quantification): the reads are trimmed of the small RNA 3'
adapter (fastp, 17-100 nt), mapped to the species' mature miRNAs of a miRBase FASTA (Bowtie 1) and counted per
miRNA (samtools idxstats) into the raw count matrix the usual DE reads; novel miRNAs (miRDeep2), isomiRs
(mirtop), miRTrace QC, contaminant filtering, other small RNA classes and targets stay refused by name.
Planning and the table script (scripts/mirna_tables.awk, POSIX awk) only: the run with the real tools is
tests/e2e/test_small_rna_run.py."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from bioplan.codegen.ir import synthesize
from bioplan.compile import plan_request
from bioplan.errors import BioplanError

ROOT = Path(__file__).resolve().parents[1]
AWK = ROOT / "templates" / "scripts" / "mirna_tables.awk"
REQUEST = ("miRNA-seq: trim adapters, quantify known miRNAs and find differentially expressed miRNAs between "
           "conditions")
MATURE = (">hsa-let-7a-5p MIMAT0000062 Homo sapiens let-7a-5p\nUGAGGUAGUAGGUUGUAUAGUU\n"
          ">mmu-let-7a-5p MIMAT0000521 Mus musculus let-7a-5p\nUGAGGUAGUAGGUUGUAUAGUU\n"
          ">hsa-miR-21-5p MIMAT0000076 Homo sapiens miR-21-5p\nUAGCUUAUCAGACUGAUG\nUUGA\n")


@pytest.fixture
def inputs(tmp_path) -> list[str]:
    import gzip

    (tmp_path / "mature.fa").write_text(MATURE)
    (tmp_path / "samples.tsv").write_text("sample\tcondition\nctrl_a\tcontrol\nctrl_b\tcontrol\n"
                                          "trt_a\ttreated\ntrt_b\ttreated\n")
    files = [str(tmp_path / "mature.fa"), str(tmp_path / "samples.tsv")]
    for name in ("ctrl_a", "ctrl_b", "trt_a", "trt_b"):
        with gzip.open(tmp_path / f"{name}.fastq.gz", "wt") as fh:
            fh.write("".join(f"@r{i}\nTGAGGTAGTAGGTTGTATAGTTTGGAATTCTCGGGTGCCAAGG\n+\n{'I' * 43}\n" for i in range(40)))
        files.append(str(tmp_path / f"{name}.fastq.gz"))
    return files


def _steps(result) -> list[tuple[str, str]]:
    return [(s.operation, s.tool) for s in result.plans[0].steps]


def test_the_request_plans_nf_core_smrnaseq_quantification_then_de(knowledge, inputs):
    result = plan_request(REQUEST + " of human samples", inputs, knowledge=knowledge)
    assert _steps(result) == [("mirna_indexing", "bowtie_build_mirna"), ("read_trimming", "fastp"),
                              ("mirna_alignment", "bowtie_mirna"), ("mirna_quantification", "mirna_counts"),
                              ("differential_expression", "deseq2")]
    assert {"small_rna_seq", "single_end_reads", "organism_human"} <= set(result.spec.constraint_ids)
    # the miRBase FASTA is read as the mature miRNAs (its MIMAT accessions), not as a genome or transcriptome
    assert "mirna_reference" in [i.datatype for i in result.spec.inputs]


def test_the_small_rna_adapter_length_bounds_and_species_are_set(knowledge, inputs, tmp_path):
    result = plan_request(REQUEST + " of human samples", inputs, knowledge=knowledge)
    params = synthesize(knowledge, result.spec, result.plans[0], workdir=str(tmp_path / "out")).params
    assert "--adapter_sequence TGGAATTCTCGGGTGCCAAGG" in params["fastp"]["extra"]
    assert "--length_required 17 --length_limit 100" in params["fastp"]["extra"]
    assert params["bowtie_build_mirna"]["species"] == "hsa"
    assert "-k 50 --best --strata" in params["bowtie_mirna"]["extra"]


def test_without_an_organism_the_species_is_left_to_the_file(knowledge, inputs, tmp_path):
    result = plan_request(REQUEST, inputs, knowledge=knowledge)
    assert synthesize(knowledge, result.spec, result.plans[0],
                      workdir=str(tmp_path / "out")).params["bowtie_build_mirna"]["species"] == ""


def test_bulk_de_words_alone_stay_bulk_rna_seq(knowledge):
    """Differential expression applies to small RNA-seq too; named alone it is still of bulk RNA-seq (the
    first assay the operation lists), as before."""
    result = plan_request("differential expression between the treated and control samples", [], knowledge=knowledge)
    assert result.spec.constraints.get("assay") == "bulk_rna_seq"


@pytest.mark.parametrize("query, operations", [
    ("Reads alignment against miRBase mature miRNA (Bowtie1)", {"mirna_alignment"}),
    ("miRNA quantification", {"mirna_quantification"}),
    ("trim the adapters, quantify the known miRNAs", {"read_trimming", "mirna_quantification"}),
    ("小RNA测序数据：去接头，miRNA定量，找差异表达miRNA",
     {"read_trimming", "mirna_quantification", "differential_expression"}),
])
def test_phrasings_plan_the_mirna_steps(knowledge, query, operations):
    result = plan_request(query, [], knowledge=knowledge)
    assert operations <= {s.operation for s in result.plans[0].steps}
    assert "read_alignment" not in {s.operation for s in result.plans[0].steps}
    assert not result.spec.unrecognized


@pytest.mark.parametrize("query, family", [
    ("Novel miRNAs and known miRNAs discovery (MiRDeep2) (Optional)", "novel_mirna_discovery"),
    ("miRNA and isomiR annotation (mirtop)", "isomir_analysis"),
    ("miRNA QC (miRTrace)", "small_rna_qc"),
    ("Filter out contaminants (e.g. rRNA reads) in small RNA-seq datasets.", "small_rna_contamination"),
    ("Identify differently abundant small RNAs and their targets.", "small_rna_targets"),
    ("quantify the piRNAs of the small RNA-seq reads", "other_small_rna"),
    ("nf-core/smrnaseq is a bioinformatics best-practice analysis pipeline for Small RNA-Seq.", "smrnaseq_pipeline"),
])
def test_what_is_not_done_is_refused_by_name(knowledge, query, family):
    with pytest.raises(BioplanError) as e:
        plan_request(query, [], knowledge=knowledge)
    assert e.value.code == "unsupported_analysis"
    assert family in e.value.details["analyses"]


def test_a_mirbase_hairpin_fasta_is_refused_naming_the_mature_file(knowledge, inputs, tmp_path):
    hairpin = tmp_path / "hairpin.fa"
    hairpin.write_text(">hsa-let-7a-1 MI0000060 Homo sapiens let-7a-1 stem-loop\n"
                       "UGGGAUGAGGUAGUAGGUUGUAUAGUUUUAGGGUCACACCCACCACUGGGAGAUAACUAUACAAUCUACUGUCUUUCCUA\n")
    with pytest.raises(BioplanError) as e:
        plan_request(REQUEST, [str(hairpin)] + inputs[1:], knowledge=knowledge)
    assert "hairpin" in e.value.message and "mature.fa" in " ".join(e.value.hints)


def test_adapter_contamination_is_trimming_not_contaminant_filtering(knowledge):
    result = plan_request("miRNA-seq: remove the adapter contamination and quantify the known miRNAs", [],
                          knowledge=knowledge)
    assert {"read_trimming", "mirna_quantification"} <= {s.operation for s in result.plans[0].steps}


def _awk(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    awk = shutil.which("awk")
    assert awk, "POSIX awk is on every system the workflows run on"
    return subprocess.run([awk, "-f", str(AWK), *args], input=stdin, capture_output=True, text=True, timeout=30)


def test_mature_mode_keeps_the_species_as_dna_with_short_names():
    out = _awk("mode=mature", "species=hsa", "-", stdin=MATURE)
    assert out.returncode == 0, out.stderr
    assert out.stdout == ">hsa-let-7a-5p\nTGAGGTAGTAGGTTGTATAGTT\n>hsa-miR-21-5p\nTAGCTTATCAGACTGATGTTGA\n"


@pytest.mark.parametrize("species, said", [
    ("", "2 species (hsa, mmu): name the organism"),
    ("rno", "no mature miRNA of species 'rno'"),
])
def test_mature_mode_stops_naming_the_fix(species, said):
    out = _awk("mode=mature", f"species={species}", "-", stdin=MATURE)
    assert out.returncode == 1 and said in out.stderr


def test_mature_mode_refuses_a_name_twice_and_an_empty_sequence():
    twice = _awk("mode=mature", "species=hsa", "-", stdin=">hsa-a MIMAT1\nACGU\n>hsa-a MIMAT2\nACGA\n")
    assert twice.returncode == 1 and "occurs twice" in twice.stderr
    empty = _awk("mode=mature", "species=hsa", "-", stdin=">hsa-a MIMAT1\n>hsa-b MIMAT2\nACGA\n")
    assert empty.returncode == 1 and "'hsa-a' has no sequence" in empty.stderr


def test_counts_mode_gathers_idxstats_in_index_order(tmp_path):
    a, b = tmp_path / "1.idxstats", tmp_path / "2.idxstats"
    a.write_text("hsa-let-7a-5p\t22\t40\t0\nhsa-miR-21-5p\t22\t3\t0\n*\t0\t0\t7\n")
    b.write_text("hsa-let-7a-5p\t22\t38\t0\nhsa-miR-21-5p\t22\t0\t0\n*\t0\t0\t2\n")
    out = _awk("mode=counts", str(a), str(b))
    assert out.returncode == 0, out.stderr
    assert out.stdout == "hsa-let-7a-5p\t40\t38\nhsa-miR-21-5p\t3\t0\n"


def test_a_fasta_of_mature_mirna_names_without_accessions_is_the_mirna_reference(knowledge, inputs, tmp_path):
    """A species' own file (grep'd from miRBase, or MirGeneDB-style names) has no MIMAT accession: the names and
    the miRNA lengths say mature miRNAs (was: ambiguous genome or transcriptome)."""
    plain = tmp_path / "hsa_mature.fa"
    plain.write_text(">hsa-let-7a-5p\nTGAGGTAGTAGGTTGTATAGTT\n>Hsa-Mir-21_5p\nTAGCTTATCAGACTGATGTTGA\n")
    files = [str(plain)] + [f for f in inputs if not f.endswith("mature.fa")]
    result = plan_request(REQUEST, files, knowledge=knowledge)
    assert "mirna_reference" in [i.datatype for i in result.spec.inputs]
    assert ("mirna_indexing", "bowtie_build_mirna") in _steps(result)

"""An adapter FASTA among the inputs is the trimmer's adapter file (issue 13): recognised by its
content, wired into fastp (--adapter_fasta) or Cutadapt (-a file:), and it makes a request with reads
trim them; without reads it is said to be unused. Inputs are written in tmp_path."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from bioplan.compile import emit_files, plan_request

TRUSEQ3_PE_2 = (">PrefixPE/1\nTACACTCTTTCCCTACACGACGCTCTTCCGATCT\n>PrefixPE/2\nGTGACTGGAGTTCAGACGTGTGCTCTTCCGATCT\n"
                ">PE1_rc\nAGATCGGAAGAGCGTCGTGTAGGGAAAGAGTGTA\n>PE2_rc\nAGATCGGAAGAGCACACGTCTGAACTCCAGTCAC\n")
GENOME = ">chr1\n" + "ACGTTGCAACGGATCCTTAGGCATCGATCGGCTAGCTAGGATCCAAGT" * 40 + "\n"
GTF = "".join(f'chr1\tensembl\texon\t{100 * n + 1}\t{100 * n + 60}\t.\t+\t.\tgene_id "ENSMUSG{n:011d}";\n'
              for n in range(1, 6))


def _fastq(path: Path, sample: str, mate: int) -> str:
    reads = "".join(f"@{sample}.{i} {mate}:N:0:1\n{'ACGTTGCAAC' * 5}\n+\n{'I' * 50}\n" for i in range(20))
    path.write_bytes(gzip.compress(reads.encode(), mtime=0))
    return str(path)


@pytest.fixture
def reads(tmp_path) -> list[str]:
    samples = ("ctrl_1", "ctrl_2", "trt_1", "trt_2")
    return [_fastq(tmp_path / f"{s}_R{m}.fastq.gz", s, m) for s in samples for m in (1, 2)]


@pytest.fixture
def adapters(tmp_path) -> str:
    path = tmp_path / "TruSeq3-PE-2.fa"
    path.write_text(TRUSEQ3_PE_2)
    return str(path)


def _rnaseq_refs(tmp_path: Path) -> list[str]:
    (tmp_path / "genome.fa").write_text(GENOME)
    (tmp_path / "genes.gtf").write_text(GTF)
    (tmp_path / "samples.tsv").write_text("sample\tcondition\nctrl_1\tctrl\nctrl_2\tctrl\ntrt_1\ttrt\ntrt_2\ttrt\n")
    return [str(tmp_path / n) for n in ("genome.fa", "genes.gtf", "samples.tsv")]


def _trimming(result):
    return next(s for s in result.plans[0].steps if s.operation == "read_trimming")


@pytest.mark.parametrize("tool", ["fastp", "cutadapt"])
def test_the_trimmer_reads_the_adapter_fasta(knowledge, reads, adapters, tool):
    result = plan_request(f"trim the reads with {tool}", reads + [adapters], knowledge=knowledge)
    step = _trimming(result)
    assert step.tool == tool and step.sources["adapters"] == "input:adapter_sequences"


def test_a_de_request_with_reads_and_an_adapter_fasta_trims_with_it(knowledge, reads, adapters, tmp_path):
    result = plan_request("differential expression between the conditions",
                          reads + _rnaseq_refs(tmp_path) + [adapters], knowledge=knowledge)
    ops = [s.operation for s in result.plans[0].steps]
    assert "read_trimming" in ops and "differential_expression" in ops
    aligner = next(s for s in result.plans[0].steps if s.operation == "read_alignment")
    assert aligner.sources["reads"] == "read_trimming"  # the trimmed reads are aligned
    assert _trimming(result).sources["adapters"] == "input:adapter_sequences"
    assert any("TruSeq3-PE-2.fa" in w and "read trimming" in w for w in result.spec.warnings)


def test_do_not_trim_is_honoured_beside_an_adapter_fasta(knowledge, reads, adapters, tmp_path):
    result = plan_request("differential expression between the conditions, do not trim the reads",
                          reads + _rnaseq_refs(tmp_path) + [adapters], knowledge=knowledge)
    assert "read_trimming" not in [s.operation for s in result.plans[0].steps]


def test_an_adapter_fasta_without_reads_is_said_to_be_unused(knowledge, adapters, tmp_path):
    counts = tmp_path / "counts.tsv"
    counts.write_text("gene_id\tc1\tc2\tt1\tt2\n" + "".join(
        f"ENSMUSG{n:011d}\t{n * 10}\t{n * 11}\t{n * 30}\t{n * 29}\n" for n in range(1, 30)))
    samples = tmp_path / "samples.tsv"
    samples.write_text("sample\tcondition\nc1\tctrl\nc2\tctrl\nt1\ttrt\nt2\ttrt\n")
    result = plan_request("differential expression", [str(counts), str(samples), adapters], knowledge=knowledge)
    assert [s.operation for s in result.plans[0].steps] == ["differential_expression"]
    assert any("TruSeq3-PE-2.fa" in w and "not used" in w for w in result.spec.warnings)


@pytest.mark.parametrize("tool, snakemake_line, nextflow_line", [
    ("fastp", '" --adapter_fasta {input.adapters:q}"', "--adapter_fasta ${adapters}"),
    ("cutadapt", "-a file:{input.adapters:q} -A file:{input.adapters:q}", "-a file:${adapters}"),
])
def test_both_targets_pass_the_adapter_file_to_the_tool(knowledge, reads, adapters, tmp_path, tool, snakemake_line,
                                                        nextflow_line):
    result = plan_request(f"trim the reads with {tool}", reads + [adapters], knowledge=knowledge)
    _, smk = emit_files(knowledge, result, result.plans[0], "snakemake", tmp_path / "smk")
    rule = smk["workflow/rules/read_trimming.smk"]
    assert 'adapters=config["inputs"]["adapter_sequences"]' in rule and snakemake_line in rule
    assert "TruSeq3-PE-2.fa" in smk["config/config.yaml"] and "TruSeq3-PE-2.fa" not in rule
    _, nf = emit_files(knowledge, result, result.plans[0], "nextflow", tmp_path / "nf")
    module = nf[f"modules/local/{tool}/main.nf"]
    assert "path(adapters)" in module and nextflow_line in module


@pytest.mark.parametrize("tool, absent", [("fastp", "--adapter_fasta"), ("cutadapt", "file:")])
def test_without_an_adapter_fasta_the_tool_uses_its_own_adapters(knowledge, reads, tmp_path, tool, absent):
    result = plan_request(f"trim the reads with {tool}", reads, knowledge=knowledge)
    assert "adapters" not in _trimming(result).sources
    _, smk = emit_files(knowledge, result, result.plans[0], "snakemake", tmp_path / "smk")
    assert absent not in smk["workflow/rules/read_trimming.smk"]
    assert "adapter_sequences" not in smk["config/config.yaml"]
    _, nf = emit_files(knowledge, result, result.plans[0], "nextflow", tmp_path / "nf")
    assert "path(adapters)" not in nf[f"modules/local/{tool}/main.nf"]

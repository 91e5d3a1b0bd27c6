"""templates/scripts/gff3_plain_ids.awk: the GTF gffread writes from an Ensembl-style GFF3 gets plain
gene and transcript ids and the genes' names and biotypes, under every POSIX awk on the machine."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from bioplan.paths import templates_dir

PROGRAM = templates_dir() / "scripts" / "gff3_plain_ids.awk"

GFF3 = "\n".join([
    "##gff-version 3",
    "#!genome-build GRCm39",
    "1\tensembl\tgene\t100\t900\t.\t+\t.\tID=gene:ENSMUSG01;Name=Actb;biotype=protein_coding;gene_id=ENSMUSG01",
    "1\tensembl\tmRNA\t100\t900\t.\t+\t.\tID=transcript:ENSMUST01;Parent=gene:ENSMUSG01;transcript_id=ENSMUST01",
    "1\tensembl\texon\t100\t300\t.\t+\t.\tParent=transcript:ENSMUST01",
    "2\tensembl\tncRNA_gene\t50\t80\t.\t-\t.\tID=gene:ENSMUSG02;biotype=lncRNA;gene_id=ENSMUSG02",
    "2\tensembl\tlnc_RNA\t50\t80\t.\t-\t.\tID=transcript:ENSMUST02;Parent=gene:ENSMUSG02",
    "3\tother\tgene\t10\t20\t.\t+\t.\tID=orphan_gene",
    "short line",
    "",
])

# what `gffread -T` writes from GFF3 (prefixed ids copied from ID=)
RAW_GTF = "\n".join([
    '1\tensembl\ttranscript\t100\t900\t.\t+\t.\t'
    'transcript_id "transcript:ENSMUST01"; gene_id "gene:ENSMUSG01"; gene_name "Actb";',
    '1\tensembl\texon\t100\t300\t.\t+\t.\ttranscript_id "transcript:ENSMUST01"; gene_id "gene:ENSMUSG01";',
    '2\tensembl\texon\t50\t80\t.\t-\t.\ttranscript_id "transcript:ENSMUST02"; gene_id "gene:ENSMUSG02";',
    '3\tother\texon\t10\t20\t.\t+\t.\ttranscript_id "orphan_tx"; gene_id "orphan_gene";',
    "",
])

EXPECTED = [
    ["1", "ensembl", "transcript", "100", "900", ".", "+", ".",
     'transcript_id "ENSMUST01"; gene_id "ENSMUSG01"; gene_name "Actb"; gene_biotype "protein_coding";'],
    ["1", "ensembl", "exon", "100", "300", ".", "+", ".",
     'transcript_id "ENSMUST01"; gene_id "ENSMUSG01"; gene_name "Actb"; gene_biotype "protein_coding";'],
    # no transcript_id= on the GFF3 transcript: the id loses its prefix; a gene without Name= has no gene_name
    ["2", "ensembl", "exon", "50", "80", ".", "-", ".",
     'transcript_id "ENSMUST02"; gene_id "ENSMUSG02"; gene_biotype "lncRNA";'],
    # ids without an Ensembl prefix pass through unchanged
    ["3", "other", "exon", "10", "20", ".", "+", ".", 'transcript_id "orphan_tx"; gene_id "orphan_gene";'],
]

AWKS = [a for a in ("awk", "mawk", "gawk", "original-awk", "busybox") if shutil.which(a)]


def _run(awk: str, tmp_path: Path) -> list[list[str]]:
    (tmp_path / "in.gff3").write_text(GFF3)
    (tmp_path / "raw.gtf").write_text(RAW_GTF)
    argv = [awk, "awk"] if awk == "busybox" else [awk]
    if awk == "gawk":
        argv.append("--posix")  # no gawk extensions: the containers may carry mawk or busybox
    done = subprocess.run([*argv, "-f", str(PROGRAM), str(tmp_path / "in.gff3"), str(tmp_path / "raw.gtf")],
                          capture_output=True, text=True, check=True)
    assert done.stderr == ""
    return [line.split("\t") for line in done.stdout.splitlines()]


@pytest.mark.parametrize("awk", AWKS)
def test_ids_made_plain_with_gene_names_and_biotypes(awk, tmp_path):
    assert _run(awk, tmp_path) == EXPECTED


def test_program_is_executable_by_its_shebang(tmp_path):
    """Nextflow calls it by name from bin/ (compile makes bin/ executable): the shebang must be a real awk."""
    assert PROGRAM.read_text().splitlines()[0] == "#!/usr/bin/awk -f"
    if not Path("/usr/bin/awk").exists():
        pytest.skip("no /usr/bin/awk")
    script = tmp_path / "gff3_plain_ids.awk"
    script.write_text(PROGRAM.read_text())
    script.chmod(0o755)
    (tmp_path / "in.gff3").write_text(GFF3)
    (tmp_path / "raw.gtf").write_text(RAW_GTF)
    done = subprocess.run([str(script), "in.gff3", "raw.gtf"], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert [line.split("\t") for line in done.stdout.splitlines()] == EXPECTED

"""Real files, round 5: multiple sequence alignments in Clustal and PHYLIP (tests/data/real_round5/msa, README).

Before round 5 every Clustal and PHYLIP alignment was refused by name ("bioplan reads an alignment as aligned FASTA
only"), though IQ-TREE reads both and FastTree reads PHYLIP. Now an alignment in a form the tree tools read is the
multiple sequence alignment a requested tree is inferred from (formats `phylip` and `clustal`; FastTree is kept
off Clustal by its port formats, with a conversion hint when it is named); the forms they misread (tried here with
Debian's IQ-TREE 2.0.7 and FastTree 2.1.11, the e2e test below) are refused saying which form it is and the command
that converts it; any alignment a request builds no tree from is refused as before, saying to ask for its tree.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bioplan.compile import plan_request
from bioplan.errors import BioplanError
from bioplan.request.sniff import sniff_inputs
from test_step_scripts import step  # noqa: F401  (the fixture that runs a step script in-process)

MSA = Path(__file__).parent / "data" / "real_round5" / "msa"
TREE = "build a maximum likelihood phylogenetic tree from this alignment"

# file, format, sequences, alphabet
READ = [
    ("iqtree_example.phy", "phylip", 17, "nucleotide"),  # IQ-TREE's example: one line per sequence, 1998 columns
    ("hennigian.phy", "phylip", 10, "nucleotide"),  # names padded to ten columns with spaces
    ("interlaced2.phy", "phylip", 4, "protein"),  # interleaved blocks, the later ones without names
    ("opuntia.aln", "clustal", 7, "nucleotide"),  # ClustalW 1.81, with its conservation lines
]
# file, what the refusal says, what its hint says
REFUSED = [
    ("muscle.aln", "starts with MUSCLE's head line, not 'CLUSTAL'", "sed '1s/.*/CLUSTAL/'"),
    ("sequential.phy", "sequential PHYLIP with each sequence wrapped over several lines", "'phylip-sequential'"),
    ("paml_alignment.phylip", "does not hold 5 distinctly named sequences of 222 columns", "aligned FASTA"),
    ("fasttree_test.phylip.gz", "gzip-compressed PHYLIP multiple sequence alignment", "gunzip -k"),
]
STRICT = Path(__file__).parent / "data" / "real_studies" / "biopython" / "horses.phy"  # names glued to residues


def _tools(result) -> list[str]:
    return [s.tool for s in result.plans[0].steps]


@pytest.mark.parametrize("name, fmt, n, alphabet", READ)
def test_alignments_the_tree_tools_read_are_the_alignment_of_the_tree(knowledge, name, fmt, n, alphabet):
    result = plan_request(TREE, [str(MSA / name)], knowledge=knowledge)
    assert [(i.datatype, i.format) for i in result.spec.inputs] == [("multiple_sequence_alignment", fmt)]
    assert _tools(result) == ["iqtree"]  # no realignment
    assert f"{alphabet}_sequences" in result.spec.constraint_ids
    assert any("read as multiple_sequence_alignment" in e for e in result.spec.inputs[0].evidence)
    f = sniff_inputs([str(MSA / name)], {}, expected=[{"multiple_sequence_alignment": "a tree is inferred"}]).files[0]
    assert f.fact("n_sequences") == n and f.fact("sequence_alphabet") == alphabet


def test_fasttree_reads_phylip_but_not_clustal(knowledge):
    result = plan_request("infer the phylogeny with FastTree", [str(MSA / "hennigian.phy")], knowledge=knowledge)
    assert _tools(result) == ["fasttree"]
    with pytest.raises(BioplanError) as e:
        plan_request("infer the phylogeny with FastTree", [str(MSA / "opuntia.aln")], knowledge=knowledge)
    assert e.value.code == "unsatisfiable" and "fasttree.alignment reads aligned_fasta/phylip" in e.value.message
    assert any("AlignIO.convert('FILE.aln', 'clustal'" in h for h in e.value.hints)


@pytest.mark.parametrize("name, said, hint", [*REFUSED, (STRICT, "strict interleaved PHYLIP", "'phylip'")])
def test_forms_the_tree_tools_misread_are_refused_with_the_conversion(knowledge, name, said, hint):
    with pytest.raises(BioplanError) as e:
        plan_request(TREE, [str(MSA / name)], knowledge=knowledge)
    assert e.value.code == "unreadable_input" and said in e.value.message
    assert any(hint in h for h in e.value.hints)


@pytest.mark.parametrize("name", ["hennigian.phy", "opuntia.aln"])
def test_an_alignment_no_tree_is_built_from_is_refused_saying_to_ask_for_one(knowledge, name):
    with pytest.raises(BioplanError) as e:
        plan_request("functional annotation of these sequences with DIAMOND", [str(MSA / name)], knowledge=knowledge)
    assert e.value.code == "unreadable_input" and "multiple sequence alignment" in e.value.message
    assert any("ask for its tree" in h for h in e.value.hints)


def _check(step, tmp_path, path):  # noqa: F811  (step: the fixture)
    params = {"constraint": "requires_four_sequences", "guarded_step": "phylogenetic_tree_inference",
              "datatypes": {"alignment": "multiple_sequence_alignment"}}
    return step("check_sequence_set.py", {"alignment": str(path)}, {"ok": tmp_path / "ok"}, params)


# ungapped lengths as Biopython 1.80 counts them (AlignIO, phylip-relaxed and clustal)
@pytest.mark.parametrize("name, said", [("hennigian.phy", "10 sequences, 40-40 letters"),
                                        ("interlaced2.phy", "4 sequences, 112-131 letters"),
                                        ("opuntia.aln", "7 sequences, 146-156 letters")])
def test_the_run_time_check_reads_phylip_and_clustal(step, tmp_path, name, said):  # noqa: F811
    run = _check(step, tmp_path, MSA / name)
    assert run.code == 0, run.log
    assert said in (tmp_path / "ok").read_text()


def test_the_run_time_check_refuses_three_sequences_and_a_repeated_name(step, tmp_path):  # noqa: F811
    three = tmp_path / "three.phy"  # the first three of IQ-TREE's example
    three.write_text("3 1998\n" + "".join((MSA / "iqtree_example.phy").read_text().splitlines(True)[1:4]))
    run = _check(step, tmp_path, three)
    assert run.code == 1 and "holds 3 sequence(s)" in run.terminal
    twice = tmp_path / "twice.aln"  # opuntia with its second sequence renamed as the first
    lines = (MSA / "opuntia.aln").read_text().replace("gi|6273284|gb|AF191658.1|AF191",
                                                      "gi|6273285|gb|AF191659.1|AF191")
    twice.write_text(lines)
    run = _check(step, tmp_path, twice)
    assert run.code == 1 and "names several sequences alike" in run.terminal


@pytest.mark.e2e
@pytest.mark.parametrize("name, read", [*((r[0], True) for r in READ), *((r[0], False) for r in REFUSED[:3]),
                                        (STRICT, False)])
def test_iqtree_reads_what_is_read_and_misreads_what_is_refused(tmp_path, name, read):
    """Debian's IQ-TREE 2 on each fixture, as the emitted rule calls it: what bioplan reads, it reads; what bioplan
    refuses for its form, it stops on (the gzip file is left out: refused for its compression alone)."""
    iqtree = shutil.which("iqtree2") or shutil.which("iqtree")
    if iqtree is None:
        pytest.skip("IQ-TREE is not installed")
    src = shutil.copy(MSA / name, tmp_path)
    run = subprocess.run([iqtree, "-s", src, "-m", "JC" if "phy" in str(name) and name != "interlaced2.phy"
                          else "MFP", "-fast", "-T", "1", "-seed", "1", "--prefix", str(tmp_path / "t")],
                         capture_output=True, text=True, timeout=300)
    assert (run.returncode == 0 and (tmp_path / "t.treefile").exists()) is read, run.stdout[-2000:]


SHEETS = Path(__file__).parent / "data" / "real_round5" / "sheets"
COUNTS = Path(__file__).parent / "data" / "real_round4b" / "salmon.merged.gene_counts.tsv"


def test_a_sample_sheet_with_a_line_break_inside_a_quoted_cell_is_a_sample_sheet(knowledge):
    """Excel's CSV (BOM, CRLF rows) of a sheet whose notes hold a line break (Alt+Enter in a cell: a quoted field
    with a bare LF) was 'a one-column file whose values are not gene ids': its rows were cut at the break. Now the
    quoted field joins its lines, as csv.reader, pandas and R's read.csv read it."""
    f = sniff_inputs([str(SHEETS / "excel_notes.csv")], {}).files[0]
    assert (f.datatype, f.format) == ("sample_metadata", "csv")
    assert f.fact("samples") == ["X1O", "X2O", "X3O", "P11_1", "P11_2", "P11_3"]
    assert f.fact("replicates") == {"control": 3, "P11": 3}
    result = plan_request("differential expression with DESeq2 between P11 and control",
                          [str(COUNTS), str(SHEETS / "excel_notes.csv")], knowledge=knowledge)
    assert _tools(result) == ["deseq2"]


def test_a_stray_quote_joins_no_lines(tmp_path):
    """A lone '"' (5" in a cell) opens no field across the rest of the file: the rows stay rows."""
    sheet = tmp_path / "sheet.csv"
    sheet.write_text("sample,condition,notes\n" + "".join(f"S{i},{'a' if i % 2 else 'b'},ok\n" for i in range(30))
                     .replace("S1,a,ok", 'S1,a,5" tube'))
    f = sniff_inputs([str(sheet)], {}).files[0]
    assert f.datatype == "sample_metadata" and len(f.fact("samples")) == 30


SEARCH, ARRAYS, INDEXES = (Path(__file__).parent / "data" / "real_round5" / d for d in ("search", "arrays", "indexes"))


@pytest.mark.parametrize("path, said", [
    (SEARCH / "psl_34_001.psl", "BLAT/pslx alignments in PSL format (psLayout)"),
    (SEARCH / "pslx_34_004.pslx", "BLAT/pslx alignments in PSL format (psLayout)"),
    (SEARCH / "psl_34_001.nohead.psl", "PSL format without its header (blat -noHead)"),
    (SEARCH / "tab_30_hmmscan_001.out", "HMMER's per-sequence hits table"),
    (SEARCH / "domtab_30_hmmscan_004.out", "HMMER's per-domain hits table"),
    (SEARCH / "text_30_hmmscan_006.out.gz", "HMMER hmmscan's text report"),
    (SEARCH / "exn_22_o_vulgar_fshifts2.exn", "Exonerate's alignment report"),
    (SEARCH / "output010.m10", "FASTA suite search report"),
    (SEARCH / "needle_overhang.txt.gz", "EMBOSS pairwise alignment report"),
    (SEARCH / "last_contigs.genome.tab", "LAST alignments in its tabular form"),
    (Path(__file__).parent / "data" / "real_round5" / "tables" / "hg38.tab",
     "a chromosome sizes table (columns 'chrom', 'size', 'circular'"),  # was 'a count matrix or a sample sheet?'

    (Path(__file__).parent / "data" / "real_round5" / "intervals" / "v3.0.0.primer.bed",
     "an amplicon primer scheme (ARTIC/PrimalScheme primer BED"),  # was 'peaks or a blacklist?'

    (MSA / "vSysLab_Ganaspidium_multistate.nex", "a NEXUS file"),
    (MSA / "W_prot.msf", "a GCG MSF multiple sequence alignment"),
    (ARRAYS / "affy_v3_example.CEL", "an Affymetrix CEL file (microarray probe intensities; text, version 3)"),
    (ARRAYS / "affy_v4_example.CEL", "an Affymetrix CEL file (microarray probe intensities)"),
    (Path(__file__).parent / "data" / "real_round5" / "reads" / "example.qual", "a FASTA quality file (.qual"),
    (INDEXES / "mini.2.ht2", "one file of a HISAT2 genome index (.2.ht2)"),
    (INDEXES / "mini.2.bt2", "one file of a Bowtie2 genome index (.2.bt2)"),
    (INDEXES / "mini.rev.2.bt2", "one file of a Bowtie2 genome index (.rev.2.bt2)"),
    (INDEXES / "mini.fa.pac", "one file of a BWA genome index (.pac)"),
    (INDEXES / "mini.fa.bwt", "one file of a BWA genome index (.bwt)"),
])
def test_search_reports_arrays_and_index_files_are_refused_by_name(knowledge, path, said):
    """Each was 'a one-column file whose values are not gene ids', 'a table separated by spaces' or 'binary data of
    a type bioplan does not know'; now each refusal names the file's kind and what to give instead."""
    with pytest.raises(BioplanError) as e:
        plan_request("differential expression with DESeq2", [str(path)], knowledge=knowledge)
    assert e.value.code == "unreadable_input" and said in e.value.message, e.value.message
    assert e.value.hints and "bioplan recognises" not in e.value.hints[0]


def test_a_diamond_database_is_the_database_of_the_search(knowledge):
    """DIAMOND's test database (diamond makedb, by its magic number) was 'binary data of a type bioplan does not
    know'; now it is the protein database DIAMOND blastx searches, and no database is built."""
    contigs = Path(__file__).parent / "data" / "real" / "megahit" / "A_1" / "final.contigs.fa"
    result = plan_request("annotate the contigs with DIAMOND blastx",
                          [str(contigs), str(INDEXES / "C2.faa.diamond.dmnd")], knowledge=knowledge)
    assert ("protein_database", "diamond_db") in [(i.datatype, i.format) for i in result.spec.inputs]
    assert "diamond_blastx" in _tools(result) and "diamond_makedb" not in _tools(result)


def test_a_gzipped_diamond_database_is_refused_saying_to_decompress_it(knowledge, tmp_path):
    """DIAMOND reads its database uncompressed only (the package's test folder keeps four gzipped)."""
    gz = tmp_path / "C2.faa.diamond.dmnd.gz"
    gz.write_bytes(gzip.compress((INDEXES / "C2.faa.diamond.dmnd").read_bytes()))
    contigs = Path(__file__).parent / "data" / "real" / "megahit" / "A_1" / "final.contigs.fa"
    with pytest.raises(BioplanError) as e:
        plan_request("annotate the contigs with DIAMOND blastx", [str(contigs), str(gz)], knowledge=knowledge)
    assert e.value.code == "unreadable_input" and "gzip-compressed DIAMOND protein database" in e.value.message
    assert any("gunzip -k" in h for h in e.value.hints)


REGIONS = Path(__file__).parent / "data" / "real_round5" / "regions"


def test_a_region_list_is_refused_with_a_conversion_to_bed_that_works(knowledge, tmp_path):
    """freebayes' example q.regions ('q:0-5000', its --region notation, counted from 0) was read as a list of gene
    symbols; now it is refused as regions, and the hint's command writes a BED file bioplan reads as intervals."""
    with pytest.raises(BioplanError) as e:
        plan_request("gene set enrichment analysis", [str(REGIONS / "q.regions")], knowledge=knowledge)
    assert e.value.code == "unreadable_input" and "a list of genomic regions" in e.value.message
    command = e.value.hints[0].split("give the regions as a BED file: ", 1)[1].split(" (", 1)[0]
    subprocess.run(command, shell=True, check=True, cwd=tmp_path)  # noqa: S602  (the hint's own shell command)
    assert (tmp_path / "regions.bed").read_text().splitlines() == ["q\t0\t5000", "q\t5000\t10000", "q\t10000\t12356"]
    one_based = tmp_path / "one_based.txt"  # samtools' notation counts from 1: BED's start is one less
    one_based.write_text("chr1:1,001-2,000\nchr2:5-9\n")
    with pytest.raises(BioplanError) as e:
        sniff_inputs([str(one_based)], {})
    assert "'{print $1, $2 - 1, $3}'" in e.value.hints[0]


@pytest.mark.e2e
@pytest.mark.parametrize("name", ["hennigian.phy", "opuntia.aln"])
def test_a_phylip_or_clustal_alignment_runs_through_the_emitted_workflow(tmp_path, name):
    """The compiled Snakefile on Biopython's relaxed PHYLIP test file and ClustalW's alignment, with Debian's
    iqtree2: the run-time check counts the sequences of the alignment as given, IQ-TREE reads it unconverted, and
    the tree holds every sequence of it."""
    from bioplan.compile import compile_request
    from conftest import skip_or_fail_in_ci

    bin_dir = Path(sys.executable).parent
    for tool in ("iqtree2", "snakemake"):
        if shutil.which(tool, path=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}") is None:
            skip_or_fail_in_ci(f"{tool} is not installed")
    workdir = tmp_path / "wf"
    result = compile_request(TREE, [str(MSA / name)], str(workdir / "Snakefile"), force=True, validate=False)
    assert [s.tool for s in result.plan.steps] == ["iqtree"]
    run = subprocess.run([str(bin_dir / "snakemake"), "--cores", "2"], cwd=workdir, capture_output=True, text=True,
                         timeout=900, env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"})
    assert run.returncode == 0, run.stderr[-4000:]
    n = {"hennigian.phy": 10, "opuntia.aln": 7}[name]
    assert f"{n} sequences" in (workdir / "results/checks/check_four_sequences.ok").read_text()
    tree = (workdir / "results/phylogenetic_tree_inference/tree.treefile").read_text()
    assert tree.strip().endswith(";") and tree.count(",") == n - 1  # n leaves of one unrooted tree

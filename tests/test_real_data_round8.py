"""Real files, round 8: Drop-seq digital expression (DGE) matrices, Ensembl's GTF header, UCSC WIG files of several
tracks, bigWig, and QIIME 2 / phyloseq exports (distance matrices, alpha diversity, taxonomy, the FASTQ manifest)
(tests/data/real_round8, README: sources and licences).

Before round 8 a Drop-seq DGE matrix ('GENE' over a few cell barcodes) was read as a bulk count matrix of its
cells, and one with DigitalExpression's '@DGE' header lines as a broken FASTQ; an Ensembl GTF was said to be
RefSeq's (its '#!genome-build-accession NCBI:GCA_...' line); a WIG of several tracks was "a one-column file"; a
distance matrix (UniFrac, QIIME 2's distance-matrix.tsv) and QIIME 2's alpha-diversity.tsv were normalised
expression matrices; QIIME 2's taxonomy.tsv was refused without a way out; a manifest with a comment line among
its rows was "a one-column file". Now each is read, or refused by name with what to give instead.
"""

from __future__ import annotations

import gzip
import itertools
import re
import shutil
from pathlib import Path

import pytest

from bioplan.compile import compile_request, organism_prefixes, plan_request
from bioplan.errors import BioplanError, UnreadableInputError
from bioplan.request.sniff import sniff_inputs

ROOT = Path(__file__).resolve().parents[1]
R8 = Path(__file__).parent / "data" / "real_round8"
DROPSEQ, QIIME2 = R8 / "dropseq", R8 / "qiime2"
CLUSTER = "cluster the cells and find marker genes"
DGES = [("5cell3gene.dge.txt", 5, False),  # 'GENE' over 5 Drop-seq barcodes, no header lines
        ("test_with_header.dge.txt.gz", 10, True),  # '#DGE', '#LIBRARY', '#COMMAND' (newer versions)
        ("P60ENTSTNRep1P1.subset.auto.digital_expression.txt.gz", 99, True)]  # '@DGE', ... (SAM-like)


def one(path: Path, knowledge=None):
    prefixes = organism_prefixes(knowledge) if knowledge else {"ENSG": "organism_human"}
    return sniff_inputs([str(path)], prefixes, knowledge.formats if knowledge else None).files[0]


def refused(path: Path) -> BioplanError:
    with pytest.raises(BioplanError) as e:
        one(path)
    return e.value


def tools(result) -> list[str]:
    return [s.tool for s in result.plans[0].steps]


# -------------------------------------------------------------------------------- Drop-seq DGE matrices

@pytest.mark.parametrize("name, cells, header_lines", DGES)
def test_a_dropseq_dge_matrix_is_a_single_cell_count_table_however_few_its_cells(name, cells, header_lines):
    f = one(DROPSEQ / name)
    assert (f.datatype, f.format) == ("single_cell_matrix", "tsv")
    assert f.fact("orientation") == "genes x cells" and f.fact("n_cells") == cells
    assert any("Drop-seq DigitalExpression (DGE) matrix" in e for e in f.evidence)
    assert any(("header lines" in e) == header_lines for e in f.evidence if "Drop-seq" in e)
    assert any("named by cell barcodes" in e for e in f.evidence)


def test_a_dge_matrix_plans_the_single_cell_route(knowledge):
    result = plan_request(CLUSTER, [str(DROPSEQ / DGES[2][0])], knowledge=knowledge)
    assert tools(result)[0] == "scanpy_qc" and "scanpy_rank_genes_groups" in tools(result)
    assert [i.datatype for i in result.spec.inputs] == ["single_cell_matrix"]


def test_the_qc_step_skips_the_dge_header_lines_the_sniffer_skipped():
    """scanpy_qc.py reads the dense table below DigitalExpression's header lines: the same lines the sniffer left."""
    text = (ROOT / "templates" / "scripts" / "scanpy_qc.py").read_text()
    body = text[text.index("def header_lines"):text.index("def read_dense")]
    space: dict = {"itertools": itertools}
    exec(body, space)  # the function alone: the script itself runs under Snakemake
    for name, _, has_header in DGES:
        skipped = space["header_lines"](str(DROPSEQ / name))
        opener = gzip.open if name.endswith(".gz") else open
        with opener(DROPSEQ / name, "rt") as handle:
            lines = handle.read().splitlines()
        assert (skipped > 0) == has_header and lines[skipped].startswith("GENE\t")


def test_a_dge_matrix_with_crlf_line_ends_and_a_bom_is_read_the_same(tmp_path):
    raw = gzip.decompress((DROPSEQ / DGES[2][0]).read_bytes())
    excel = tmp_path / "sample.dge.txt"
    excel.write_bytes(b"\xef\xbb\xbf" + raw.replace(b"\n", b"\r\n"))
    f = one(excel)
    assert f.datatype == "single_cell_matrix" and f.fact("n_cells") == 99


def test_a_bulk_matrix_over_a_few_sequence_named_samples_stays_bulk(tmp_path):
    """Only DigitalExpression's 'GENE' corner makes a few barcode-named columns cells."""
    raw = (DROPSEQ / DGES[0][0]).read_text().replace("GENE\t", "gene_id\t", 1)
    bulk = tmp_path / "counts.tsv"
    bulk.write_text(raw)
    assert one(bulk).datatype == "raw_count_matrix"


def test_genes_over_numbered_cells_mostly_zeros_are_a_single_cell_matrix(knowledge):
    """The round-7 left-over: R's write.csv of a genes x cells matrix whose cells are numbered (cell1 ...)."""
    f = one(DROPSEQ / "P60.numbered_cells.csv")
    assert (f.datatype, f.format) == ("single_cell_matrix", "csv") and f.fact("n_cells") == 99
    assert "numbered cells, the rows by genes" in f.evidence[0] and "'cell1'" in f.evidence[0]
    result = plan_request(CLUSTER, [str(DROPSEQ / "P60.numbered_cells.csv")], knowledge=knowledge)
    assert tools(result)[0] == "scanpy_qc"


def test_the_qc_step_turns_genes_over_numbered_cells_into_cells_x_genes():
    text = (ROOT / "templates" / "scripts" / "scanpy_qc.py").read_text()
    space: dict = {"re": re}
    exec(text[text.index("# cells numbered by one stem"):text.index("TEXT_TABLE = ")], space)
    exec(text[text.index("def numbered"):text.index("def read_dense")], space)
    cells = [f"cell{i}" for i in range(1, 100)]
    assert space["numbered"](cells) and not space["numbered"](["Xkr4", "Sox17", "Mrpl15"])
    assert not space["numbered"](["untreated1", "treated1"])  # two stems: samples of two groups


def test_a_bulk_matrix_over_numbered_samples_with_some_zeros_stays_bulk(tmp_path):
    """Numbered columns are cells only when nearly all counts are zeros (here 60 %: unexpressed genes)."""
    rows = ["gene_id\t" + "\t".join(f"S{j}" for j in range(1, 25))]
    rows += [f"ENSG{i:011d}\t" + "\t".join("0" if (i + j) % 5 < 3 else str(10 * i + j) for j in range(1, 25))
             for i in range(1, 41)]
    bulk = tmp_path / "counts.tsv"
    bulk.write_text("\n".join(rows) + "\n")
    assert one(bulk).datatype == "raw_count_matrix"


@pytest.mark.parametrize("path, n", [(DROPSEQ / "GenotypeSperm.cellBarcodes.txt", 100),
                                     (ROOT / "tests" / "data" / "real_studies" / "seurat" / "cr2" / "barcodes.tsv", 80),
                                     (ROOT / "tests" / "data" / "real_studies" / "seurat" / "cr3.0" / "barcodes.tsv.gz",
                                      5)])
def test_a_list_of_cell_barcodes_given_alone_is_refused_not_read_as_gene_symbols(path, n):
    e = refused(path)
    assert f"is a list of {n} cell barcodes" in str(e) and "not gene ids" in str(e)
    assert any("the whole 10x folder" in h for h in e.hints)


def test_a_10x_matrix_given_with_its_barcodes_and_features_still_takes_them_as_its_parts():
    cr3 = ROOT / "tests" / "data" / "real_studies" / "seurat" / "cr3.0"
    files = sniff_inputs([str(cr3 / n) for n in ("matrix.mtx.gz", "features.tsv.gz", "barcodes.tsv.gz")], {}).files
    assert [f.datatype for f in files] == ["single_cell_matrix"]


# ------------------------------------------------------------------------ annotation, tracks

def test_an_ensembl_gtf_is_ensembls_though_its_header_names_the_ncbi_assembly_accession(knowledge):
    text = (R8 / "pyranges" / "ensembl.gtf").read_text()
    assert "#!genome-build-accession NCBI:GCA_" in text
    f = one(R8 / "pyranges" / "ensembl.gtf", knowledge)
    assert (f.datatype, f.format) == ("gene_annotation", "gtf")
    assert f.fact("annotation_provider") == "Ensembl" and f.fact("id_namespace") == "ensembl"


def test_a_wig_file_of_several_tracks_is_refused_as_wig():
    e = refused(R8 / "rtracklayer" / "multi.wig")
    assert "is a WIG coverage track" in str(e) and "one-column" not in str(e)
    assert any("wigToBigWig" in h for h in e.hints)


def test_a_bigwig_is_a_coverage_track_and_plans_the_signal_heatmap(knowledge):
    f = one(R8 / "pyranges" / "bw.bw", knowledge)
    assert (f.datatype, f.format) == ("coverage_track", "bigwig")
    result = plan_request("plot a heatmap of the signal around the TSS", [str(R8 / "pyranges" / "bw.bw")],
                          knowledge=knowledge)
    assert tools(result) == ["deeptools_computematrix", "deeptools_plotheatmap"]


# ------------------------------------------------------------------------ diversity results and QIIME 2 exports

@pytest.mark.parametrize("path, named", [(QIIME2 / "distance-matrix-NxN.tsv", "samples 'f2', 'f1', 'f3'"),
                                         (R8 / "phyloseq" / "gp500-wuf.csv", "rows and columns unnamed")])
def test_a_distance_matrix_is_refused_naming_the_feature_table_to_give(path, named):
    e = refused(path)
    assert e.code == "unreadable_input" and str(path) in str(e)
    assert "is a distance matrix" in str(e) and named in str(e) and "beta-diversity result" in str(e)
    assert any("biom convert" in h and "feature (OTU/ASV) count table" in h for h in e.hints)


def test_a_distance_matrix_as_qiime_tools_export_writes_it_with_an_empty_corner_is_refused_too(tmp_path):
    ids = [f"s{i}" for i in range(40)]
    body = ["\t" + "\t".join(ids)] + [
        sid + "\t" + "\t".join("0.0" if i == j else f"0.{min(i, j) + 1}{max(i, j) + 1:02d}" for j in range(len(ids)))
        for i, sid in enumerate(ids)]
    table = tmp_path / "distance-matrix.tsv"
    table.write_text("\n".join(body) + "\n")
    assert "is a distance matrix (40 x 40, samples 's0', 's1', 's2'" in str(refused(table))


@pytest.mark.parametrize("rows", [["gene\ta\tb\tc", "g1\t0\t5\t7", "g2\t5\t0\t9", "g3\t7\t9\t1"],  # a diagonal cell
                                  ["gene\ta\tb\tc", "g1\t0\t0\t0", "g2\t0\t0\t0", "g3\t0\t0\t0"]])  # all zeros
def test_a_square_count_matrix_is_no_distance_matrix(rows, tmp_path):
    table = tmp_path / "counts.tsv"
    table.write_text("\n".join(rows) + "\n")
    assert one(table).datatype == "raw_count_matrix"


def test_qiime2_alpha_diversity_values_are_refused_as_a_diversity_result():
    e = refused(QIIME2 / "alpha-diversity.tsv")
    assert "is a table of alpha-diversity values ('shannon'" in str(e) and "'Sample1'" in str(e)
    assert any("feature (OTU/ASV) count table" in h for h in e.hints)


def test_a_qiime2_pcoa_export_is_refused_as_an_ordination_result():
    e = refused(QIIME2 / "pcoa-results-NxN.txt")
    assert "is an ordination result" in str(e) and "PCoA of 8 samples" in str(e) and "malformed" not in str(e)
    assert any("beta-diversity analysis (its PCoA)" in h for h in e.hints)


def test_a_usearch_cluster_file_is_refused_naming_the_otu_table_to_give():
    e = refused(R8 / "phyloseq" / "usearch.uc")
    assert "is a USEARCH/VSEARCH cluster file (.uc" in str(e) and "sample" not in str(e).split(":", 1)[1][:40]
    assert any("--otutabout" in h for h in e.hints)


LINEAGES = [(QIIME2 / "3-column.tsv", "a QIIME 2 taxonomy ('Feature ID', 'Taxon', 'Confidence'", "'k__Foo; p__Bar'",
             "3-column.ranks.tsv", ["asv_id\tKingdom\tPhylum", "seq1\tFoo\tBar"]),
            (R8 / "phyloseq" / "mothur_example.cons.taxonomy", "a mothur consensus taxonomy", "'Bacteria(100);",
             "mothur_example.cons.ranks.tsv", ["asv_id\tKingdom\tPhylum\tClass\tOrder\tFamily\tGenus",
                                              "2\tBacteria\tBacteroidetes\tBacteroidia\tBacteroidales\tRikenellaceae"
                                              "\tAlistipes"])]


@pytest.mark.parametrize("path, what, example, out, written", LINEAGES)
def test_a_lineage_in_one_column_is_refused_with_the_command_that_splits_it(path, what, example, out, written,
                                                                           tmp_path):
    """QIIME 2's taxonomy.tsv and mothur's cons.taxonomy (read before as an abundance table of one sample, 'Size')."""
    e = refused(path)
    assert f"is {what}" in str(e) and example in str(e)
    command = next(h for h in e.hints if "python -c" in h)
    assert out in command and '"asv_id"' in command
    # the command's own code, run in place on a copy: it writes bioplan's one-column-per-rank taxonomy
    code = re.search(r"python -c '(.*)' \S+ \S+ (\S+)$", command)
    assert code is not None
    import sys

    given = shutil.copy(path, tmp_path / path.name)
    argv, sys.argv = sys.argv, ["-c", str(given), str(tmp_path / "ranks.tsv"), code.group(2)]
    try:
        exec(code.group(1), {})
    finally:
        sys.argv = argv
    assert (tmp_path / "ranks.tsv").read_text().splitlines()[:2] == written
    if len(written[0].split("\t")) > 4:  # three ranks or more: bioplan's ASV taxonomy (q2-types' test file has two)
        assert one(tmp_path / "ranks.tsv").datatype == "asv_taxonomy"


def test_a_qiime2_manifest_with_a_comment_among_its_rows_is_a_sample_sheet_naming_fastq_files():
    f = one(QIIME2 / "MANIFEST")
    assert (f.datatype, f.format) == ("sample_metadata", "csv")
    assert f.fact("sample_column") == "sample-id" and f.fact("fastq_columns") == ["filename"]
    assert f.fact("samples") == ["Human-Kneecap"]


# ------------------------------------------------------------------------ a sample sheet's ids (round 7's left-over)

def test_a_sample_id_refused_from_a_sheet_names_the_sheet_row_not_the_fastq(knowledge, tmp_path):
    """ENA's real read pairs named by an nf-core sheet whose second sample id holds '$': the refusal says which row
    of the sheet to edit (it named a FASTQ file the user never typed)."""
    ena = Path(__file__).parent / "data" / "real_studies" / "ena"
    for sample in ("a", "b"):
        for mate in (1, 2):
            shutil.copy(ena / f"ERR127302_{mate}_subset.fastq.gz", tmp_path / f"{sample}_R{mate}.fastq.gz")
    sheet = tmp_path / "samplesheet.csv"
    sheet.write_text("sample,fastq_1,fastq_2\nctrl,a_R1.fastq.gz,a_R2.fastq.gz\n"
                     "trt$1,b_R1.fastq.gz,b_R2.fastq.gz\n")
    with pytest.raises(UnreadableInputError) as e:
        compile_request("trim the reads with fastp", [str(sheet)], str(tmp_path / "wf"), knowledge=knowledge,
                        validate=False)
    assert "the sample id 'trt$1' (from 'samplesheet.csv, data row 2')" in str(e.value)
    assert "R1.fastq.gz" not in str(e.value) and "R2.fastq.gz" not in str(e.value)


# ------------------------------------------------------------------------ the encodings files travel in

ENCODED = [(QIIME2 / "distance-matrix-NxN.tsv", "is a distance matrix"),
           (QIIME2 / "alpha-diversity.tsv", "alpha-diversity values"),
           (R8 / "phyloseq" / "mothur_example.cons.taxonomy", "mothur consensus taxonomy"),
           (R8 / "phyloseq" / "usearch.uc", "USEARCH/VSEARCH cluster file"),
           (QIIME2 / "pcoa-results-NxN.txt", "ordination result"),
           (R8 / "rtracklayer" / "multi.wig", "WIG coverage track"),
           (DROPSEQ / "P60.numbered_cells.csv", "single_cell_matrix"),
           (QIIME2 / "MANIFEST", "sample_metadata"),
           (R8 / "pyranges" / "ensembl.gtf", "gene_annotation")]


@pytest.mark.parametrize("path, said", ENCODED)
def test_gzip_and_crlf_with_a_bom_read_the_same(path, said, tmp_path):
    raw = path.read_bytes()
    packed = tmp_path / f"{path.name}.gz"
    packed.write_bytes(gzip.compress(raw, mtime=0))
    excel = tmp_path / path.name
    excel.write_bytes(b"\xef\xbb\xbf" + raw.replace(b"\n", b"\r\n"))
    for variant in (packed, excel):
        try:
            assert one(variant).datatype == said
        except BioplanError as e:
            assert said in str(e) and str(variant) in str(e)

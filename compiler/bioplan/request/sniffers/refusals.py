"""Inputs refused before the text readers try them: index files on their own, other compressions and
unknown binary data."""

from __future__ import annotations

import re
import zipfile

from bioplan.models import SniffedFile
from bioplan.request.sniffers.base import (
    INPUT_TYPE_HINT,
    RECOGNISED_HINT,
    Context,
    FileSniffer,
    Notes,
    Source,
    looks_binary,
    quote_list,
    unreadable,
)

_OTHER_COMPRESSION = (
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"PK\x03\x04", "zip (or an Excel workbook)"),
)


def _compression_of(src: Source) -> str | None:
    return next((what for sig, what in _OTHER_COMPRESSION if src.head.startswith(sig)), None)


def _zip_members(src: Source) -> list[str]:
    try:
        with zipfile.ZipFile(src.path) as z:
            return z.namelist()[:1000]
    except (zipfile.BadZipFile, OSError):
        return []


def _refuse_zip(src: Source) -> None:
    """Zip containers named by what they hold: Excel/OpenDocument workbooks, NumPy archives."""
    members = _zip_members(src)
    if "xl/workbook.xml" in members:
        raise unreadable(src.shown, "is an Excel workbook (.xlsx), which bioplan does not read", [_SHEET_FIX])
    if "mimetype" in members and "content.xml" in members:
        raise unreadable(src.shown, "is an OpenDocument file (.ods/.odt), which bioplan does not read", [_SHEET_FIX])
    if members and all(m.endswith(".npy") for m in members):  # numpy.savez: deepTools' matrices
        raise unreadable(src.shown, f"is a NumPy archive (.npz of {quote_list(members, 3)}, e.g. deepTools "
                         "multiBamSummary's or multiBigwigSummary's matrix), which bioplan does not read",
                         ["give the alignments (BAM) or coverage tracks (bigWig) it was computed from"])


def _refuse_compression(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    if src.head.startswith(b"PK\x03\x04") and src.compression is None:
        _refuse_zip(src)
    if src.ext in (".rds", ".rda", ".rdata"):  # R's save(compress = "xz") and saveRDS(compress = "bzip2"/"xz")
        raise unreadable(src.shown, f"is {_compression_of(src)}-compressed and named as an R object (.rds/.RData), "
                         "which bioplan does not read", [_R_OBJECT_FIX])
    raise unreadable(src.shown, f"is {_compression_of(src)}-compressed; bioplan reads plain or gzip-compressed files",
                     ["decompress it (or recompress with gzip/bgzip) and give the result"])


_SHEET_FIX = ("save the sheet as CSV or TSV (a spreadsheet program's Save As, or in R: write.csv(readxl::read_excel("
              "FILE), 'samples.csv', row.names = FALSE)) and give that")
_R_OBJECT = "an R object saved with saveRDS (.rds: a Seurat, SingleCellExperiment, DESeq2 or other object)"
_R_WORKSPACE = "an R workspace saved with save() (.RData/.rda)"
_R_OBJECT_FIX = ("bioplan cannot look inside R objects: export the data it holds and give that, e.g. a Seurat or "
                 "SingleCellExperiment object's counts as a 10x folder (DropletUtils::write10xCounts) or as .h5ad "
                 "(zellkonverter::writeH5AD), a DESeq2 or SummarizedExperiment object's counts as a table "
                 "(write.table(assay(x), 'counts.tsv', sep = '\\t', quote = FALSE))")

_CEL = "an Affymetrix CEL file (microarray probe intensities), which bioplan does not read"
_CEL_FIX = ("bioplan plans sequencing analyses, not microarrays: normalise the arrays in R (oligo::rma(oligo::"
            "read.celfiles(FILES)) or affy::rma) and analyse the expression matrix with limma there")

# binary formats of genome browsers, named so the refusal says what the file is and what to give instead
_KNOWN_BINARY = (
    (b"\xeb\xf2\x89\x87", "a bigBed file (binary BED intervals)", "convert it to BED (bigBedToBed) and give that"),
    (b"\x43\x27\x41\x1a", "a 2bit genome sequence file", "convert it to FASTA (twoBitToFa) and give that"),
    (b"\x1a\x41\x27\x43", "a 2bit genome sequence file (big-endian)", "convert it to FASTA (twoBitToFa) and give that"),
    (b".sff", "a Roche 454 SFF file (flowgrams and reads)", "convert it to FASTQ (sff2fastq, or Biopython's "
     "SeqIO.convert(FILE, 'sff', OUT, 'fastq')) and give that"),
    (b"ABIF", "an ABI capillary (Sanger) trace file", "bioplan plans analyses of high-throughput reads; give those "
     "as FASTQ"),
    # R's serialisation (saveRDS: 'X\n' and format version 2 or 3; save(): 'RDX2\n'/'RDX3\n'), gzipped or not
    (b"X\n\x00\x00\x00\x02", _R_OBJECT, _R_OBJECT_FIX), (b"X\n\x00\x00\x00\x03", _R_OBJECT, _R_OBJECT_FIX),
    (b"RDX2\n", _R_WORKSPACE, _R_OBJECT_FIX), (b"RDX3\n", _R_WORKSPACE, _R_OBJECT_FIX),
    (b"SQLite format 3\x00", "an SQLite database (a Bioconductor TxDb/OrgDb annotation package's, a gffutils "
     "database, ...)", "export the annotation it holds as GTF or GFF3 and give that (a TxDb in R: "
     "rtracklayer::export(GenomicFeatures::asGFF(AnnotationDbi::loadDb(FILE)), 'genes.gff3'))"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an Excel 97-2003 workbook (.xls) or another Microsoft OLE2 document",
     _SHEET_FIX),
    # Affymetrix GeneChip intensities: the binary CEL of version 4 (magic 64, version 4) and Command Console's
    # generic (Calvin) CEL; the text CEL of version 3 is refused by ARRAY_TEXT
    (b"\x40\x00\x00\x00\x04\x00\x00\x00", _CEL, _CEL_FIX),
    (b"\x3b\x01\x00\x00\x00", _CEL + " (Command Console generic format)", _CEL_FIX),
    # mudata/muon write HDF5 after a 512-byte user block naming the format
    (b"MuData (format-version=", "a MuData multimodal container (.h5mu), which bioplan does not read",
     "give the modality to analyse as AnnData (in Python: mudata.read_h5mu(FILE)['rna'].write_h5ad('rna.h5ad')) "
     "and give the .h5ad"),
)


_BGEN_FIX = ("bioplan's association study reads PLINK genotypes: convert it with `plink2 --bgen FILE.bgen ref-first "
             "--sample FILE.sample --make-pgen --out PREFIX` and give PREFIX.pgen (its .pvar and .psam beside it) "
             "with a phenotype table whose header starts FID IID")


def _bgen(head: bytes) -> str | None:
    """A BGEN file (Oxford's genotype format, UK Biobank's imputed genotypes): the offset of the first variant, the
    header block's length, the variant and sample counts, then the magic 'bgen' (or four zero bytes) at byte 16."""
    if len(head) < 20 or head[16:20] not in (b"bgen", b"\x00\x00\x00\x00"):
        return None
    offset, length, variants, samples = (int.from_bytes(head[i:i + 4], "little") for i in range(0, 16, 4))
    if not 20 <= length <= offset + 4 or head[16:20] == b"\x00\x00\x00\x00" and not variants:
        return None
    return (f"a BGEN genotype file (Oxford's format, as UK Biobank's imputed genotypes are given: {variants:,} "
            f"variants of {samples:,} samples in its header)")


def _refuse_binary(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    known = next(((what, fix) for magic, what, fix in _KNOWN_BINARY if src.head.startswith(magic)), None)
    bgen = _bgen(src.head)
    if known is None and bgen is not None:
        known = bgen, _BGEN_FIX
    if known is not None:
        said = known[0] if "bioplan does not read" in known[0] else f"{known[0]}, which bioplan does not read"
        raise unreadable(src.shown, f"is {said}", [known[1]])
    if src.compression == "gzip" and src.head.startswith(b"\x89HDF\r\n\x1a\n"):
        # an .h5/.h5ad stored gzipped (Seurat's test data keeps filtered_feature_bc_matrix.h5.gz): HDF5 is read in place
        raise unreadable(src.shown, "is a gzip-compressed HDF5 file (an AnnData .h5ad or a 10x .h5 matrix, gzipped)",
                         ["decompress it (gunzip) and give the .h5/.h5ad: HDF5 files are read uncompressed"])
    if src.compression == "gzip" and src.head.startswith(b"\x1f\x8b"):
        # a BGZF file (BAM, bgzipped VCF) gzipped again: read through once, it is still compressed
        raise unreadable(src.shown, "is compressed twice (gzip over gzip/BGZF data, e.g. a .bam.gz)",
                         ["decompress it once (gunzip) and give the result (a BAM or bgzipped VCF is already "
                          "compressed)"])
    what = "gzip-compressed binary data" if src.compression else "binary data"
    raise unreadable(src.shown, f"is {what} of a type bioplan does not know", [RECOGNISED_HINT, INPUT_TYPE_HINT])


OTHER_COMPRESSION = FileSniffer("bzip2, xz, zstd or zip data (refused)", (), (),
                                lambda src, ctx: _compression_of(src) is not None, _refuse_compression)
# after the binary formats' readers: what is binary and still unclaimed is refused, the rest is text
BINARY = FileSniffer("binary data of an unknown type (refused)", (), (),
                     lambda src, ctx: looks_binary(src.head), _refuse_binary)


# index files are read beside the data file they index (`cohort.profile_inputs` attaches them), never as
# data: a FASTA .fai or a CRAM .crai is a small table of integers a table reader would take for counts
INDEX_SUFFIXES = (".tbi", ".csi", ".bai", ".crai", ".fai")
_INDEX_KINDS = {".tbi": "tabix index", ".csi": "CSI index", ".bai": "BAM index", ".crai": "CRAM index",
                ".fai": "FASTA index (samtools faidx)"}


# the files of an aligner's index: the workflow builds its own index from the genome (a given one is not read)
_ALIGNER_INDEX_RE = re.compile(r"\.(?:(?:rev\.)?[1-8]\.(ht2l?|bt2l?)|(amb|ann|bwt|pac)|(ebwtl?))$")
_ALIGNER_NAMES = {"ht2": "HISAT2", "ht2l": "HISAT2 (large)", "bt2": "Bowtie2", "bt2l": "Bowtie2 (large)",
                  "amb": "BWA", "ann": "BWA", "bwt": "BWA", "pac": "BWA", "ebwt": "Bowtie 1", "ebwtl": "Bowtie 1"}


def _index_suffix(src: Source) -> str | None:
    return next((s for s in INDEX_SUFFIXES if src.name.lower().endswith(s)), None) \
        or (m.group(0) if (m := _ALIGNER_INDEX_RE.search(src.name.lower())) and looks_binary(src.head) else None)


def _refuse_index(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    suffix = _index_suffix(src)
    assert suffix is not None  # claimed by _index_suffix
    if suffix not in _INDEX_KINDS:
        m = _ALIGNER_INDEX_RE.search(suffix)
        aligner = _ALIGNER_NAMES.get(next((g for g in m.groups() if g), "") if m else "", "an aligner's")
        raise unreadable(src.shown, f"is one file of a {aligner} genome index ({suffix}), which bioplan does not "
                         "read: the workflow builds the aligner's index itself", [
                             "give the genome FASTA the index was built from (and the GTF for a spliced aligner)"])
    raise unreadable(src.shown, f"is a {_INDEX_KINDS[suffix]}, read only beside the data file it indexes",
                     ["give the data file it indexes (the index is found next to it)"])


INDEX = FileSniffer("index files on their own (.tbi, .csi, .bai, .crai, .fai; refused, read beside their data; "
                    "aligner index files, refused)", (), (),
                    lambda src, ctx: _index_suffix(src) is not None, _refuse_index)


def _refuse_text_cel(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    raise unreadable(src.shown, f"is {_CEL.replace('intensities)', 'intensities; text, version 3)')}", [_CEL_FIX])


ARRAY_TEXT = FileSniffer("Affymetrix text CEL files (refused)", (), (),
                         lambda src, ctx: src.first_line.strip() == "[CEL]", _refuse_text_cel)

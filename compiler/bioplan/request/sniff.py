"""Sniff stage: input paths -> InputProfile (the DataType Recognition Index).

Each input file is recognised from its contents (magic bytes first, then the text
structure), never from its name alone; the name only supplies what the contents
cannot (sample and mate of a FASTQ, GMT vs table for a ragged file). Every
finding is a `Fact` with the evidence for it, in words a user understands.

    magic bytes   CRAM / HDF5 / gzip(BAM, BCF, text) / bzip2, xz, zstd, zip (refused)
    text          @HD -> SAM   @ -> FASTQ   > -> FASTA   ##fileformat=VCF -> VCF
                  9 GFF columns -> GTF/GFF3   "\\t|\\t" -> taxonomy .dmp
                  otherwise a delimited table: GMT, gene list, DE table, gene id
                  mapping, count matrix (raw/normalised) or sample sheet
    directory     hash.k2d+opts.k2d+taxo.k2d -> Kraken2 DB; nodes.dmp+names.dmp -> taxdump

The readers live in `bioplan.request.sniffers`, one module per family (sequences, annotation,
variants, alignments, single_cell, quantification, taxonomy, tables; refusals; formats.yaml
signatures), each declaring the knowledge formats and datatypes it reports; `sniffers.registry`
holds them in one ordered list. This module is the stage's entry.

Deterministic, and bounded: text is read line by line up to a byte budget per
family (a 3 GB genome or a 60 GB FASTQ is never read whole); gzip is handled
transparently. Anything not recognised raises `UnreadableInputError` naming the
file and what was expected; two equally plausible readings raise
`AmbiguousInputError` saying how to disambiguate. No traceback escapes.
"""


from __future__ import annotations

from collections.abc import Mapping, Sequence

from bioplan.knowledge.models import Format
from bioplan.models import InputProfile, SniffedFile
from bioplan.request.sniffers.base import RECOGNISED
from bioplan.request.sniffers.cohort import profile_inputs
from bioplan.request.sniffers.registry import context
from bioplan.request.sniffers.signatures import signatures_of
from bioplan.request.sniffers.taxonomy import FMT_KRAKEN2_DB, FMT_TAXONOMY_DUMP

__all__ = ["FMT_KRAKEN2_DB", "FMT_TAXONOMY_DUMP", "RECOGNISED", "sniff_file", "sniff_inputs"]


def sniff_file(path: str, organism_prefixes: Mapping[str, str],
               formats: Mapping[str, Format] | None = None) -> SniffedFile:
    """Recognise one input file (no cross-file pairing of FASTQ mates; see `sniff_inputs`).

    Raises:
        UnreadableInputError: missing, empty, unrecognised or malformed input.
        AmbiguousInputError: two readings are equally plausible.
    """
    return context(organism_prefixes, signatures_of(formats or {})).sniff(path)[0]


def sniff_inputs(paths: Sequence[str], organism_prefixes: Mapping[str, str],
                 formats: Mapping[str, Format] | None = None,
                 expected: Sequence[Mapping[str, str]] = ()) -> InputProfile:
    """Recognise every input file: datatype, format and facts with evidence.

    Args:
        paths: input paths as the user gave them (files or directories).
        organism_prefixes: Ensembl gene-id prefix -> organism constraint id,
            e.g. {"ENSMUSG": "organism_mouse", "ENSG": "organism_human"}.
        formats: the knowledge's formats; those with a `sniff` signature (formats.yaml) are
            recognised by it before the built-in readers.
        expected: datatypes the request expects among its inputs, each with why, in levels; they settle
            a file whose content allows several readings that differ only in the datatype (a FASTA of
            'seq1', 'seq2' beside "align to the genome"). See `expected_inputs` in compile.py.

    Returns:
        InputProfile with one SniffedFile per path, in the order given, and
        warnings about the inputs taken together (unpaired mates, lanes,
        sample sheet vs count matrix mismatches).

    Raises:
        UnreadableInputError: a path is missing, empty, unrecognised or malformed.
        AmbiguousInputError: a file has two equally plausible readings.
    """
    return profile_inputs(paths, context(organism_prefixes, signatures_of(formats or {}), expected))

"""Amplicon and bisulfite knowledge (issue 18, B5): how inputs and words of these studies are read.

A DADA2 training set is recognised by its lineage headers (formats.yaml `dada2_training_fasta`), a
genome FASTA is not; the generic words of alignment, deduplication and trimming are read as the
study's own steps in bisulfite and amplicon studies, and as the generic steps elsewhere.
"""

from __future__ import annotations

import gzip

import pytest

from bioplan.models import InputProfile
from bioplan.request.parse import parse_request
from bioplan.request.sniff import sniff_file
from bioplan.request.spec import build_spec


def test_a_dada2_training_set_is_recognised_by_its_lineage_headers(knowledge, tmp_path):
    training = tmp_path / "silva_nr99_v138.1_train_set.fa.gz"
    with gzip.open(training, "wt") as fh:
        fh.write(">Bacteria;Firmicutes;Bacilli;Lactobacillales;Lactobacillaceae;Lactobacillus;\nACGTACGTAAGG\n")
    genome = tmp_path / "genome.fa"
    genome.write_text(">chr1 some description; not a lineage\nACGTACGTAAGG\n")
    found = sniff_file(str(training), {}, knowledge.formats)
    assert (found.datatype, found.format) == ("taxonomy_training_set", "dada2_training_fasta")
    assert sniff_file(str(genome), {}, knowledge.formats).datatype != "taxonomy_training_set"


def _operations(knowledge, query):
    return build_spec(parse_request(query, knowledge), InputProfile(), knowledge).required_operations


@pytest.mark.parametrize(("query", "present", "absent"), [
    ("WGBS: align the reads, deduplicate and call methylation",
     {"bisulfite_alignment", "bisulfite_deduplication", "methylation_calling"},
     {"read_alignment", "duplicate_marking"}),
    ("16S amplicon sequencing: trim the primers, then denoise into ASVs",
     {"primer_removal", "asv_inference"}, {"read_trimming"}),
    ("align the reads and remove duplicates", {"read_alignment", "duplicate_marking"},
     {"bisulfite_alignment", "bisulfite_deduplication"}),
    ("ChIP-seq: align the reads and remove duplicates", {"read_alignment", "duplicate_marking"},
     {"bisulfite_alignment", "bisulfite_deduplication"}),
])
def test_generic_words_are_read_as_the_studys_own_steps(knowledge, query, present, absent):
    ops = set(_operations(knowledge, query))
    assert present <= ops and not ops & absent, ops

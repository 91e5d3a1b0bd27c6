"""Diversity results given as inputs: a sample x sample distance matrix (QIIME 2's exported distance-matrix.tsv,
scikit-bio's lsmat, a UniFrac or Bray-Curtis matrix written by R), a table of alpha-diversity values per sample
(QIIME 2's alpha-diversity.tsv, phyloseq's estimate_richness) and an ordination (scikit-bio's format: a QIIME 2
PCoA exported). The table reader took the first two for normalised expression matrices and the third for a
malformed table; they are what a diversity analysis writes, not what it starts from, so they are refused naming
the feature table the analysis reads."""

from __future__ import annotations

from collections.abc import Sequence

from bioplan.models import SniffedFile
from bioplan.request.sniffers.base import Context, FileSniffer, Notes, Source, quote_list, unreadable
from bioplan.request.sniffers.columns import num

# per-sample alpha-diversity indices as QIIME 2 (q2-diversity), phyloseq's estimate_richness and vegan name them
ALPHA_INDICES = frozenset({
    "shannon", "shannon_entropy", "observed", "observed_features", "observed_otus", "faith_pd", "pielou_e",
    "pielou_evenness", "evenness", "chao1", "se.chao1", "ace", "se.ace", "simpson", "simpson_e", "invsimpson",
    "fisher", "fisher_alpha", "goods_coverage", "dominance", "berger_parker_d", "margalef", "menhinick"})
_FEATURE_TABLE_HINT = ("give the feature (OTU/ASV) count table the results came from, features x samples as TSV "
                       "(QIIME 2: qiime tools export the FeatureTable[Frequency], then biom convert -i "
                       "feature-table.biom -o feature-table.tsv --to-tsv), and ask for the diversity analysis")


def _square_distances(names: Sequence[str], data: Sequence[Sequence[str]], header: bool,
                      complete: bool) -> list[str] | None:
    """The samples of a distance matrix ('' for each when unnamed): square (rows named as the columns, or neither
    named), a zero diagonal, symmetric, no negative value; the rows read may be the first of a longer file. None
    otherwise."""
    labelled = header and len(names) > 2 and [r[0] for r in data] == list(names[1:1 + len(data)])
    cells = [list(r[1:] if labelled else r) for r in data]
    width = len(names) - 1 if labelled else len(names)
    n = len(cells)
    if n < 3 or any(len(r) != width for r in cells) or (n != width if complete else n > width):
        return None
    if any(num(v) is None for r in cells for v in r):
        return None
    values = [[num(v) or 0.0 for v in r] for r in cells]
    if any(x < 0 for r in values for x in r) or any(values[i][i] != 0 for i in range(n)) \
            or not any(x > 0 for r in values for x in r):  # all zeros: an empty count table, not distances
        return None
    if any(abs(values[i][j] - values[j][i]) > 1e-9 for i in range(n) for j in range(i)):
        return None
    return list(names[1:]) if labelled else ["" for _ in range(width)]


def refuse_diversity_results(src: Source, names: Sequence[str], data: Sequence[Sequence[str]], header: bool,
                             complete: bool) -> None:
    """Raise for a distance matrix or a table of alpha-diversity values; return for any other table."""
    samples = _square_distances(names, data, header, complete)
    if samples is not None:
        named = f"samples {quote_list(samples, 3)}" if samples[0] else "rows and columns unnamed"
        raise unreadable(
            src.shown, f"is a distance matrix ({len(samples)} x {len(samples)}, {named}; "
            "a zero diagonal, symmetric), a beta-diversity result (UniFrac, Bray-Curtis; QIIME 2's "
            "distance-matrix.tsv), which bioplan does not start from", [_FEATURE_TABLE_HINT],
            expected="abundance table")
    indices = [n for n in names[1:] if n.strip().lower() in ALPHA_INDICES]
    if header and indices and len(indices) == len(names) - 1 and all(
            num(v) is not None for r in data for v in r[1:]):
        raise unreadable(
            src.shown, f"is a table of alpha-diversity values ({quote_list(indices, 3)} for each of "
            f"{len(data)}{'' if complete else '+'} samples such as {quote_list([r[0] for r in data], 3)}), a "
            "diversity result (QIIME 2's alpha-diversity.tsv, phyloseq's estimate_richness), which bioplan does "
            "not start from", [_FEATURE_TABLE_HINT], expected="abundance table")


def _refuse_ordination(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    sites = next((ln.split("\t")[1] for ln in src.text_lines if ln.startswith("Site\t")), "?")
    raise unreadable(
        src.shown, f"is an ordination result (scikit-bio's OrdinationResults: Eigvals, Proportion explained, Species, "
        f"Site blocks; QIIME 2's exported PCoA of {sites} samples), which bioplan does not start from",
        [_FEATURE_TABLE_HINT.replace("the diversity analysis", "the beta-diversity analysis (its PCoA)")],
        expected="abundance table")


# the first line of scikit-bio's ordination format (QIIME 2's `qiime tools export` of a PCoAResults artifact)
ORDINATION = FileSniffer("ordination results (scikit-bio / QIIME 2 PCoA; refused)", (), (),
                         lambda src, ctx: src.first_line.startswith("Eigvals\t"), _refuse_ordination)

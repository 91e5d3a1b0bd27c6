"""Sum the ASV counts per taxon at one rank into a taxa x samples abundance table.

Snakemake `script:` step of tool `asv_taxonomy_table` (operation taxonomy_abundance_summary).

input.table     ASV table (TSV): asv_id, sequence, one count column per sample
input.taxonomy  ASV taxonomy (TSV): asv_id, one column per rank (Kingdom ... Genus[, Species]),
                empty where the classifier was not confident; confidence_<rank> columns are ignored
output.table    TSV: taxon, rank, lineage, then one count column per sample; rows sorted by total
                count (descending), then taxon. An ASV unassigned at `rank` counts under
                'Unclassified <lowest assigned taxon>' (or 'Unclassified' with no rank assigned).
params          rank ("Genus")
"""

import bioplan_step
from bioplan_step import LOG, fail, read_table

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)

import pandas as pd

NOT_SAMPLES = {"asv_id", "sequence"}


def counts_of(path):
    table = read_table(path, "ASV table")
    if "asv_id" not in table.columns:
        fail(f"the ASV table '{path}' has no asv_id column (columns: {', '.join(table.columns)}).")
    samples = [c for c in table.columns if c not in NOT_SAMPLES]
    if not samples:
        fail(f"the ASV table '{path}' has no sample column.")
    counts = table.set_index("asv_id")[samples].apply(pd.to_numeric, errors="coerce")
    if counts.isna().any().any() or (counts < 0).any().any():
        fail(f"the ASV table '{path}' holds a count that is not a non-negative number.")
    return counts


def ranks_of(taxonomy, rank, path):
    ranks = [c for c in taxonomy.columns if c not in NOT_SAMPLES and not c.startswith("confidence_")]
    if rank not in ranks:
        fail(f"the ASV taxonomy '{path}' has no rank '{rank}' (its ranks: {', '.join(ranks)}); "
             "set params.asv_taxonomy_table.rank to one of them.")
    return ranks[: ranks.index(rank) + 1]


def label_of(row, ranks):
    """(taxon at the rank, its lineage): 'Unclassified <lowest assigned>' below the classifier's confidence."""
    assigned = [str(row[r]).strip() for r in ranks if str(row[r]).strip() not in ("", "NA")]
    if len(assigned) == len(ranks) and str(row[ranks[-1]]).strip() not in ("", "NA"):
        return assigned[-1], ";".join(assigned)
    lowest = f"Unclassified {assigned[-1]}" if assigned else "Unclassified"
    return lowest, ";".join(assigned)


def main():
    rank = str(getattr(snakemake.params, "rank", "Genus") or "Genus").strip()
    counts = counts_of(snakemake.input.table)
    taxonomy = read_table(snakemake.input.taxonomy, "ASV taxonomy")
    if "asv_id" not in taxonomy.columns:
        fail(f"the ASV taxonomy '{snakemake.input.taxonomy}' has no asv_id column.")
    ranks = ranks_of(taxonomy, rank, snakemake.input.taxonomy)
    taxonomy = taxonomy.set_index("asv_id")
    missing = sorted(set(counts.index) - set(taxonomy.index))
    if missing:
        fail(f"ASVs of the table have no taxonomy, e.g. {missing[0]}: give the taxonomy of this ASV table.")
    labels = {asv: label_of(taxonomy.loc[asv], ranks) for asv in counts.index}
    frame = counts.copy()
    frame["taxon"] = [labels[a][0] for a in counts.index]
    lineage = {}
    for asv in counts.index:  # the lineage of the first (most abundant) ASV of each taxon
        lineage.setdefault(labels[asv][0], labels[asv][1])
    merged = frame.groupby("taxon", sort=True).sum()
    merged = merged.loc[sorted(merged.index, key=lambda t: (-merged.loc[t].sum(), t))]
    out = pd.DataFrame({"taxon": merged.index, "rank": rank, "lineage": [lineage[t] for t in merged.index]})
    for sample in counts.columns:
        out[sample] = merged[sample].round().astype("int64").to_numpy()
    out.to_csv(snakemake.output.table, sep="\t", index=False)
    LOG.info("%d ASVs in %d taxa at rank %s", len(counts), len(out), rank)


main()

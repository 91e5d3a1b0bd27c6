"""Precondition check: every group of the condition column has replicates (Snakemake script).

Runs before a step that compares groups (differential expression/abundance). Reads every input
whose datatype (params.datatypes) is sample_metadata (tsv/csv), takes the column
params.condition_column (default "condition") and requires at least params.min_replicates
(default 2) samples per level (distinct values of a `sample` column if there is one, else rows),
and at least 2 levels. On success writes the `ok` sentinel with a one-line summary; on failure
names the levels short of replicates (or the existing columns when the condition column is
missing) and exits 1.
"""

import bioplan_step
from bioplan_step import LOG, check_failed, inputs_of, passed, read_table

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)


def check_metadata(path, condition, minimum):
    meta = read_table(path, "sample metadata")
    if condition not in meta.columns:
        close = [c for c in meta.columns if c.lower() == condition.lower()]
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        check_failed(f"the sample metadata '{path}' has no column '{condition}'{hint}; its columns are: "
                     f"{', '.join(meta.columns)}. Set params.condition_column (config.yaml) to the column that holds "
                     "the groups to compare.")
    lower = {c.lower(): c for c in meta.columns}
    meta[condition] = meta[condition].str.strip()
    empty = meta[condition] == ""
    if empty.any():
        who = meta.loc[empty, lower["sample"]].tolist() if "sample" in lower else [int(i) + 2 for i in meta.index[empty]]
        check_failed(f"'{path}': samples {who} have no value in column '{condition}'.")
    if "sample" in lower:
        sizes = meta.groupby(condition)[lower["sample"]].nunique()
    else:
        LOG.warning("'%s' has no 'sample' column: counting rows as samples", path)
        sizes = meta.groupby(condition).size()
    sizes = sizes.sort_index()
    if len(sizes) < 2:
        check_failed(f"column '{condition}' of '{path}' has a single level ({', '.join(sizes.index)}); a comparison "
                     "needs at least two groups.")
    short = sizes[sizes < minimum]
    if not short.empty:
        listing = ", ".join(f"'{level}' ({n} sample{'s' if n != 1 else ''})" for level, n in short.items())
        check_failed(f"column '{condition}' of '{path}' has levels with fewer than {minimum} replicates: {listing}. "
                     "Without biological replicates the within-group variance cannot be estimated and the "
                     "statistics are invalid. Add replicate samples, drop or merge those groups, or choose another "
                     "condition column (params.condition_column).")
    return ", ".join(f"{level}={n}" for level, n in sizes.items())


def main():
    condition = getattr(snakemake.params, "condition_column", None) or "condition"
    minimum = int(getattr(snakemake.params, "min_replicates", None) or 2)
    summaries = [f"{name} '{path}': {check_metadata(path, condition, minimum)}"
                 for name, path in inputs_of("sample_metadata", "samples")]
    passed(f">= {minimum} replicates per level of '{condition}': " + "; ".join(summaries))


main()

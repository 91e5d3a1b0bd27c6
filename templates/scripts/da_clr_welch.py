"""Differential abundance of taxa between two groups: CLR transform + Welch t-test (or Mann-Whitney).

Snakemake `script:` step of tool `da_clr_welch` (operation differential_abundance).

input.table    taxa x samples count table (tsv/csv). Sample columns are the columns named
               like the samples of the metadata; the taxon id is the `taxid` column if
               present, else the first column; a `name` column is carried along.
input.samples  sample sheet (tsv/csv): a `sample` column (else the first column) and
               the condition column
output.table   TSV, one row per taxon: taxid, name, group_a, group_b, n_a, n_b, prevalence,
               mean_clr_a, mean_clr_b, effect, statistic, pvalue, padj; sorted by padj,
               pvalue, taxid (untestable taxa last, padj NA)
params         condition_column ("condition"), group_a (reference, "" = first level in
               sorted order), group_b ("" = the other level), test ("welch" | "mannwhitney"),
               pseudocount (0.5), min_prevalence (0.1)

Method: taxa present (count > 0) in fewer than min_prevalence of the compared samples
are dropped; each sample's counts (+ pseudocount) are CLR-transformed (log of the
count minus the mean log over taxa); each taxon's CLR values are compared between
the groups (Welch's unequal-variance t-test or the two-sided Mann-Whitney U test,
scipy); p-values are Benjamini-Hochberg adjusted. effect = mean CLR in group_b minus
mean CLR in group_a (natural-log scale: positive = relatively more abundant in group_b).
"""

import math

import bioplan_step
from bioplan_step import LOG, fail

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)

import numpy as np
import pandas as pd
from scipy import stats

TOOL = "da_clr_welch"

params = snakemake.params
table_path = snakemake.input.table
samples_path = snakemake.input.samples
out_path = snakemake.output.table

condition = str(getattr(params, "condition_column", "condition") or "condition")
group_a = str(getattr(params, "group_a", "") or "")
group_b = str(getattr(params, "group_b", "") or "")
test = str(getattr(params, "test", "welch") or "welch").lower().replace("-", "").replace("_", "")
if test not in {"welch", "mannwhitney"}:
    fail(f"params.{TOOL}.test must be 'welch' or 'mannwhitney', not {params.test!r}")
try:
    pseudocount = float(params.pseudocount)
    min_prevalence = float(params.min_prevalence)
except (TypeError, ValueError):
    fail(f"params.{TOOL}.pseudocount and min_prevalence must be numbers (config.yaml)")
if pseudocount <= 0:
    fail(f"params.{TOOL}.pseudocount must be > 0 (the log of a zero count is undefined)")


def read_table(path: str, what: str) -> pd.DataFrame:
    try:
        with open(path, encoding="utf-8") as handle:
            header = handle.readline()
            # `biom convert --to-tsv` writes one comment line above its '#OTU ID' header
            skip = 1 if header.startswith("# Constructed from biom file") else 0
            header = handle.readline() if skip else header
        sep = "\t" if header.count("\t") >= header.count(",") else ","
        return pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False, skiprows=skip)
    except Exception as exc:  # noqa: BLE001
        fail(f"cannot read the {what} {path}: {exc}")


meta = read_table(samples_path, "sample sheet")
id_col = "sample" if "sample" in meta.columns else meta.columns[0]
if condition not in meta.columns:
    fail(f"the sample sheet {samples_path} has no column {condition!r} (columns: {list(meta.columns)}); "
         f"set params.{TOOL}.condition_column.")
meta = meta[[id_col, condition]].rename(columns={id_col: "sample", condition: "group"})
meta["sample"] = meta["sample"].str.strip()
meta["group"] = meta["group"].str.strip()

counts_df = read_table(table_path, "abundance table")
sample_cols = [c for c in counts_df.columns if c in set(meta["sample"])]
if not sample_cols:
    fail(f"no column of {table_path} is named like a sample of {samples_path} "
         f"(table columns: {list(counts_df.columns)[:10]}, samples: {list(meta['sample'])[:10]}).")
not_in_meta = [c for c in counts_df.columns[1:] if c not in sample_cols and c not in {"taxid", "name", "rank"}]
if not_in_meta:
    LOG.warning("columns of %s not in the sample sheet, ignored: %s", table_path, not_in_meta)
id_column = "taxid" if "taxid" in counts_df.columns else counts_df.columns[0]
annotation = [id_column] + (["name"] if "name" in counts_df.columns and id_column != "name" else [])

levels = sorted(meta.loc[meta["sample"].isin(sample_cols), "group"].unique())
if not group_a and not group_b:
    if len(levels) != 2:
        fail(f"column {condition!r} has {len(levels)} groups among the table's samples ({levels}); "
             f"set params.{TOOL}.group_a and group_b to the two groups to compare.")
    group_a, group_b = levels
elif not group_b:
    others = [g for g in levels if g != group_a]
    if len(others) != 1:
        fail(f"set params.{TOOL}.group_b: groups other than {group_a!r} are {others}")
    group_b = others[0]
elif not group_a:
    others = [g for g in levels if g != group_b]
    if len(others) != 1:
        fail(f"set params.{TOOL}.group_a: groups other than {group_b!r} are {others}")
    group_a = others[0]
for g in (group_a, group_b):
    if g not in levels:
        fail(f"group {g!r} is not a value of column {condition!r} among the table's samples ({levels})")

in_a = sorted(s for s in sample_cols if s in set(meta.loc[meta["group"] == group_a, "sample"]))
in_b = sorted(s for s in sample_cols if s in set(meta.loc[meta["group"] == group_b, "sample"]))
if len(in_a) < 2 or len(in_b) < 2:
    fail(f"each group needs at least 2 samples (replicates): {group_a!r} has {len(in_a)}, {group_b!r} has {len(in_b)}.")
used = in_a + in_b

try:
    counts = counts_df[used].apply(pd.to_numeric, errors="raise").to_numpy(dtype=float)
except ValueError as exc:
    fail(f"{table_path}: a sample column holds a non-numeric value ({exc}).")
if np.isnan(counts).any() or (counts < 0).any():
    fail(f"{table_path}: counts must be non-negative numbers (found negative or missing values).")

prevalence = (counts > 0).mean(axis=1)
keep = (prevalence >= min_prevalence) & (counts.sum(axis=1) > 0)
LOG.info("%d taxa, %d kept with prevalence >= %g in %d samples (%s: %d, %s: %d)", len(counts), int(keep.sum()),
         min_prevalence, len(used), group_a, len(in_a), group_b, len(in_b))
if keep.sum() < 2:
    fail(f"fewer than 2 taxa of {table_path} pass min_prevalence={min_prevalence}; CLR needs at least 2 taxa.")

ann = counts_df.loc[keep, annotation].reset_index(drop=True)
logx = np.log(counts[keep] + pseudocount)
clr = logx - logx.mean(axis=0, keepdims=True)
a = clr[:, : len(in_a)]
b = clr[:, len(in_a):]

statistic = np.full(len(clr), np.nan)
pvalue = np.full(len(clr), np.nan)
for i in range(len(clr)):
    if np.ptp(clr[i]) == 0:
        continue  # identical everywhere: nothing to test
    if test == "welch":
        res = stats.ttest_ind(b[i], a[i], equal_var=False)
    else:
        res = stats.mannwhitneyu(b[i], a[i], alternative="two-sided")
    statistic[i], pvalue[i] = float(res.statistic), float(res.pvalue)


def benjamini_hochberg(p: np.ndarray) -> np.ndarray:
    q = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    m = int(ok.sum())
    if m == 0:
        return q
    order = np.argsort(p[ok], kind="mergesort")
    ranked = p[ok][order] * m / np.arange(1, m + 1)
    ranked = np.minimum.accumulate(ranked[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(ranked, 1.0)
    q[ok] = out
    return q


result = ann.copy()
result["group_a"] = group_a
result["group_b"] = group_b
result["n_a"] = len(in_a)
result["n_b"] = len(in_b)
result["prevalence"] = prevalence[keep]
result["mean_clr_a"] = a.mean(axis=1)
result["mean_clr_b"] = b.mean(axis=1)
result["effect"] = result["mean_clr_b"] - result["mean_clr_a"]
result["statistic"] = statistic
result["pvalue"] = pvalue
result["padj"] = benjamini_hochberg(pvalue)
sort_id = pd.to_numeric(result[id_column], errors="coerce")
result["_id_num"] = sort_id.fillna(math.inf)
result = result.sort_values(["padj", "pvalue", "_id_num", id_column], na_position="last", kind="mergesort")
result = result.drop(columns="_id_num")
result.to_csv(out_path, sep="\t", index=False, float_format="%.6g", na_rep="NA")
n_sig = int((result["padj"] <= 0.05).sum())
LOG.info("wrote %s: %d taxa tested (%s), %d with padj <= 0.05 (%s vs %s)", out_path, len(result), test, n_sig,
         group_b, group_a)

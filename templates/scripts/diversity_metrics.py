"""Alpha diversity per sample and the Bray-Curtis dissimilarity between samples.

Snakemake `script:` step of tool `diversity_metrics` (operation diversity_analysis).

input.table    features x samples count table (tsv/csv): a taxa abundance table or an
               ASV/OTU table (DADA2's, VSEARCH's, nf-core/ampliseq's ASV_table.tsv); the
               first column is the taxon, ASV or OTU id; columns named taxid, name, rank,
               taxonomy_id, taxonomy_lvl, lineage, taxonomy, sequence are annotation;
               every other all-numeric column is a sample
output.table   TSV, one row per sample (sorted by sample): sample, total_count, richness,
               shannon, simpson, inverse_simpson, pielou_evenness
output.beta    TSV: square Bray-Curtis dissimilarity matrix (samples sorted), 0 on the diagonal
output.jaccard TSV: square Jaccard distance matrix (presence/absence), same layout
params         min_count (0): counts <= min_count are treated as absent;
               rarefaction_depth (0): when > 0, every sample is subsampled without replacement
               to that many reads (seed 1, as nf-core/ampliseq rarefies before its diversity);
               samples with fewer reads are dropped, with a warning

shannon = -sum p ln p (natural log); simpson = 1 - sum p^2 (Gini-Simpson);
inverse_simpson = 1 / sum p^2; pielou_evenness = shannon / ln(richness) (NA if richness < 2);
Bray-Curtis(i, j) = sum |x_i - x_j| / sum (x_i + x_j) on the counts; Jaccard(i, j) = 1 - |A_i & A_j| /
|A_i | A_j| on the features present. Without rarefaction (the default) the counts are used as
given: richness grows with sequencing depth, compare samples of similar depth or set rarefaction_depth.
"""

import bioplan_step
from bioplan_step import LOG, fail

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)

import numpy as np
import pandas as pd

TOOL = "diversity_metrics"
# annotation columns: a taxa table's lineage, an ASV/OTU table's exact sequence (asv_id, sequence, samples...)
ANNOTATION = {"taxid", "name", "rank", "taxonomy_id", "taxonomy_lvl", "lineage", "taxonomy", "taxon", "description",
              "sequence"}

params = snakemake.params
table_path = snakemake.input.table
alpha_path = snakemake.output.table
beta_path = snakemake.output.beta
jaccard_path = snakemake.output.jaccard
try:
    min_count = float(getattr(params, "min_count", 0) or 0)
except (TypeError, ValueError):
    fail(f"params.{TOOL}.min_count must be a number (config.yaml)")
try:
    depth = int(getattr(params, "rarefaction_depth", 0) or 0)
except (TypeError, ValueError):
    fail(f"params.{TOOL}.rarefaction_depth must be a whole number of reads, 0 for none (config.yaml)")
if depth < 0:
    fail(f"params.{TOOL}.rarefaction_depth must be 0 (no rarefaction) or a positive number of reads (config.yaml)")

try:
    with open(table_path, encoding="utf-8") as handle:
        header = handle.readline()
        # `biom convert --to-tsv` writes one comment line above its '#OTU ID' header
        skip = 1 if header.startswith("# Constructed from biom file") else 0
        header = handle.readline() if skip else header
    sep = "\t" if header.count("\t") >= header.count(",") else ","
    df = pd.read_csv(table_path, sep=sep, skiprows=skip)
except Exception as exc:  # noqa: BLE001
    fail(f"cannot read the count table {table_path}: {exc}")
if df.shape[1] < 2:
    fail(f"{table_path} has {df.shape[1]} column(s); expected a taxon/ASV id column and one column per sample.")

candidates = [c for c in df.columns[1:] if str(c).lower() not in ANNOTATION]
samples = sorted(str(c) for c in candidates if pd.api.types.is_numeric_dtype(df[c]))
skipped = [c for c in candidates if str(c) not in samples]
if skipped:
    LOG.warning("non-numeric columns of %s are not samples, ignored: %s", table_path, skipped)
if not samples:
    fail(f"{table_path} has no numeric sample column (columns: {list(df.columns)}).")
df.columns = [str(c) for c in df.columns]
counts = df[samples].to_numpy(dtype=float)
if np.isnan(counts).any() or (counts < 0).any():
    fail(f"{table_path}: counts must be non-negative numbers (found negative or missing values).")
counts = np.where(counts > min_count, counts, 0.0)
if depth > 0:
    if not np.allclose(counts, np.round(counts)):
        fail(f"{table_path}: rarefaction subsamples reads, so the counts must be whole numbers "
             "(set rarefaction_depth to 0 for relative abundances)")
    totals = counts.sum(axis=0)
    shallow = [s for s, t in zip(samples, totals) if t < depth]
    if shallow:
        LOG.warning("samples with fewer than %d reads are dropped by the rarefaction: %s", depth, shallow)
    keep = [j for j, t in enumerate(totals) if t >= depth]
    if not keep:
        fail(f"no sample of {table_path} has {depth} reads; lower params.{TOOL}.rarefaction_depth (config.yaml)")
    rng = np.random.default_rng(1)
    rarefied = np.zeros((counts.shape[0], len(keep)))
    for col, j in enumerate(keep):
        pool = np.repeat(np.arange(counts.shape[0]), counts[:, j].astype(np.int64))
        picked = rng.choice(pool, size=depth, replace=False)
        rarefied[:, col] = np.bincount(picked, minlength=counts.shape[0])
    samples = [samples[j] for j in keep]
    counts = rarefied
    LOG.info("rarefied every sample to %d reads (seed 1)", depth)

rows = []
for j, sample in enumerate(samples):
    x = counts[:, j]
    total = float(x.sum())
    present = x[x > 0]
    richness = int(present.size)
    if total > 0:
        p = present / total
        shannon = float(-(p * np.log(p)).sum()) + 0.0  # no "-0"
        sum_p2 = float((p**2).sum())
        simpson = 1.0 - sum_p2
        inverse_simpson = 1.0 / sum_p2
        evenness = shannon / float(np.log(richness)) if richness >= 2 else float("nan")
    else:
        LOG.warning("sample %s has no counts: its diversity is NA", sample)
        shannon = simpson = inverse_simpson = evenness = float("nan")
    rows.append({"sample": sample, "total_count": total, "richness": richness, "shannon": shannon,
                 "simpson": simpson, "inverse_simpson": inverse_simpson, "pielou_evenness": evenness})
alpha = pd.DataFrame(rows)
alpha["total_count"] = alpha["total_count"].map(lambda v: int(v) if float(v).is_integer() else v)
alpha.to_csv(alpha_path, sep="\t", index=False, float_format="%.6g", na_rep="NA")

n = len(samples)
bc = np.zeros((n, n))
for i in range(n):
    for k in range(i + 1, n):
        denom = float((counts[:, i] + counts[:, k]).sum())
        value = float(np.abs(counts[:, i] - counts[:, k]).sum()) / denom if denom > 0 else float("nan")
        bc[i, k] = bc[k, i] = value
beta = pd.DataFrame(bc, index=pd.Index(samples, name="sample"), columns=samples)
beta.to_csv(beta_path, sep="\t", float_format="%.6g", na_rep="NA")
present = counts > 0
jac = np.zeros((n, n))
for i in range(n):
    for k in range(i + 1, n):
        union = int((present[:, i] | present[:, k]).sum())
        value = 1.0 - int((present[:, i] & present[:, k]).sum()) / union if union else float("nan")
        jac[i, k] = jac[k, i] = value
jaccard = pd.DataFrame(jac, index=pd.Index(samples, name="sample"), columns=samples)
jaccard.to_csv(jaccard_path, sep="\t", float_format="%.6g", na_rep="NA")
LOG.info("wrote %s, %s and %s (%d samples, %d features)", alpha_path, beta_path, jaccard_path, n, len(df))

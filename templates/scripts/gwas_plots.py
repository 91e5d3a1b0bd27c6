"""Manhattan and QQ plots, the genomic inflation factor and the top hits of an association test (Snakemake script).

Input: results (PLINK 2 --glm output: #CHROM, POS, ID, ..., P; one row per variant, the additive test; rows of
another TEST, as --glm writes for covariates without hide-covar, are left out). Outputs: manhattan (PNG: -log10 p
by chromosome and position, lines at the genome-wide and suggestive thresholds), qq (PNG: observed against
expected -log10 p, with lambda), summary (tsv: lambda, the variants tested and past each threshold, then the top
variants by p). Lambda is the median chi-square (1 df) of the p-values over 0.4549364, the median of the chi-square
distribution (Devlin and Roeder's genomic control). Deterministic PNGs (no timestamp).
Params: genome_wide, suggestive, top.
"""

import math
from statistics import NormalDist

import bioplan_step
from bioplan_step import LOG, fail, message_figure, pyplot, save_png

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)

import numpy as np
import pandas as pd

plt = pyplot()
CHI2_MEDIAN = 0.4549364231195724  # qchisq(0.5, 1)


def chi2_of(p):
    """The 1-df chi-square statistic whose upper tail is p (p in (0, 1])."""
    return NormalDist().inv_cdf(max(p, 1e-300) / 2) ** 2


def genomic_lambda(pvalues):
    ordered = np.sort(pvalues)
    n = len(ordered)
    middle = [ordered[(n - 1) // 2], ordered[n // 2]]
    return sum(chi2_of(float(p)) for p in middle) / 2 / CHI2_MEDIAN


def read_results(path):
    try:
        table = pd.read_csv(path, sep="\t", dtype=str)
    except (OSError, ValueError) as err:
        fail(f"the association results '{path}' cannot be read as a table ({err}).")
    table.columns = [c.lstrip("#") for c in table.columns]
    missing = [c for c in ("CHROM", "POS", "ID", "P") if c not in table.columns]
    if missing:
        fail(f"the association results '{path}' lack the columns {missing} (PLINK 2 --glm output has #CHROM, POS, "
             f"ID and P; columns found: {', '.join(table.columns)}).")
    if "TEST" in table.columns:
        table = table[table["TEST"] == "ADD"]
    table["P"] = pd.to_numeric(table["P"], errors="coerce")
    table["POS"] = pd.to_numeric(table["POS"], errors="coerce")
    return table.dropna(subset=["P", "POS"]).copy()


def chrom_order(name):
    name = str(name).removeprefix("chr")
    return (0, int(name), "") if name.isdigit() else (1, 0, name)


def manhattan(data, params, path):
    chroms = sorted(data["CHROM"].unique(), key=chrom_order)
    fig, ax = plt.subplots(figsize=(10, 4))
    offset, ticks = 0.0, []
    for i, chrom in enumerate(chroms):
        part = data[data["CHROM"] == chrom]
        x = part["POS"].to_numpy(dtype=float) - part["POS"].min() + offset
        ax.scatter(x, part["logp"], s=4, c="#1f4e79" if i % 2 == 0 else "#7fa7d1", linewidths=0,
                   rasterized=len(data) > 20000)
        ticks.append((offset + x.max()) / 2 if len(x) else offset)
        offset = (x.max() if len(x) else offset) + max(1.0, 0.02 * (part["POS"].max() - part["POS"].min()))
    ax.axhline(-math.log10(float(params.genome_wide)), color="#d62728", lw=0.7, ls="--")
    ax.axhline(-math.log10(float(params.suggestive)), color="#555555", lw=0.6, ls=":")
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(c) for c in chroms], fontsize=7)
    ax.set_xlabel("chromosome")
    ax.set_ylabel("-log10 p")
    ax.set_title(f"Manhattan plot ({len(data)} variants)")
    save_png(fig, path)


def qq(data, lam, path):
    observed = np.sort(data["logp"].to_numpy())[::-1]
    n = len(observed)
    expected = -np.log10((np.arange(1, n + 1) - 0.5) / n)
    fig, ax = plt.subplots(figsize=(4.5, 4.5))
    ax.scatter(expected, observed, s=5, c="#1f4e79", linewidths=0, rasterized=n > 20000)
    top = max(expected.max(), observed.max())
    ax.plot([0, top], [0, top], color="#d62728", lw=0.7)
    ax.set_xlabel("expected -log10 p")
    ax.set_ylabel("observed -log10 p")
    ax.set_title(f"QQ plot (lambda = {lam:.3f})")
    save_png(fig, path)


def main():
    params, out = snakemake.params, snakemake.output
    data = read_results(snakemake.input.results)
    if data.empty:
        LOG.warning("no variant with a p-value: empty plots")
        message_figure(out.manhattan, "No tested variants")
        message_figure(out.qq, "No tested variants")
        pd.DataFrame([{"statistic": "variants_tested", "value": 0}]).to_csv(out.summary, sep="\t", index=False)
        return
    floor = data.loc[data["P"] > 0, "P"].min() if (data["P"] > 0).any() else 1e-300
    data["logp"] = -np.log10(data["P"].clip(lower=floor))
    lam = genomic_lambda(data["P"].to_numpy())
    manhattan(data, params, out.manhattan)
    qq(data, lam, out.qq)
    gw, sug = float(params.genome_wide), float(params.suggestive)
    stats = [("lambda_gc", f"{lam:.4f}"), ("variants_tested", str(len(data))),
             (f"variants_p_below_{gw:g}", str(int((data["P"] < gw).sum()))),
             (f"variants_p_below_{sug:g}", str(int((data["P"] < sug).sum())))]
    top = data.sort_values(["P", "CHROM", "POS"], kind="mergesort").head(int(params.top))
    effect = next((c for c in ("OR", "BETA") if c in data.columns), None)
    with open(out.summary, "w", encoding="utf-8") as handle:
        handle.write("statistic\tvalue\n")
        handle.writelines(f"{name}\t{value}\n" for name, value in stats)
        handle.write("\nrank\tCHROM\tPOS\tID\t" + (f"{effect}\t" if effect else "") + "P\n")
        for rank, (_, row) in enumerate(top.iterrows(), 1):
            handle.write(f"{rank}\t{row['CHROM']}\t{int(row['POS'])}\t{row['ID']}\t"
                         + (f"{row[effect]}\t" if effect else "") + f"{row['P']:.4g}\n")
    LOG.info("%d variants; lambda %.3f; %d below %g", len(data), lam, int((data["P"] < gw).sum()), gw)


main()

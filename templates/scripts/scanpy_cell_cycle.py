"""Cell-cycle phase scoring and, optionally, its regression (scanpy's score_genes_cell_cycle).

Snakemake `script:` step of tool `scanpy_cell_cycle` (operation cell_cycle_scoring).

input.adata    AnnData (.h5ad), log-normalised X over all genes (the normalisation step's output)
genes          the Tirosh et al. 2016 lists (43 S, 54 G2/M genes; Science 352:189), as Seurat's cc.genes and
               the scanpy tutorial score them
output.adata   the same AnnData with obs S_score, G2M_score and phase; with regress_out, X is the residual
               of a regression on S_score and G2M_score (sc.pp.regress_out) and the log-normalised values
               are kept in layers["log_normalized"]
output.phases  TSV, one row per cell: cell, S_score, G2M_score, phase
params         regress_out (false), n_bins (25: expression bins the control genes are drawn from),
               random_state (0), min_genes (5: fewer genes of a phase found in the data is an error)

Genes are matched to var_names ignoring case (mouse data name them Mcm5, Cdk1).
Deterministic: the control genes are drawn with random_state.
"""

import bioplan_step
from bioplan_step import LOG, fail, read_h5ad

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)
THREADS = bioplan_step.limit_threads(snakemake.threads)  # before numpy starts its thread pools

import pandas as pd
import scanpy as sc

TOOL = "scanpy_cell_cycle"
sc.settings.n_jobs = THREADS
sc.settings.verbosity = 2

# Tirosh I, et al. Science 2016;352(6282):189-196 (regev_lab_cell_cycle_genes.txt: the first 43 are S genes)
S_GENES = ("MCM5 PCNA TYMS FEN1 MCM2 MCM4 RRM1 UNG GINS2 MCM6 CDCA7 DTL PRIM1 UHRF1 MLF1IP HELLS RFC2 RPA2 NASP "
           "RAD51AP1 GMNN WDR76 SLBP CCNE2 UBR7 POLD3 MSH2 ATAD2 RAD51 RRM2 CDC45 CDC6 EXO1 TIPIN DSCC1 BLM "
           "CASP8AP2 USP1 CLSPN POLA1 CHAF1B BRIP1 E2F8").split()
G2M_GENES = ("HMGB2 CDK1 NUSAP1 UBE2C BIRC5 TPX2 TOP2A NDC80 CKS2 NUF2 CKS1B MKI67 TMPO CENPF TACC3 FAM64A SMC4 "
             "CCNB2 CKAP2L CKAP2 AURKB BUB1 KIF11 ANP32E TUBB4B GTSE1 KIF20B HJURP CDCA3 HN1 CDC20 TTK CDC25C "
             "KIF2C RANGAP1 NCAPD2 DLGAP5 CDCA2 CDCA8 ECT2 KIF23 HMMR AURKA PSRC1 ANLN LBR CKAP5 CENPE CTCF NEK2 "
             "G2E3 GAS2L3 CBX5 CENPA").split()

params = snakemake.params
in_path = snakemake.input.adata
out_path = snakemake.output.adata
phases_path = snakemake.output.phases


def as_bool(value):
    """A config flag: YAML booleans, or the words a params.json may carry."""
    return value if isinstance(value, bool) else str(value).strip().lower() in {"true", "yes", "1"}


try:
    regress = as_bool(getattr(params, "regress_out", False))
    n_bins = int(getattr(params, "n_bins", 25))
    seed = int(getattr(params, "random_state", 0) or 0)
    min_genes = int(getattr(params, "min_genes", 5))
except (TypeError, ValueError):
    fail(f"params.{TOOL}.n_bins, random_state and min_genes must be whole numbers (config.yaml)")

adata = read_h5ad(in_path)
if "log1p" not in adata.uns:
    LOG.warning("%s: uns['log1p'] is not set; the scores assume X is log-normalised", in_path)
s_list, g2m_list = S_GENES, G2M_GENES
source = "Tirosh et al. 2016"
by_upper = {}
for name in adata.var_names.astype(str):
    by_upper.setdefault(name.upper(), name)
found = {}
for phase, wanted in (("S", s_list), ("G2M", g2m_list)):
    found[phase] = [by_upper[g.upper()] for g in wanted if g.upper() in by_upper]
    LOG.info("%s genes (%s): %d of %d found in the data", phase, source, len(found[phase]), len(wanted))
    if len(found[phase]) < min_genes:
        fail(f"{in_path}: {len(found[phase])} of the {len(wanted)} {phase} genes ({source}) are among its var_names "
             f"(fewer than {min_genes}): the genes must be named by their symbols (human, or mouse in its case).")

sc.tl.score_genes_cell_cycle(adata, s_genes=found["S"], g2m_genes=found["G2M"], n_bins=n_bins, random_state=seed)
table = pd.DataFrame({"cell": adata.obs_names.astype(str),
                      "S_score": adata.obs["S_score"].to_numpy(dtype=float),
                      "G2M_score": adata.obs["G2M_score"].to_numpy(dtype=float),
                      "phase": adata.obs["phase"].astype(str).to_numpy()})
table.to_csv(phases_path, sep="\t", index=False, float_format="%.5g")
LOG.info("phases: %s", table["phase"].value_counts().to_dict())
if regress:
    adata.layers["log_normalized"] = adata.X.copy()
    sc.pp.regress_out(adata, ["S_score", "G2M_score"], n_jobs=THREADS)
    LOG.info("X regressed on S_score and G2M_score (the log-normalised values are in layers['log_normalized'])")
adata.uns["cell_cycle"] = {"genes": source, "n_s_genes": len(found["S"]), "n_g2m_genes": len(found["G2M"]),
                           "regressed_out": regress, "random_state": seed}
adata.write_h5ad(out_path, compression="gzip")
LOG.info("wrote %s and %s", out_path, phases_path)

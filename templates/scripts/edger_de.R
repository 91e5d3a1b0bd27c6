# edgeR quasi-likelihood differential expression (Snakemake script).
#
# filterByExpr -> TMM (calcNormFactors) -> estimateDisp -> glmQLFit (robust, needs statmod) -> glmQLFTest of
# test_level vs reference_level, or glmTreat (TREAT: is |log2FC| above lfc_threshold?) when lfc_threshold > 0. Output table (tsv) in the bioplan DE layout: gene_id, baseMean
# (mean TMM-normalised count), log2FoldChange (logFC), lfcSE (NA: the QL F-test has none), stat
# (signed sqrt(F): sign(logFC) * sqrt(F), usable for ranking), pvalue, padj (BH FDR), plus logCPM
# and F. Genes removed by filterByExpr are kept with NA statistics. Sorted by padj then gene_id. With
# glmTreat, stat is the signed normal quantile of the p-value and F is NA.
# Params: condition_column, reference_level, test_level, alpha (only for the log summary),
# filter (apply filterByExpr), robust (robust QL prior), lfc_threshold (log2; 0: the QL F-test),
# norm_method (calcNormFactors: TMM, TMMwsp, RLE, upperquartile).

source(file.path(snakemake@scriptdir, "bioplan_step.R"), local = environment())  # the log, fail(), run(), readers

main <- function() {
  de <- de_inputs()
  lfc <- lfc_threshold_param()
  load_packages("edgeR")
  y <- DGEList(counts = de$counts, group = de$group)
  keep <- if (isTRUE(param("filter", TRUE))) filterByExpr(y, group = de$group) else rep(TRUE, nrow(y))
  message(sprintf("filterByExpr keeps %d of %d genes", sum(keep), length(keep)))
  if (sum(keep) < 2) fail("fewer than 2 genes pass filterByExpr: the counts are too low for edgeR.")
  y <- y[keep, , keep.lib.sizes = FALSE]
  y <- calcNormFactors(y, method = norm_method_param())
  design <- model.matrix(~group, data = data.frame(group = de$group))
  y <- estimateDisp(y, design)
  robust <- isTRUE(param("robust", TRUE))
  if (robust && !requireNamespace("statmod", quietly = TRUE)) {
    message("WARNING: the statmod package is missing; fitting the QL dispersion prior without robust = TRUE")
    robust <- FALSE
  }
  fit <- glmQLFit(y, design, robust = robust)
  coef <- paste0("group", de$test_code)
  if (lfc > 0) message(sprintf("testing |log2FoldChange| > %g (glmTreat)", lfc))
  tested <- if (lfc > 0) glmTreat(fit, coef = coef, lfc = lfc) else glmQLFTest(fit, coef = coef)
  tt <- topTags(tested, n = Inf, sort.by = "none")$table
  if (lfc > 0) tt$F <- NA_real_
  stat <- if (lfc > 0) sign(tt$logFC) * qnorm(tt$PValue / 2, lower.tail = FALSE) else sign(tt$logFC) * sqrt(tt$F)
  names(stat) <- rownames(tt)

  eff <- y$samples$lib.size * y$samples$norm.factors
  norm <- sweep(de$counts, 2, eff / exp(mean(log(eff))), "/")
  genes <- rownames(de$counts)
  idx <- match(genes, rownames(tt))
  out <- data.frame(
    gene_id = genes, baseMean = rowMeans(norm), log2FoldChange = tt$logFC[idx], lfcSE = NA_real_,
    stat = unname(stat[idx]), pvalue = tt$PValue[idx], padj = tt$FDR[idx],
    logCPM = tt$logCPM[idx], F = tt$F[idx], stringsAsFactors = FALSE
  )
  write_de_table(out, snakemake@output[["table"]], as.numeric(param("alpha", 0.05)))
}

run(main)

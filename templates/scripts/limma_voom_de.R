# limma-voom differential expression (Snakemake script).
#
# filterByExpr -> TMM -> voom -> lmFit -> eBayes; moderated t-test of test_level vs
# reference_level (treat/topTreat when lfc_threshold > 0: is |log2FC| above it? B is then NA). Output table (tsv) in the bioplan DE layout: gene_id, baseMean (mean
# TMM-normalised count), log2FoldChange (logFC), lfcSE (posterior SE of logFC), stat (moderated t),
# pvalue, padj (BH), plus AveExpr (mean log2-CPM) and B. Genes removed by filterByExpr are kept with
# NA statistics. Sorted by padj then gene_id.
# Params: condition_column, reference_level, test_level, alpha (only for the log summary), filter,
# lfc_threshold (log2; 0: the moderated t-test), norm_method (calcNormFactors: TMM, TMMwsp, RLE, upperquartile).

source(file.path(snakemake@scriptdir, "bioplan_step.R"), local = environment())  # the log, fail(), run(), readers

main <- function() {
  de <- de_inputs()
  lfc <- lfc_threshold_param()
  load_packages("limma", "edgeR")
  y <- DGEList(counts = de$counts, group = de$group)
  keep <- if (isTRUE(param("filter", TRUE))) filterByExpr(y, group = de$group) else rep(TRUE, nrow(y))
  message(sprintf("filterByExpr keeps %d of %d genes", sum(keep), length(keep)))
  if (sum(keep) < 2) fail("fewer than 2 genes pass filterByExpr: the counts are too low for limma-voom.")
  y <- y[keep, , keep.lib.sizes = FALSE]
  y <- calcNormFactors(y, method = norm_method_param())
  design <- model.matrix(~group, data = data.frame(group = de$group))
  v <- voom(y, design)
  coef <- paste0("group", de$test_code)
  if (lfc > 0) {
    message(sprintf("testing |log2FoldChange| > %g (treat)", lfc))
    fit <- treat(lmFit(v, design), lfc = lfc)
    tt <- topTreat(fit, coef = coef, number = Inf, sort.by = "none")
    tt$B <- NA_real_
  } else {
    fit <- eBayes(lmFit(v, design))
    tt <- topTable(fit, coef = coef, number = Inf, sort.by = "none")
  }
  se <- (sqrt(fit$s2.post) * fit$stdev.unscaled[, coef])[rownames(tt)]

  eff <- y$samples$lib.size * y$samples$norm.factors
  norm <- sweep(de$counts, 2, eff / exp(mean(log(eff))), "/")
  genes <- rownames(de$counts)
  idx <- match(genes, rownames(tt))
  out <- data.frame(
    gene_id = genes, baseMean = rowMeans(norm), log2FoldChange = tt$logFC[idx], lfcSE = unname(se[idx]),
    stat = tt$t[idx], pvalue = tt$P.Value[idx], padj = tt$adj.P.Val[idx],
    AveExpr = tt$AveExpr[idx], B = tt$B[idx], stringsAsFactors = FALSE
  )
  write_de_table(out, snakemake@output[["table"]], as.numeric(param("alpha", 0.05)))
}

run(main)

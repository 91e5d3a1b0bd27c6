# DESeq2 differential expression (Snakemake script).
#
# Inputs: counts (genes x samples raw integer counts, first column = gene id, tsv/csv) and samples
# (tsv/csv with a `sample` column and the condition column). Output: table (tsv) with gene_id,
# baseMean, log2FoldChange, lfcSE, stat, pvalue, padj (Wald test of test_level vs reference_level,
# independent filtering, Cook's outlier handling), sorted by padj (NA last) then gene_id.
# Params: condition_column, reference_level (NULL: control/ctrl/untreated/wt/... if present, else
# the first level alphabetically), test_level (NULL: the first other level), alpha, lfc_threshold
# (results(lfcThreshold =): with a threshold above 0 the Wald test asks whether |log2FC| exceeds it,
# altHypothesis greaterAbs, as DESeq2's vignette advises over filtering the estimates).

source(file.path(snakemake@scriptdir, "bioplan_step.R"), local = environment())  # the log, fail(), run(), readers

main <- function() {
  de <- de_inputs()
  lfc <- lfc_threshold_param()
  load_packages("DESeq2")
  alpha <- as.numeric(param("alpha", 0.05))
  coldata <- data.frame(condition = de$group, row.names = colnames(de$counts))
  dds <- DESeqDataSetFromMatrix(countData = de$counts, colData = coldata, design = ~condition)
  # BiocParallel's forked workers pay off on large matrices only: below 100,000 counts (5,000 genes of 20
  # samples) they cost more than they save (11 peaks x 4 samples: +1.5 CPU-s; 2,000 genes x 6: +2.5 CPU-s,
  # no shorter), so DESeq() runs serially there whatever the threads
  parallel <- as.integer(snakemake@threads) > 1 && length(de$counts) >= 1e5
  if (parallel) BiocParallel::register(BiocParallel::MulticoreParam(as.integer(snakemake@threads)))
  dds <- DESeq(dds, parallel = parallel)
  if (lfc > 0) message(sprintf("testing |log2FoldChange| > %g (lfcThreshold, altHypothesis greaterAbs)", lfc))
  res <- results(dds, contrast = c("condition", de$test_code, levels(de$group)[1]), alpha = alpha,
                 lfcThreshold = lfc, altHypothesis = "greaterAbs")
  out <- data.frame(
    gene_id = rownames(res), baseMean = res$baseMean, log2FoldChange = res$log2FoldChange,
    lfcSE = res$lfcSE, stat = res$stat, pvalue = res$pvalue, padj = res$padj,
    stringsAsFactors = FALSE
  )
  write_de_table(out, snakemake@output[["table"]], alpha)
}

run(main)

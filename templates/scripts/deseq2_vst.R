# Variance-stabilising transformation of a raw count matrix with Bioconductor DESeq2 (Snakemake script).
#
# As nf-core/rnaseq's deseq2_qc and nf-core/differentialabundance's exploratory step do it: an
# intercept-only design (blind = TRUE: the transformation ignores the conditions, as DESeq2's
# vignette advises for quality assessment), median-of-ratios size factors, then vst() (or
# varianceStabilizingTransformation() on fewer than 1000 rows, where vst()'s subsampling of 1000
# rows cannot run: peaks of a small consensus set). A variance-stabilising transformation rises with
# the normalised count and is log2-like: it spreads the values no wider than log2 does. When the
# dispersion trend (parametric, or the local fit DESeq2 puts in its place) cannot be fitted or gives a
# transformation that is not (the local fit through a dozen peaks spread 200-1000 reads over -15..153),
# the local, then the mean, fit is used, with a warning naming it.
# Input: counts (features x samples raw counts, first column = gene or peak id, tsv/csv; non-numeric
# columns such as gene names are dropped; non-integer counts such as tximport's are rounded, with a
# warning). Output: normalized (tsv, gene_id then one column per sample, log2-like scale).
# Params: fit_type (parametric, local or mean), blind.

source(file.path(snakemake@scriptdir, "bioplan_step.R"), local = environment())  # the log, fail(), run(), readers

count_matrix <- function(path) {
  m <- read_count_table(path, ": the VST reads raw counts")
  if (any(abs(m - round(m)) > 1e-6)) message("WARNING: non-integer counts (e.g. tximport estimates) rounded")
  storage.mode(m) <- "integer"
  m
}

transform <- function(dds, fit_type, blind) {
  if (nrow(dds) < 1000) varianceStabilizingTransformation(dds, blind = blind, fitType = fit_type)
  else vst(dds, blind = blind, fitType = fit_type)
}

# TRUE when the transformed values rise with the normalised counts (ties aside) and spread no wider than
# their log2 (with some slack: the VST approaches log2 from below for large counts)
log_like <- function(out, dds) {
  normalised <- as.vector(counts(dds, normalized = TRUE))
  values <- as.vector(assay(out))[order(normalised)]
  if (!all(is.finite(values))) return(FALSE)
  rises <- all(diff(values) >= -1e-6 * max(1, abs(values)))
  rises && diff(range(values)) <= 1.5 * diff(range(log2(normalised + 1))) + 1
}

main <- function() {
  m <- count_matrix(snakemake@input[["counts"]])
  m <- m[rowSums(m) > 0, , drop = FALSE]
  if (nrow(m) < 2) fail("fewer than 2 rows of '", snakemake@input[["counts"]], "' have a count: nothing to transform.")
  load_packages("DESeq2")
  dds <- DESeqDataSetFromMatrix(countData = m, colData = data.frame(row.names = colnames(m)), design = ~1)
  dds <- estimateSizeFactors(dds)
  message(sprintf("%d features x %d samples; size factors: %s", nrow(m), ncol(m), toString(round(sizeFactors(dds), 4))))
  blind <- isTRUE(param("blind", TRUE))
  fits <- unique(c(param("fit_type", "parametric"), "local", "mean"))
  for (fit in fits) {
    out <- tryCatch(transform(dds, fit, blind), error = function(e) {
      message("WARNING: the ", fit, " dispersion fit failed (", conditionMessage(e), ")")
      NULL
    })
    if (!is.null(out) && !log_like(out, dds)) {
      message("WARNING: the ", fit, " dispersion fit gives no log-like transformation of these ", nrow(dds), " rows")
      out <- NULL
    }
    if (!is.null(out)) break
  }
  if (is.null(out)) fail("no dispersion trend (", toString(fits), ") could be fitted to these counts.")
  if (fit != fits[1]) message("WARNING: used the ", fit, " dispersion fit")
  values <- round(assay(out), 6)
  write_tsv(data.frame(gene_id = rownames(values), values, check.names = FALSE, stringsAsFactors = FALSE),
            snakemake@output[["normalized"]])
}

run(main)

# TMM-normalised log2 counts per million with edgeR (Snakemake script).
#
# Input: counts (genes x samples raw counts, first column = gene id, tsv/csv; non-numeric columns
# such as gene names are dropped). Output: normalized (tsv, gene_id then one column per sample) with
# edgeR::cpm(log = TRUE, prior.count) after calcNormFactors(method = "TMM"). All genes are kept.
# Params: log (TRUE: log2-CPM, FALSE: CPM), prior_count.

source(file.path(snakemake@scriptdir, "bioplan_step.R"), local = environment())  # the log, fail(), run(), readers

suppressPackageStartupMessages(library(edgeR))

main <- function() {
  path <- snakemake@input[["counts"]]
  tab <- read_table(path, "count matrix")
  if (ncol(tab) < 3) fail("'", path, "' needs a gene id column and at least 2 sample columns.")
  genes <- tab[[1]]
  if (anyDuplicated(genes)) fail("gene ids repeat in the first column of '", path, "', e.g. '", genes[duplicated(genes)][1], "'.")
  values <- suppressWarnings(lapply(tab[-1], as.numeric))
  text_cols <- names(values)[vapply(values, function(v) all(is.na(v)), logical(1))]
  if (length(text_cols)) message("WARNING: dropping non-numeric columns: ", toString(text_cols))
  values <- values[setdiff(names(values), text_cols)]
  m <- matrix(unlist(values, use.names = FALSE), nrow = length(genes), dimnames = list(genes, names(values)))
  bad <- is.na(m) | m < 0
  if (any(bad)) {
    at <- which(bad, arr.ind = TRUE)[1, ]
    fail("'", path, "' holds a missing or negative value at gene ", genes[at[1]], ", sample ", colnames(m)[at[2]], ".")
  }
  y <- calcNormFactors(DGEList(counts = m), method = "TMM")
  message(sprintf("%d genes x %d samples; TMM factors: %s", nrow(m), ncol(m), toString(round(y$samples$norm.factors, 4))))
  as_log <- isTRUE(param("log", TRUE))
  out <- cpm(y, log = as_log, prior.count = as.numeric(param("prior_count", 2)))
  write_tsv(data.frame(gene_id = rownames(out), out, check.names = FALSE, stringsAsFactors = FALSE),
            snakemake@output[["normalized"]])
}

run(main)

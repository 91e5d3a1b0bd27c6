# TMM-normalised log2 counts per million with edgeR (Snakemake script).
#
# Input: counts (genes x samples raw counts, first column = gene id, tsv/csv; non-numeric columns
# such as gene names are dropped). Output: normalized (tsv, gene_id then one column per sample) with
# edgeR::cpm(log = TRUE, prior.count) after calcNormFactors(method = norm_method, TMM unless the request
# asked for upper-quartile factors). All genes are kept.
# Params: log (TRUE: log2-CPM, FALSE: CPM), prior_count, norm_method (TMM, TMMwsp, RLE, upperquartile).

source(file.path(snakemake@scriptdir, "bioplan_step.R"), local = environment())  # the log, fail(), run(), readers

main <- function() {
  path <- snakemake@input[["counts"]]
  m <- read_count_table(path)
  method <- norm_method_param()
  load_packages("edgeR")
  y <- calcNormFactors(DGEList(counts = m), method = method)
  message(sprintf("%d genes x %d samples; %s factors: %s", nrow(m), ncol(m), method, toString(round(y$samples$norm.factors, 4))))
  as_log <- isTRUE(param("log", TRUE))
  out <- cpm(y, log = as_log, prior.count = as.numeric(param("prior_count", 2)))
  write_tsv(data.frame(gene_id = rownames(out), out, check.names = FALSE, stringsAsFactors = FALSE),
            snakemake@output[["normalized"]])
}

run(main)

# Infer the ASVs of every sample (DADA2 dada), merge the denoised mates and tabulate ASVs x samples.
#
# Snakemake `script:` step of tool `dada2_denoising` (operation asv_inference).
#
# input  reads: every sample's filtered reads (see dada2_reads.R); errors: RDS from dada2_learnerrors
# output table: TSV asv_id, sequence, one count column per sample; ASVs ordered by total count
#        (descending), then sequence; ids ASV_1, ASV_2, ... in that order
# params pool ("false", "true" or "pseudo"), min_overlap (12), max_mismatch (0), samples

source(file.path(snakemake@scriptdir, "bioplan_step.R"), local = environment())  # the log, fail(), run(), param()
source(file.path(snakemake@scriptdir, "dada2_reads.R"), local = environment())   # gathered_reads(), write_asv_table()

pool_mode <- function(value) {
  value <- tolower(as.character(value))
  if (value %in% c("pseudo")) return("pseudo")
  if (value %in% c("true", "yes")) return(TRUE)
  if (value %in% c("false", "no", "")) return(FALSE)
  fail("params.dada2_denoising.pool must be false, true or pseudo, not '", value, "'")
}

main <- function() {
  reads <- gathered_reads()
  errors <- readRDS(snakemake@input[["errors"]])
  if (!is.null(reads$rev) && is.null(errors$rev)) fail("paired reads but the error model has no reverse-read rates")
  threads <- max(1L, as.integer(snakemake@threads))
  pool <- pool_mode(param("pool", "false"))
  load_packages("dada2")
  dd_fwd <- as_sample_list(dada(reads$fwd, err = errors$fwd, pool = pool, multithread = threads), reads$samples, "dada")
  if (is.null(reads$rev)) {
    per_sample <- dd_fwd
  } else {
    dd_rev <- as_sample_list(dada(reads$rev, err = errors$rev, pool = pool, multithread = threads), reads$samples, "dada")
    merged <- mergePairs(dd_fwd, reads$fwd, dd_rev, reads$rev,
                         minOverlap = as.integer(param("min_overlap", 12)), maxMismatch = as.integer(param("max_mismatch", 0)),
                         verbose = TRUE)
    per_sample <- as_sample_list(merged, reads$samples, "data.frame")
  }
  seqtab <- makeSequenceTable(per_sample)  # samples x sequences
  if (ncol(seqtab) == 0) fail("no ASV was inferred (no merged pair in any sample): check the mates overlap by min_overlap")
  counts <- t(seqtab)
  counts <- counts[, reads$samples, drop = FALSE]
  order_rows <- order(-rowSums(counts), rownames(counts), method = "radix")
  counts <- counts[order_rows, , drop = FALSE]
  ids <- paste0("ASV_", seq_len(nrow(counts)))
  message(sprintf("%d ASVs in %d samples (%d reads)", nrow(counts), ncol(counts), sum(counts)))
  write_asv_table(ids, rownames(counts), counts, snakemake@output[["table"]])
}

run(main)

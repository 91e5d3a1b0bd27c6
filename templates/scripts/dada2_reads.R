# The filtered amplicon reads of a DADA2 step that reads every sample at once (learnErrors, dada),
# sourced by dada2_learnerrors.R and dada2_denoising.R after bioplan_step.R.
#
# Snakemake passes the mates as two lists in sample order (input reads_1, reads_2; single-end: reads);
# bin/bioplan_run.R passes one list `reads` holding each sample's files in turn (R1, R2, R1, R2, ...).
# params$samples names the samples in the same order.

gathered_reads <- function() {
  samples <- as.character(unlist(param("samples", character(0))))
  fwd <- unlist(snakemake@input[["reads_1"]])
  rev <- unlist(snakemake@input[["reads_2"]])
  if (is.null(fwd)) {
    files <- unlist(snakemake@input[["reads"]])
    if (length(samples) > 0 && length(files) == 2 * length(samples)) {
      fwd <- files[c(TRUE, FALSE)]
      rev <- files[c(FALSE, TRUE)]
    } else {
      fwd <- files
    }
  }
  if (length(fwd) == 0) fail("no filtered read files were given")
  if (length(samples) != length(fwd)) {
    fail(length(fwd), " read files but ", length(samples), " sample names (params samples); one name per sample is needed")
  }
  if (anyDuplicated(samples)) fail("sample names repeat: ", toString(unique(samples[duplicated(samples)])))
  if (!is.null(rev) && length(rev) != length(fwd)) {
    fail(length(fwd), " forward but ", length(rev), " reverse read files: every sample needs both mates")
  }
  empty <- samples[file.size(fwd) == 0]
  if (length(empty)) fail("the filtered reads of ", toString(empty), " are empty")
  names(fwd) <- samples
  if (!is.null(rev)) names(rev) <- samples
  list(fwd = fwd, rev = rev, samples = samples)
}

# dada() and mergePairs() return one object for one sample and a list for several: always a named list.
as_sample_list <- function(x, samples, class_name) {
  if (inherits(x, class_name)) x <- list(x)
  names(x) <- samples
  x
}

# ASV table (ASV x samples) in bioplan's layout: asv_id, sequence, one count column per sample.
read_asv_table <- function(path) {
  tab <- read_table(path, "ASV table")
  if (!all(c("asv_id", "sequence") %in% names(tab))) {
    fail("the ASV table '", path, "' has no asv_id and sequence columns (columns: ", toString(names(tab)), ")")
  }
  samples <- setdiff(names(tab), c("asv_id", "sequence"))
  counts <- vapply(samples, function(s) as.numeric(tab[[s]]), numeric(nrow(tab)))
  counts <- matrix(counts, nrow = nrow(tab), dimnames = list(tab$sequence, samples))
  if (any(is.na(counts) | counts < 0)) fail("the ASV table '", path, "' holds a count that is not a non-negative number")
  list(ids = tab$asv_id, sequences = tab$sequence, counts = counts)
}

write_asv_table <- function(ids, sequences, counts, path) {
  df <- data.frame(asv_id = ids, sequence = sequences, check.names = FALSE, stringsAsFactors = FALSE)
  for (s in colnames(counts)) df[[s]] <- as.integer(round(counts[, s]))
  utils::write.table(df, path, sep = "\t", quote = FALSE, row.names = FALSE)
}

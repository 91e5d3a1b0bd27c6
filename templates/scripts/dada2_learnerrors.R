# Learn the run's error rates from every sample's filtered reads with DADA2's learnErrors.
#
# Snakemake `script:` step of tool `dada2_learnerrors` (operation error_model_learning).
#
# input  reads: every sample's filtered reads (see dada2_reads.R for how the mates arrive)
# output errors: RDS of list(fwd = error matrix, rev = error matrix or NULL for single-end)
# params nbases (1e8: bases used to learn, as DADA2's default), seed (1), samples (the sample names)

source(file.path(snakemake@scriptdir, "bioplan_step.R"), local = environment())  # the log, fail(), run(), param()
source(file.path(snakemake@scriptdir, "dada2_reads.R"), local = environment())   # gathered_reads()

main <- function() {
  reads <- gathered_reads()
  nbases <- suppressWarnings(as.numeric(param("nbases", 1e8)))
  seed <- suppressWarnings(as.integer(param("seed", 1)))
  if (is.na(nbases) || nbases <= 0 || is.na(seed)) fail("params.dada2_learnerrors.nbases and seed must be positive numbers")
  load_packages("dada2")
  threads <- max(1L, as.integer(snakemake@threads))
  learn <- function(files, direction) {
    set.seed(seed)  # the reads are read in order (randomize = FALSE); the seed pins any sampling inside
    err <- learnErrors(files, nbases = nbases, multithread = threads, randomize = FALSE, verbose = TRUE)
    message(sprintf("%s reads: error model learned from %d samples", direction, length(files)))
    err
  }
  errors <- list(fwd = learn(reads$fwd, "forward"), rev = if (is.null(reads$rev)) NULL else learn(reads$rev, "reverse"))
  saveRDS(errors, snakemake@output[["errors"]])
}

run(main)

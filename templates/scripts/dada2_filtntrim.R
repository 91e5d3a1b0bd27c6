# Filter and truncate one sample's amplicon reads with DADA2's filterAndTrim (mates kept in sync).
#
# Snakemake `script:` step of tool `dada2_filtntrim` (operation amplicon_read_filtering).
#
# input  reads (single-end) or reads_1, reads_2 (paired): FASTQ(.gz)
# output filtered or filtered_1, filtered_2: gzipped FASTQ of the reads that passed
# params trunc_len_fwd, trunc_len_rev (0 = no truncation), max_ee (2: expected errors allowed per read),
#        trunc_q (2), min_len (50), max_n (0), rm_phix (true)

source(file.path(snakemake@scriptdir, "bioplan_step.R"), local = environment())  # the log, fail(), run(), param()

number <- function(name, default) {
  value <- suppressWarnings(as.numeric(param(name, default)))
  if (length(value) != 1 || is.na(value) || value < 0) fail("params.dada2_filtntrim.", name, " must be a number >= 0 (config.yaml)")
  value
}

main <- function() {
  paired <- !is.null(snakemake@input[["reads_1"]])
  trunc <- c(number("trunc_len_fwd", 0), number("trunc_len_rev", 0))
  max_ee <- number("max_ee", 2)
  rm_phix <- isTRUE(as.logical(param("rm_phix", TRUE)))
  common <- list(truncQ = number("trunc_q", 2), minLen = number("min_len", 50), maxN = number("max_n", 0),
                 rm.phix = rm_phix, compress = TRUE, multithread = max(1L, as.integer(snakemake@threads)), verbose = TRUE)
  load_packages("dada2")
  if (paired) {
    out <- do.call(filterAndTrim, c(list(snakemake@input[["reads_1"]], snakemake@output[["filtered_1"]],
                                         snakemake@input[["reads_2"]], snakemake@output[["filtered_2"]],
                                         truncLen = trunc, maxEE = c(max_ee, max_ee)), common))
  } else {
    out <- do.call(filterAndTrim, c(list(snakemake@input[["reads"]], snakemake@output[["filtered"]],
                                         truncLen = trunc[1], maxEE = max_ee), common))
  }
  message(sprintf("%d reads in, %d passed the filter", out[1, 1], out[1, 2]))
  if (out[1, 2] == 0) {
    fail("no read passed filterAndTrim (", out[1, 1], " reads in): lower params.dada2_filtntrim.trunc_len_fwd/",
         "trunc_len_rev below the read lengths, or raise max_ee")
  }
}

run(main)

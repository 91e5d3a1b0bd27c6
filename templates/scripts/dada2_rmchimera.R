# Remove bimeric ASVs with DADA2's removeBimeraDenovo (consensus across samples by default).
#
# Snakemake `script:` step of tool `dada2_rmchimera` (operation chimera_removal).
#
# input  table: ASV table (asv_id, sequence, one count column per sample)
# output table: the same layout without the chimeric ASVs; ids and order kept
# params method ("consensus", "pooled" or "per-sample")

source(file.path(snakemake@scriptdir, "bioplan_step.R"), local = environment())  # the log, fail(), run(), param()
source(file.path(snakemake@scriptdir, "dada2_reads.R"), local = environment())   # read_asv_table(), write_asv_table()

main <- function() {
  method <- as.character(param("method", "consensus"))
  if (!method %in% c("consensus", "pooled", "per-sample")) {
    fail("params.dada2_rmchimera.method must be consensus, pooled or per-sample, not '", method, "'")
  }
  asvs <- read_asv_table(snakemake@input[["table"]])
  load_packages("dada2")
  seqtab <- t(asvs$counts)  # samples x sequences, as DADA2 holds it
  storage.mode(seqtab) <- "integer"
  nochim <- removeBimeraDenovo(seqtab, method = method, multithread = max(1L, as.integer(snakemake@threads)), verbose = TRUE)
  keep <- asvs$sequences %in% colnames(nochim)
  message(sprintf("%d of %d ASVs are bimeras (%.2f%% of the reads)", sum(!keep), length(keep),
                  100 * (1 - sum(nochim) / max(1, sum(seqtab)))))
  write_asv_table(asvs$ids[keep], asvs$sequences[keep], asvs$counts[keep, , drop = FALSE], snakemake@output[["table"]])
}

run(main)

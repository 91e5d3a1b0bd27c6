# Classify every ASV with DADA2's naive Bayesian classifier (assignTaxonomy) against a training set.
#
# Snakemake `script:` step of tool `dada2_assigntaxonomy` (operation asv_taxonomy_assignment).
#
# input  table: ASV table (asv_id, sequence, ...); reference: DADA2-formatted training FASTA
#        (headers 'Kingdom;Phylum;Class;Order;Family;Genus;'), gzipped or not
# output taxonomy: TSV asv_id, sequence, one column per rank (empty below the confidence threshold),
#        then confidence_<rank> (bootstrap support, 0-100) per rank; rows in the table's order
# params min_boot (50), try_rc (false: also try the reverse complement), seed (1),
#        tax_levels ("Kingdom,Phylum,Class,Order,Family,Genus,Species")

source(file.path(snakemake@scriptdir, "bioplan_step.R"), local = environment())  # the log, fail(), run(), param()
source(file.path(snakemake@scriptdir, "dada2_reads.R"), local = environment())   # read_asv_table()

check_training_set <- function(path) {
  first <- readLines(gzfile(path), n = 1, warn = FALSE)
  if (length(first) == 0 || !startsWith(first, ">") || !grepl(";", first, fixed = TRUE)) {
    fail("the training set '", path, "' is not a DADA2-formatted FASTA: its first header should be the lineage ",
         "'>Kingdom;Phylum;...;Genus;' (SILVA/RDP/GTDB files formatted for DADA2)")
  }
}

main <- function() {
  asvs <- read_asv_table(snakemake@input[["table"]])
  reference <- snakemake@input[["reference"]]
  check_training_set(reference)
  min_boot <- suppressWarnings(as.numeric(param("min_boot", 50)))
  seed <- suppressWarnings(as.integer(param("seed", 1)))
  if (is.na(min_boot) || min_boot < 0 || min_boot > 100 || is.na(seed)) fail("params.dada2_assigntaxonomy.min_boot (0-100) and seed must be numbers")
  levels <- trimws(strsplit(as.character(param("tax_levels", "Kingdom,Phylum,Class,Order,Family,Genus,Species")), ",")[[1]])
  if (length(asvs$sequences) == 0) fail("the ASV table has no ASV to classify")
  load_packages("dada2")
  set.seed(seed)  # the bootstrap draws k-mer subsets at random
  res <- assignTaxonomy(asvs$sequences, reference, minBoot = min_boot, tryRC = isTRUE(as.logical(param("try_rc", FALSE))),
                        outputBootstraps = TRUE, taxLevels = levels, multithread = max(1L, as.integer(snakemake@threads)),
                        verbose = TRUE)
  tax <- res$tax
  boot <- res$boot
  out <- data.frame(asv_id = asvs$ids, sequence = asvs$sequences, check.names = FALSE, stringsAsFactors = FALSE)
  for (rank in colnames(tax)) out[[rank]] <- ifelse(is.na(tax[, rank]), "", tax[, rank])
  for (rank in colnames(boot)) out[[paste0("confidence_", rank)]] <- boot[, rank]
  genus <- if ("Genus" %in% colnames(tax)) sum(!is.na(tax[, "Genus"])) else NA
  message(sprintf("%d ASVs classified; %s assigned to a genus", nrow(out), genus))
  utils::write.table(out, snakemake@output[["taxonomy"]], sep = "\t", quote = FALSE, row.names = FALSE)
}

run(main)

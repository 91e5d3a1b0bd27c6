# Pre-ranked gene set enrichment analysis with fgsea (multilevel) (Snakemake script).
#
# Inputs: ranked (tsv/csv: gene id, score; header optional, e.g. the de_rank output) and gene_sets
# (GMT). Ensembl version suffixes are stripped on both sides (a gene listed twice keeps its
# largest |score|). fgsea(eps = 0) with a fixed seed, single process for reproducibility. Output:
# table (tsv) in the bioplan GSEA layout: Term, ES, NES, NOM p-val, FDR q-val (BH), FWER p-val
# (NA: fgsea has none), Tag % (leading edge/set size), Lead_genes (';'-joined), sorted by FDR then
# Term; no testable gene set -> a header-only table. Params: min_size, max_size, seed.

source(file.path(snakemake@scriptdir, "bioplan_step.R"), local = environment())  # the log, fail(), run(), readers

GSEA_COLUMNS <- c("Term", "ES", "NES", "NOM p-val", "FDR q-val", "FWER p-val", "Tag %", "Lead_genes")

empty_gsea <- function() {
  df <- as.data.frame(setNames(replicate(length(GSEA_COLUMNS), character(0), simplify = FALSE), GSEA_COLUMNS),
                      check.names = FALSE)
  df
}

read_ranking <- function(path) {
  lines <- readLines(path, warn = FALSE, encoding = "UTF-8")
  lines <- lines[nzchar(trimws(lines)) & !startsWith(lines, "#")]
  sep <- if (length(lines) && grepl("\t", lines[1], fixed = TRUE)) "\t" else ","
  fields <- strsplit(lines, sep, fixed = TRUE)
  if (any(lengths(fields) < 2)) fail("'", path, "' must have two columns: gene id and ranking score.")
  gene <- strip_version(gsub('"', "", vapply(fields, `[`, character(1), 1)))
  score <- suppressWarnings(as.numeric(vapply(fields, `[`, character(1), 2)))
  if (length(score) && is.na(score[1])) { # header line
    gene <- gene[-1]
    score <- score[-1]
  }
  if (anyNA(score)) fail("'", path, "' has a non-numeric score for gene '", gene[is.na(score)][1], "'.")
  keep <- order(-abs(score), gene, method = "radix")
  keep <- keep[!duplicated(gene[keep])]
  stats <- setNames(score[keep], gene[keep])
  stats[order(-stats, names(stats), method = "radix")]
}

main <- function() {
  stats <- read_ranking(snakemake@input[["ranked"]])
  sets <- read_gmt(snakemake@input[["gene_sets"]])
  load_packages("fgsea")
  out <- snakemake@output[["table"]]
  min_size <- as.integer(param("min_size", 15))
  max_size <- as.integer(param("max_size", 500))
  sizes <- vapply(sets, function(s) sum(s %in% names(stats)), integer(1))
  message(sprintf("%d ranked genes; %d of %d gene sets have %d-%d ranked genes", length(stats),
                  sum(sizes >= min_size & sizes <= max_size), length(sets), min_size, max_size))
  if (!any(sizes >= min_size & sizes <= max_size)) {
    message("WARNING: no gene set within the size limits (id types differ?): writing a header-only table")
    return(write_tsv(empty_gsea(), out))
  }
  score_type <- if (all(stats >= 0)) "pos" else if (all(stats <= 0)) "neg" else "std"
  set.seed(as.integer(param("seed", 42)))
  res <- fgsea(pathways = sets, stats = stats, minSize = min_size, maxSize = max_size, eps = 0,
               scoreType = score_type, nproc = 1)
  table <- data.frame(
    Term = res$pathway, ES = res$ES, NES = res$NES, `NOM p-val` = res$pval, `FDR q-val` = res$padj,
    `FWER p-val` = NA_real_, `Tag %` = paste0(lengths(res$leadingEdge), "/", res$size),
    Lead_genes = vapply(res$leadingEdge, paste, character(1), collapse = ";"),
    check.names = FALSE, stringsAsFactors = FALSE
  )
  table <- table[order(is.na(table[["FDR q-val"]]), table[["FDR q-val"]], table$Term, method = "radix"), , drop = FALSE]
  write_tsv(table, out)
  message(sprintf("%d gene sets tested; %d with FDR < 0.25", nrow(table), sum(table[["FDR q-val"]] < 0.25, na.rm = TRUE)))
}

run(main)

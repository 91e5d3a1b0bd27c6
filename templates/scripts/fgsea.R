# Pre-ranked gene set enrichment analysis with fgsea (multilevel) (Snakemake script).
#
# Inputs: ranked (tsv/csv: gene id, score; header optional, e.g. the de_rank output) and gene_sets
# (GMT). Ensembl version suffixes are stripped on both sides (a gene listed twice keeps its
# largest |score|). fgsea(eps = 0) with a fixed seed, single process for reproducibility. Output:
# table (tsv) in the bioplan GSEA layout: Term, ES, NES, NOM p-val, FDR q-val (BH), FWER p-val
# (NA: fgsea has none), Tag % (leading edge/set size), Lead_genes (';'-joined), sorted by FDR then
# Term; no testable gene set -> a header-only table. Params: min_size, max_size, seed.

# --- shared helpers (each bioplan step script is self-contained) --------------
log_con <- file(snakemake@log[[1]], open = "wt")
sink(log_con)
sink(log_con, type = "message")

# Report a data problem to the log and the terminal, then stop with exit status 1.
fail <- function(...) {
  msg <- paste0(...)
  message("ERROR: ", msg)
  sink(type = "message")
  sink()
  cat("ERROR [", snakemake@rule, "]: ", msg, "\n", sep = "", file = stderr())
  quit(save = "no", status = 1)
}

run <- function(main) {
  withCallingHandlers(
    tryCatch(main(), error = function(e) {
      fail("unexpected error: ", conditionMessage(e), " (details in ", snakemake@log[[1]], ")")
    }),
    warning = function(w) {
      message("WARNING: ", conditionMessage(w))
      invokeRestart("muffleWarning")
    }
  )
  sink(type = "message")
  sink()
  invisible(NULL)
}

param <- function(name, default = NULL) {
  value <- snakemake@params[[name]]
  if (is.null(value) || length(value) == 0) default else value
}

# Tab if the first non-empty line has a tab, else comma if it has one, else tab.
sniff_sep <- function(path) {
  lines <- readLines(path, n = 20, warn = FALSE)
  lines <- lines[nzchar(trimws(lines)) & !startsWith(lines, "#")]
  if (length(lines) == 0) fail("the file '", path, "' is empty.")
  if (grepl("\t", lines[1], fixed = TRUE)) "\t" else if (grepl(",", lines[1], fixed = TRUE)) "," else "\t"
}

# Read a tsv/csv table with a header; every column as text.
read_table <- function(path, what) {
  tab <- tryCatch(
    utils::read.table(path, header = TRUE, sep = sniff_sep(path), quote = "\"", comment.char = "",
                      check.names = FALSE, stringsAsFactors = FALSE, colClasses = "character",
                      na.strings = character(0), strip.white = TRUE, fileEncoding = "UTF-8-BOM"),
    error = function(e) fail("cannot parse the ", what, " file '", path, "' as tsv/csv: ", conditionMessage(e))
  )
  names(tab) <- trimws(names(tab))
  tab
}

write_tsv <- function(df, path) {
  num <- vapply(df, is.double, logical(1))
  df[num] <- lapply(df[num], signif, digits = 6)
  utils::write.table(df, path, sep = "\t", quote = FALSE, row.names = FALSE, na = "NA")
}
# ------------------------------------------------------------------------------

# --- gene lists, identifiers and gene set libraries ------------------------------
LIST_HEADERS <- c("gene_id", "gene_ids", "gene", "genes", "id", "ids", "entrez_id", "entrez", "entrezid",
                  "entrez_gene_id", "gene_symbol", "symbol", "gene_name", "ensembl_gene_id", "ensembl", "ensembl_id", "name",
                  "geneid", "entrezgene", "entrezgene_id", "ncbi_gene_id", "ncbi_id", "ensembl_gene", "hgnc_symbol",
                  "mgi_symbol", "external_gene_name")

# ENSG00000141510.17 -> ENSG00000141510 (GENCODE _PAR_Y ids are left alone)
strip_version <- function(x) sub("^(ENS[A-Z0-9]*[GTP][0-9]{6,})\\.[0-9]+$", "\\1", trimws(x))

# Gene ids from the first column of a list file (header optional), in order, without repeats.
read_gene_list <- function(path) {
  lines <- readLines(path, warn = FALSE, encoding = "UTF-8")
  lines <- sub("^\ufeff", "", lines)
  lines <- lines[nzchar(trimws(lines)) & !startsWith(lines, "#")]
  if (length(lines) == 0) return(character(0))
  sep <- if (grepl("\t", lines[1], fixed = TRUE)) "\t" else ","
  first <- gsub('"', "", trimws(vapply(strsplit(lines, sep, fixed = TRUE), `[`, character(1), 1)))
  if (tolower(first[1]) %in% LIST_HEADERS) first <- first[-1]
  unique(first[!is.na(first) & nzchar(first)])
}

# GMT gene set library -> named list of gene vectors (Ensembl versions stripped).
read_gmt <- function(path) {
  lines <- readLines(path, warn = FALSE, encoding = "UTF-8")
  lines <- lines[nzchar(trimws(lines))]
  fields <- strsplit(lines, "\t", fixed = TRUE)
  short <- which(lengths(fields) < 3)
  if (length(short)) fail("line ", short[1], " of the gene set library '", path, "' is not GMT (name<TAB>description<TAB>genes...).")
  sets <- lapply(fields, function(f) unique(strip_version(f[-(1:2)][nzchar(f[-(1:2)])])))
  names(sets) <- trimws(vapply(fields, `[`, character(1), 1))
  if (length(sets) == 0) fail("the gene set library '", path, "' holds no gene sets.")
  sets
}

# Enrichment table in the bioplan layout (Term, Overlap, P-value, Adjusted P-value, Genes).
empty_enrichment <- function() {
  data.frame(Term = character(0), Overlap = character(0), `P-value` = numeric(0),
             `Adjusted P-value` = numeric(0), Genes = character(0), check.names = FALSE)
}

from_enrich_result <- function(res) {
  df <- if (is.null(res)) NULL else as.data.frame(res)
  if (is.null(df) || nrow(df) == 0) return(empty_enrichment())
  size <- as.integer(sub("/.*", "", df$BgRatio))
  desc <- ifelse(is.na(df$Description), "", as.character(df$Description))
  out <- data.frame(Term = ifelse(desc == df$ID | !nzchar(desc), df$ID, paste(df$ID, desc)),
                    Overlap = paste0(df$Count, "/", size), `P-value` = df$pvalue, `Adjusted P-value` = df$p.adjust,
                    Genes = gsub("/", ";", df$geneID, fixed = TRUE), check.names = FALSE, stringsAsFactors = FALSE)
  out[order(out[["Adjusted P-value"]], out$Term, method = "radix"), , drop = FALSE]
}
# ------------------------------------------------------------------------------


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
  suppressPackageStartupMessages(library(fgsea))
  stats <- read_ranking(snakemake@input[["ranked"]])
  sets <- read_gmt(snakemake@input[["gene_sets"]])
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

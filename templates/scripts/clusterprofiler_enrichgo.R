# GO over-representation with clusterProfiler::enricher on a local GO gene set library
# (Snakemake script). Offline.
#
# Inputs: genes (first column, header optional) and gene_sets (GMT of GO terms, ids of the same
# type as the genes). Ensembl version suffixes are stripped on both sides. Universe: all genes of
# the GMT (enricher's default), as gseapy. Output: table (tsv) with Term, Overlap (hits/term size),
# P-value, Adjusted P-value (BH), Genes (';'-joined), sorted by adjusted p then Term; no enriched
# term -> a header-only table. Params: min_size, max_size.

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


main <- function() {
  suppressPackageStartupMessages(library(clusterProfiler))
  genes <- unique(strip_version(read_gene_list(snakemake@input[["genes"]])))
  sets <- read_gmt(snakemake@input[["gene_sets"]])
  out <- snakemake@output[["table"]]
  term2gene <- data.frame(term = rep(names(sets), lengths(sets)), gene = unlist(sets, use.names = FALSE),
                          stringsAsFactors = FALSE)
  hits <- intersect(genes, term2gene$gene)
  message(sprintf("%d genes, %d in the library of %d gene sets (%d genes)", length(genes), length(hits),
                  length(sets), length(unique(term2gene$gene))))
  if (length(hits) == 0) {
    message("WARNING: no input gene is in the gene set library (id types differ?): writing a header-only table")
    return(write_tsv(empty_enrichment(), out))
  }
  res <- enricher(gene = genes, TERM2GENE = term2gene, pvalueCutoff = 1, qvalueCutoff = 1, pAdjustMethod = "BH",
                  minGSSize = as.integer(param("min_size", 10)), maxGSSize = as.integer(param("max_size", 500)))
  table <- from_enrich_result(res)
  if (nrow(table) == 0) message("WARNING: no enriched term: writing a header-only table")
  write_tsv(table, out)
  message(sprintf("%d terms; %d with adjusted p < 0.05", nrow(table), sum(table[["Adjusted P-value"]] < 0.05)))
}

run(main)

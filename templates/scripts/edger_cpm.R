# TMM-normalised log2 counts per million with edgeR (Snakemake script).
#
# Input: counts (genes x samples raw counts, first column = gene id, tsv/csv; non-numeric columns
# such as gene names are dropped). Output: normalized (tsv, gene_id then one column per sample) with
# edgeR::cpm(log = TRUE, prior.count) after calcNormFactors(method = "TMM"). All genes are kept.
# Params: log (TRUE: log2-CPM, FALSE: CPM), prior_count.

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


suppressPackageStartupMessages(library(edgeR))

main <- function() {
  path <- snakemake@input[["counts"]]
  tab <- read_table(path, "count matrix")
  if (ncol(tab) < 3) fail("'", path, "' needs a gene id column and at least 2 sample columns.")
  genes <- tab[[1]]
  if (anyDuplicated(genes)) fail("gene ids repeat in the first column of '", path, "', e.g. '", genes[duplicated(genes)][1], "'.")
  values <- suppressWarnings(lapply(tab[-1], as.numeric))
  text_cols <- names(values)[vapply(values, function(v) all(is.na(v)), logical(1))]
  if (length(text_cols)) message("WARNING: dropping non-numeric columns: ", toString(text_cols))
  values <- values[setdiff(names(values), text_cols)]
  m <- matrix(unlist(values, use.names = FALSE), nrow = length(genes), dimnames = list(genes, names(values)))
  bad <- is.na(m) | m < 0
  if (any(bad)) {
    at <- which(bad, arr.ind = TRUE)[1, ]
    fail("'", path, "' holds a missing or negative value at gene ", genes[at[1]], ", sample ", colnames(m)[at[2]], ".")
  }
  y <- calcNormFactors(DGEList(counts = m), method = "TMM")
  message(sprintf("%d genes x %d samples; TMM factors: %s", nrow(m), ncol(m), toString(round(y$samples$norm.factors, 4))))
  as_log <- isTRUE(param("log", TRUE))
  out <- cpm(y, log = as_log, prior.count = as.numeric(param("prior_count", 2)))
  write_tsv(data.frame(gene_id = rownames(out), out, check.names = FALSE, stringsAsFactors = FALSE),
            snakemake@output[["normalized"]])
}

run(main)

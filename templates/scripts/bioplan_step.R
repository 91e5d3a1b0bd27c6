# Helpers shared by bioplan's R step scripts (sourced by them, never run on its own).
#
# bioplan copies this file beside the step scripts of every workflow (scripts/ for Snakemake, bin/
# for Nextflow). A script sources it from its own folder, which Snakemake's `script:` gives as
# snakemake@scriptdir (Nextflow's bin/bioplan_run.R sets the same slot):
#
#   source(file.path(snakemake@scriptdir, "bioplan_step.R"), local = environment())
#
# Sourcing it starts the step: R's output and messages go to the rule's log file. One logging
# convention ("ERROR: ...", "WARNING: ..." lines in the log) and one error prefix: fail(...) writes
# the message to the log and "ERROR [rule]: message" to the terminal, then exits with status 1;
# run(main) turns an unexpected R error into the same message and logs every warning.

# --- the log, errors and parameters ----------------------------------------------------------------
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

# Attach the step's R packages without their start-up banners. A step calls it after reading and checking its
# inputs and parameters: a Bioconductor package takes seconds to load (DESeq2, dada2: 10+ CPU seconds, mostly
# S4 method tables), and a bad input should fail at once, not after that wait.
load_packages <- function(...) {
  for (package in c(...)) suppressPackageStartupMessages(library(package, character.only = TRUE))
}

param <- function(name, default = NULL) {
  value <- snakemake@params[[name]]
  if (is.null(value) || length(value) == 0) default else value
}

# The DE tests' lfc_threshold param (log2; 0: the plain test): a number >= 0, or the step fails saying so.
lfc_threshold_param <- function() {
  lfc <- as.numeric(param("lfc_threshold", 0))
  if (!is.finite(lfc) || lfc < 0) fail("lfc_threshold must be a log2 fold change >= 0, not ", param("lfc_threshold", 0), ".")
  lfc
}

# The edgeR normalisation factors' method (calcNormFactors): TMM by default, upperquartile from a request's
# "upper quartile normalisation"; any other value fails saying which are taken.
norm_method_param <- function() {
  method <- as.character(param("norm_method", "TMM"))
  known <- c("TMM", "TMMwsp", "RLE", "upperquartile")
  if (length(method) != 1 || !(method %in% known)) fail("norm_method must be one of ", toString(known), ", not ", toString(method), ".")
  method
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

# --- gene lists, identifiers and gene set libraries ------------------------------------------------
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

# --- differential expression inputs (the R DE scripts) --------------------------------------------
REFERENCE_NAMES <- c("control", "ctrl", "untreated", "wt", "wildtype", "wild_type", "normal", "vehicle", "mock")

read_samples <- function(path, condition) {
  meta <- read_table(path, "sample metadata")
  hit <- which(tolower(names(meta)) == "sample")
  if (length(hit) == 0) {
    fail("the sample metadata '", path, "' has no 'sample' column (columns: ", toString(names(meta)),
         "). Name the column holding the sample names 'sample'.")
  }
  if (!condition %in% names(meta)) {
    fail("the sample metadata '", path, "' has no column '", condition, "' (columns: ", toString(names(meta)),
         "). Set params.condition_column to the column holding the groups.")
  }
  names(meta)[hit[1]] <- "sample"
  if (anyDuplicated(meta$sample)) fail("sample names repeat in '", path, "': ", toString(unique(meta$sample[duplicated(meta$sample)])), ".")
  empty <- meta$sample[meta[[condition]] == ""]
  if (length(empty)) fail("samples ", toString(empty), " have no value in column '", condition, "' of '", path, "'.")
  meta
}

read_counts <- function(path, samples) {
  tab <- read_table(path, "count matrix")
  missing <- setdiff(samples, names(tab)[-1])
  if (length(missing)) {
    fail("samples ", toString(missing), " of the sample metadata are not columns of the count matrix '", path,
         "' (its columns: ", toString(names(tab)[-1]), "). Sample names must match exactly.")
  }
  extra <- setdiff(names(tab)[-1], samples)
  if (length(extra)) message("WARNING: ignoring count matrix columns not in the sample metadata: ", toString(extra))
  genes <- tab[[1]]
  if (anyDuplicated(genes)) fail("gene ids repeat in the first column of '", path, "', e.g. '", genes[duplicated(genes)][1], "'.")
  m <- suppressWarnings(vapply(samples, function(s) as.numeric(tab[[s]]), numeric(nrow(tab))))
  m <- matrix(m, nrow = nrow(tab), dimnames = list(genes, samples))
  fractional <- !is.na(m) & abs(m - round(m)) > 1e-6
  bad <- is.na(m) | m < 0 | fractional
  if (any(fractional) && !any(is.na(m) | m < 0)) {
    est <- estimated_counts(m, path)
    if (est$estimated) {  # DESeq2's advice for estimated counts (nf-core/differentialabundance rounds them too)
      message("WARNING: ", sum(fractional), " non-integer values read as estimated counts (", est$why,
              "): rounded to whole numbers")
      m <- round(m)
      bad <- is.na(m)
    }
  }
  if (any(bad)) {
    at <- which(bad, arr.ind = TRUE)[1, ]
    fail("'", path, "' holds a value that is not a raw count: gene ", genes[at[1]], ", sample ", samples[at[2]],
         ", value '", tab[[samples[at[2]]]][at[1]], "'. Count-based DE needs non-negative integer counts ",
         "(featureCounts, STAR, HTSeq) or estimated counts (tximport's, nf-core/rnaseq's ",
         "salmon.merged.gene_counts.tsv), not TPM/FPKM/normalized values.")
  }
  storage.mode(m) <- "integer"
  m
}

# Every column summing to a whole number of reads (each estimate rounded to 3 decimals: within 0.01 + 3 sqrt(n)
# 0.0003), with enough columns that TPM/FPKM would by a chance under 1e-3: tximport's length-scaled or scaled counts
# under a name that says nothing (the sniffer's columns.read_totals). NULL when not.
read_totals <- function(sums, n_rows) {
  tolerance <- 0.01 + 3 * sqrt(n_rows) * 0.0003
  if (length(sums) < 2 || min(sums) < 1000 || (2 * tolerance)^length(sums) > 1e-3) return(NULL)
  if (any(abs(sums - round(sums)) > tolerance)) return(NULL)
  "every sample column sums to a whole number of reads (tximport's length-scaled or scaled counts)"
}

# The compiler's rule (compiler/bioplan/request/sniffers/columns.py estimated_counts), at run time: a matrix of
# non-negative values, some not whole, holds estimated read counts (Salmon/kallisto/RSEM summed per gene by
# tximport: nf-core/rnaseq's salmon.merged.gene_counts.tsv), which count-based DE takes rounded, or normalised
# values (TPM/CPM/FPKM, log values, size-factor normalised counts). list(estimated, why).
estimated_counts <- function(m, path) {
  stem <- tolower(basename(path))
  said <- regmatches(stem, regexpr("tpm|fpkm|rpkm|cpm|normali[sz]|vst|rlog|log2|log10|zscore|z_score|voom", stem))
  if (length(said)) return(list(estimated = FALSE, why = paste0("the file name says '", said, "'")))
  top <- max(m)
  if (top < 100) return(list(estimated = FALSE, why = sprintf("values only up to %g: log-scale or normalised values", top)))
  if (all(abs(colSums(m) - 1e6) <= 1e4)) return(list(estimated = FALSE, why = "every sample column sums to a million: TPM or CPM"))
  for (j in seq_len(ncol(m))) {
    nonzero <- m[m[, j] > 0, j]
    unit <- if (length(nonzero) >= 20) min(nonzero) else 0
    if (unit >= 0.01 && abs(unit - round(unit)) > 0.05 && mean(abs(nonzero / unit - round(nonzero / unit)) <= 0.02) >= 0.95) {
      return(list(estimated = FALSE, why = sprintf("column '%s' holds whole multiples of %g: size-factor normalised counts",
                                                   colnames(m)[j], unit)))
    }
  }
  if (grepl("count|numreads", stem)) return(list(estimated = TRUE, why = paste0("the file name '", stem, "' says counts")))
  totals <- read_totals(colSums(m), nrow(m))
  if (!is.null(totals)) return(list(estimated = TRUE, why = totals))
  nonzero <- m[m > 0]
  fractional <- sum(abs(nonzero - round(nonzero)) > 0.01)
  whole <- 1 - fractional / length(nonzero)
  if (fractional >= 10 && whole >= 0.5) {
    return(list(estimated = TRUE, why = sprintf("%.0f%% of the non-zero values are whole numbers", 100 * whole)))
  }
  list(estimated = FALSE, why = if (fractional >= 10) sprintf("only %.0f%% of the non-zero values are whole numbers", 100 * whole)
                                else sprintf("%d fractional value(s) among whole numbers", fractional))
}

# Numeric columns of gene annotation, not samples (a gene's Length, a featureCounts Start/End, GC content): the
# sniffer's rule (compiler/bioplan/request/sniffers/columns.py ANNOTATION_NUMBER_COLUMNS), by the whole name.
ANNOTATION_NUMBER_COLUMNS <- c("length", "gene_length", "effective_length", "efflength", "start", "end", "strand",
                               "chr", "chrom", "width", "gc", "gc_content")
annotation_column <- function(names) {
  normed <- gsub("[ -]", "_", tolower(trimws(gsub('"', "", names, fixed = TRUE))))
  normed %in% ANNOTATION_NUMBER_COLUMNS
}

# A features x samples matrix of raw counts without a sample sheet (first column = gene or peak id):
# at least 2 sample columns, unique ids, non-numeric columns (gene names) dropped with a warning and numeric
# annotation columns (Length, Start, End, GC: annotation_column) with a message, no
# missing or negative value (`why` ends that error: what the step needs the counts for).
read_count_table <- function(path, why = "") {
  tab <- read_table(path, "count matrix")
  if (ncol(tab) < 3) fail("'", path, "' needs a gene id column and at least 2 sample columns.")
  genes <- tab[[1]]
  if (anyDuplicated(genes)) fail("gene ids repeat in the first column of '", path, "', e.g. '", genes[duplicated(genes)][1], "'.")
  values <- suppressWarnings(lapply(tab[-1], as.numeric))
  text_cols <- names(values)[vapply(values, function(v) all(is.na(v)), logical(1))]
  if (length(text_cols)) message("WARNING: dropping non-numeric columns: ", toString(text_cols))
  values <- values[setdiff(names(values), text_cols)]
  annotation <- names(values)[annotation_column(names(values))]
  if (length(annotation)) message("dropping numeric annotation columns (not samples): ", toString(annotation))
  values <- values[setdiff(names(values), annotation)]
  if (length(values) < 2) fail("'", path, "' needs at least 2 sample columns besides annotation columns.")
  m <- matrix(unlist(values, use.names = FALSE), nrow = length(genes), dimnames = list(genes, names(values)))
  bad <- is.na(m) | m < 0
  if (any(bad)) {
    at <- which(bad, arr.ind = TRUE)[1, ]
    fail("'", path, "' holds a missing or negative value at gene ", genes[at[1]], ", sample ", colnames(m)[at[2]],
         why, ".")
  }
  m
}

# the level `value` names in any case or spelling of its letters and digits ('wt' is 'WT', 'wild type' is 'wild_type')
same_level <- function(value, levels) {
  if (is.null(value) || value %in% levels) return(value)
  key <- function(x) gsub("[^a-z0-9]", "", tolower(x))
  hits <- levels[key(levels) == key(value)]
  if (length(hits) == 1) hits else value
}

# Levels a reader takes for one group ('control', 'Control', 'control' + a zero-width space) are refused: compared
# as different groups, a sample the sheet shows as 'control' was silently not one (the compile-time check,
# request/same_names.py, also folds lookalike letters and Unicode forms; this one guards a sheet edited later).
distinct_levels <- function(levels) {
  key <- tolower(trimws(gsub("\\p{Cf}", "", levels, perl = TRUE)))
  same <- key %in% key[duplicated(key)]
  if (any(same)) {
    fail("levels of the condition column differ only in letter case or characters that draw nothing: ",
         toString(sprintf("'%s' (%d characters)", levels[same], nchar(levels[same]))),
         "; write each group's level the same way in the sample sheet.")
  }
  levels
}

choose_levels <- function(levels, reference, test) {
  levels <- distinct_levels(sort(unique(levels), method = "radix"))
  if (length(levels) < 2) fail("the condition column has a single level (", toString(levels), "); two groups are needed.")
  reference <- same_level(reference, levels)
  test <- same_level(test, levels)
  if (is.null(reference)) {
    named <- levels[tolower(levels) %in% REFERENCE_NAMES]
    reference <- if (length(named)) named[1] else levels[1]
  } else if (!reference %in% levels) {
    fail("reference_level '", reference, "' is not a level of the condition column (", toString(levels), ").")
  }
  others <- setdiff(levels, reference)
  if (is.null(test)) {
    test <- others[1]
    if (length(others) > 1) message("WARNING: several levels (", toString(others), "); comparing '", test, "' against '", reference, "' (set params.test_level)")
  } else if (!test %in% others) {
    fail("test_level '", test, "' is not a non-reference level of the condition column (", toString(others), ").")
  }
  # formula-safe codes: the reference is the first factor level
  codes <- setNames(paste0("g", seq_along(levels)), c(reference, setdiff(levels, reference)))
  list(reference = reference, test = test, codes = codes)
}

de_inputs <- function() {
  condition <- param("condition_column", "condition")
  meta <- read_samples(snakemake@input[["samples"]], condition)
  counts <- read_counts(snakemake@input[["counts"]], meta$sample)
  lv <- choose_levels(meta[[condition]], param("reference_level"), param("test_level"))
  group <- factor(lv$codes[meta[[condition]]], levels = unname(lv$codes))
  message(sprintf("%d genes x %d samples; contrast %s: %s vs %s", nrow(counts), ncol(counts), condition, lv$test, lv$reference))
  list(counts = counts, group = group, lv = lv, test_code = unname(lv$codes[lv$test]))
}

write_de_table <- function(df, path, alpha = 0.05) {
  df <- df[order(is.na(df$padj), df$padj, df$gene_id, method = "radix"), , drop = FALSE]
  write_tsv(df, path)
  sig <- !is.na(df$padj) & df$padj < alpha
  message(sprintf("%d genes with padj < %g (%d up, %d down)", sum(sig), alpha,
                  sum(sig & df$log2FoldChange > 0), sum(sig & df$log2FoldChange < 0)))
}

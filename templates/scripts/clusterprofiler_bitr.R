# Convert a gene list to Entrez Gene ids with clusterProfiler::bitr and an org.*.eg.db package
# (Snakemake script). Runs offline once the OrgDb package is installed.
#
# Input: genes (first column, header optional; Ensembl versions stripped); no mapping table (the
# OrgDb package is the mapping). Output: entrez, a tsv with the header `entrez_id`,
# in input order without repeats. Unmapped ids are listed in the log; nothing mapped is an error.
# Params: organism (scientific name, set by the template from the plan's organism), orgdb (NULL:
# chosen from the organism, e.g. org.Hs.eg.db / org.Mm.eg.db), from_type (NULL: ENSEMBL when
# the ids look like Ensembl ids, ENTREZID when they are integers, else SYMBOL).

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


ORGDB <- c(
  "Homo sapiens" = "org.Hs.eg.db", "Mus musculus" = "org.Mm.eg.db", "Rattus norvegicus" = "org.Rn.eg.db",
  "Danio rerio" = "org.Dr.eg.db", "Drosophila melanogaster" = "org.Dm.eg.db",
  "Caenorhabditis elegans" = "org.Ce.eg.db", "Saccharomyces cerevisiae" = "org.Sc.sgd.db",
  "Arabidopsis thaliana" = "org.At.tair.db", "Gallus gallus" = "org.Gg.eg.db", "Bos taurus" = "org.Bt.eg.db",
  "Sus scrofa" = "org.Ss.eg.db", "Canis lupus familiaris" = "org.Cf.eg.db", "Macaca mulatta" = "org.Mmu.eg.db"
)

write_entrez <- function(ids, path) {
  utils::write.table(data.frame(entrez_id = ids), path, sep = "\t", quote = FALSE, row.names = FALSE)
}

main <- function() {
  organism <- param("organism")
  orgdb <- param("orgdb")
  if (is.null(orgdb)) {
    if (is.null(organism) || !organism %in% names(ORGDB)) {
      fail("no OrgDb package known for organism '", if (is.null(organism)) "unknown" else organism,
           "'. Set params.orgdb in config.yaml to an installed org.*.eg.db package, or give a gene id mapping table.")
    }
    orgdb <- ORGDB[[organism]]
  }
  if (!requireNamespace(orgdb, quietly = TRUE)) {
    fail("the annotation package ", orgdb, " is not installed. Install it (conda: bioconductor-", tolower(orgdb),
         "; R: BiocManager::install('", orgdb, "')) or give a gene id mapping table.")
  }
  suppressPackageStartupMessages(library(clusterProfiler))
  genes <- strip_version(read_gene_list(snakemake@input[["genes"]]))
  genes <- unique(genes)
  out <- snakemake@output[["entrez"]]
  if (length(genes) == 0) {
    message("WARNING: the input gene list is empty: writing a header-only Entrez list")
    return(write_entrez(character(0), out))
  }
  from_type <- param("from_type")
  if (is.null(from_type)) {
    from_type <- if (all(grepl("^ENS[A-Z0-9]*G[0-9]+$", genes))) "ENSEMBL" else if (all(grepl("^[0-9]+$", genes))) "ENTREZID" else "SYMBOL"
  }
  message(sprintf("%d ids, %s -> ENTREZID with %s", length(genes), from_type, orgdb))
  if (from_type == "ENTREZID") return(write_entrez(genes, out))
  db <- getExportedValue(orgdb, orgdb)
  mapped <- tryCatch(
    suppressWarnings(bitr(genes, fromType = from_type, toType = "ENTREZID", OrgDb = db)),
    error = function(e) NULL
  )
  if (is.null(mapped) || nrow(mapped) == 0) {
    fail("none of the ", length(genes), " ids (e.g. ", toString(head(genes, 3)), ") maps from ", from_type,
         " to Entrez with ", orgdb, ". Check the organism and the id type (params.from_type).")
  }
  mapped <- mapped[order(match(mapped[[from_type]], genes), as.integer(mapped$ENTREZID)), , drop = FALSE]
  unmapped <- setdiff(genes, mapped[[from_type]])
  message(sprintf("%d of %d ids mapped to %d Entrez ids", length(genes) - length(unmapped), length(genes),
                  length(unique(mapped$ENTREZID))))
  if (length(unmapped)) message("WARNING: ", length(unmapped), " unmapped ids: ", toString(head(unmapped, 50)))
  write_entrez(unique(mapped$ENTREZID), out)
}

run(main)

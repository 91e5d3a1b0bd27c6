# Gene-level raw count matrix from per-sample Salmon outputs with tximport.
#
# Inputs:  quants     - Salmon output directories (one per sample, each with quant.sf)
#          annotation - GTF giving transcript_id -> gene_id (the tx2gene table)
# Params:  samples (column names, same order as quants), counts_from_abundance,
#          ignore_tx_version, ignore_after_bar
# Output:  counts     - TSV, genes x samples, `gene_id` first column, estimated counts
#                       rounded to integers (raw counts for DESeq2/edgeR), genes sorted.

log_con <- file(snakemake@log[[1]], open = "wt")
sink(log_con)
sink(log_con, type = "message")

fail <- function(...) {
    msg <- paste0(...)
    message("ERROR: ", msg)
    sink(type = "message")
    sink()
    cat("ERROR: ", msg, "\n", sep = "", file = stderr())
    quit(save = "no", status = 1)
}

suppressPackageStartupMessages(library(tximport))

quant_dirs <- unlist(snakemake@input[["quants"]])
gtf <- snakemake@input[["annotation"]]
samples <- unlist(snakemake@params[["samples"]])
if (is.null(samples)) samples <- basename(dirname(quant_dirs))
if (length(samples) != length(quant_dirs)) {
    fail(length(quant_dirs), " Salmon directories but ", length(samples),
         " sample names: the `samples` param must name every input, in order.")
}
files <- file.path(quant_dirs, "quant.sf")
names(files) <- samples
missing <- files[!file.exists(files)]
if (length(missing) > 0) {
    fail("no quant.sf in ", paste(dirname(missing), collapse = ", "),
         ": these are not Salmon output directories (rerun salmon quant).")
}

message("reading transcript -> gene pairs from ", gtf)
cols <- rep("NULL", 9)
cols[c(3, 9)] <- "character"
ann <- tryCatch(
    read.table(gzfile(gtf), sep = "\t", quote = "", comment.char = "#",
               colClasses = cols, col.names = paste0("V", 1:9), fill = TRUE),
    error = function(e) fail("cannot read ", gtf, " as a GTF: ", conditionMessage(e))
)
has_tx <- grepl('transcript_id "', ann$V9, fixed = TRUE) & grepl('gene_id "', ann$V9, fixed = TRUE)
if (!any(has_tx)) {
    fail(gtf, " has no records with both transcript_id and gene_id attributes: ",
         "tximport needs a GTF (GFF3 is not supported by this step).")
}
attrs <- ann$V9[has_tx]
tx2gene <- unique(data.frame(
    tx = sub('.*transcript_id "([^"]+)".*', "\\1", attrs),
    gene = sub('.*gene_id "([^"]+)".*', "\\1", attrs),
    stringsAsFactors = FALSE
))
message(nrow(tx2gene), " transcripts in ", length(unique(tx2gene$gene)), " genes")

txi <- tryCatch(
    tximport(files, type = "salmon", tx2gene = tx2gene,
             countsFromAbundance = snakemake@params[["counts_from_abundance"]],
             ignoreTxVersion = isTRUE(as.logical(snakemake@params[["ignore_tx_version"]])),
             ignoreAfterBar = isTRUE(as.logical(snakemake@params[["ignore_after_bar"]]))),
    error = function(e) fail("tximport failed: ", conditionMessage(e),
                             " (do the transcript ids of the Salmon index match the GTF's",
                             " transcript_id? set ignore_tx_version: true for versioned ids)")
)
counts <- round(txi$counts)
storage.mode(counts) <- "integer"
counts <- counts[order(rownames(counts)), , drop = FALSE]
out <- data.frame(gene_id = rownames(counts), counts, check.names = FALSE)
write.table(out, snakemake@output[["counts"]], sep = "\t", quote = FALSE, row.names = FALSE)
message("wrote ", nrow(out), " genes x ", ncol(counts), " samples")

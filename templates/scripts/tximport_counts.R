# Gene-level raw count matrix from per-sample quantifier outputs with tximport.
#
# Inputs:  quants     - one per sample: a Salmon/Sailfish folder or its quant.sf, a kallisto folder
#                       or its abundance.tsv (abundance.h5 needs rhdf5), or RSEM's
#                       PREFIX.genes.results / PREFIX.isoforms.results (or a folder holding them)
#          annotation - GTF giving transcript_id -> gene_id, or a tx2gene table (transcript id,
#                       gene id; CSV/TSV, header optional)
# Params:  samples (column names, same order as quants), counts_from_abundance,
#          ignore_tx_version, ignore_after_bar
# Output:  counts     - TSV, genes x samples, `gene_id` first column, estimated counts
#                       rounded to integers (raw counts for DESeq2/edgeR), genes sorted.

source(file.path(snakemake@scriptdir, "bioplan_step.R"), local = environment())  # the log, fail(), run(), readers

quant_paths <- unlist(snakemake@input[["quants"]])
gtf <- snakemake@input[["annotation"]]
samples <- unlist(snakemake@params[["samples"]])
if (is.null(samples)) {
    samples <- ifelse(dir.exists(quant_paths), basename(quant_paths), basename(dirname(quant_paths)))
}
if (length(samples) != length(quant_paths)) {
    fail(length(quant_paths), " quantification outputs but ", length(samples),
         " sample names: the `samples` param must name every input, in order.")
}
if (anyDuplicated(samples)) {
    fail("sample name(s) ", paste(unique(samples[duplicated(samples)]), collapse = ", "),
         " given to more than one quantification output: each sample once.")
}

# the file tximport reads for one output (a folder or the file itself)
quant_file <- function(path) {
    if (!dir.exists(path)) return(path)
    # gzipped tables as archived folders keep them (tximportData's salmon/<sample>/quant.sf.gz)
    for (name in c("quant.sf", "quant.sf.gz", "abundance.tsv", "abundance.tsv.gz", "abundance.h5")) {
        if (file.exists(file.path(path, name))) return(file.path(path, name))
    }
    res <- sort(list.files(path, pattern = "\\.(genes|isoforms)\\.results(\\.gz)?$"))
    genes <- res[grepl("\\.genes\\.results(\\.gz)?$", res)]
    if (length(res) > 0) return(file.path(path, if (length(genes) > 0) genes[1] else res[1]))
    fail(path, " holds no quant.sf, abundance.tsv, abundance.h5 or RSEM *.results: not a Salmon, ",
         "kallisto or RSEM output folder (rerun the quantification for this sample).")
}
# tximport's `type` from the file's columns
quant_type <- function(file) {
    if (grepl("\\.h5$", file)) return("kallisto")
    con <- if (grepl("\\.gz$", file)) gzfile(file) else file(file)
    lines <- readLines(con, n = 200)
    close(con)
    header <- strsplit(lines[!startsWith(lines, "#")][1], "\t")[[1]]
    if (all(c("Name", "NumReads") %in% header)) return("salmon")
    if ("target_id" %in% header && "est_counts" %in% header) return("kallisto")
    if ("expected_count" %in% header && header[1] == "gene_id") return("rsem")
    if ("expected_count" %in% header && header[1] == "transcript_id") return("rsem_isoforms")
    fail(file, ": not a quantifier output tximport reads (header ", paste(head(header, 6), collapse = " "),
         "); Sailfish <= 0.6 outputs are read by the salmon_to_gene_counts tool instead.")
}
files <- vapply(quant_paths, quant_file, "")
missing <- files[!file.exists(files)]
if (length(missing) > 0) {
    fail("no quantification output at ", paste(missing, collapse = ", "), " (rerun the quantification).")
}
names(files) <- samples
types <- unique(vapply(files, quant_type, ""))
if (length(types) > 1) {
    fail("the samples come from different quantifiers (", paste(types, collapse = ", "),
         "): tximport reads one kind at a time.")
}

is_gtf <- function(path) {
    con <- if (grepl("\\.gz$", path)) gzfile(path) else file(path)
    lines <- readLines(con, n = 200)
    close(con)
    body <- lines[!startsWith(lines, "#") & nzchar(lines)]
    fields <- strsplit(body[1], "\t")[[1]]
    length(fields) == 9 && grepl("^[0-9]+$", fields[4])
}

if (is_gtf(gtf)) {
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
             "tximport needs a GTF or a tx2gene table (GFF3 is not supported by this step).")
    }
    attrs <- ann$V9[has_tx]
    tx2gene <- unique(data.frame(
        tx = sub('.*transcript_id "([^"]+)".*', "\\1", attrs),
        gene = sub('.*gene_id "([^"]+)".*', "\\1", attrs),
        stringsAsFactors = FALSE
    ))
} else {
    message("reading the tx2gene table ", gtf)
    first <- readLines(if (grepl("\\.gz$", gtf)) gzfile(gtf) else gtf, n = 1)
    sep <- if (grepl("\t", first)) "\t" else ","
    tab <- read.table(gtf, sep = sep, header = FALSE, quote = "\"", comment.char = "#",
                      colClasses = "character", fill = TRUE)
    tx_headers <- c("txname", "tx_name", "tx_id", "txid", "transcript_id", "transcriptid", "transcript",
                    "transcript_name", "ensembl_transcript_id", "transcript_stable_id", "target_id", "tx", "name")
    if (tolower(gsub(" ", "_", tab[1, 1])) %in% tx_headers) tab <- tab[-1, , drop = FALSE]
    tx2gene <- unique(data.frame(tx = tab[[1]], gene = tab[[2]], stringsAsFactors = FALSE))
}
message(nrow(tx2gene), " transcripts in ", length(unique(tx2gene$gene)), " genes")

load_packages("tximport")
type <- types[1]
tx_in <- type == "rsem_isoforms"
if (tx_in) type <- "rsem"
txi <- tryCatch(
    tximport(files, type = type, tx2gene = if (type == "rsem" && !tx_in) NULL else tx2gene,
             txIn = type != "rsem" || tx_in, txOut = FALSE,
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

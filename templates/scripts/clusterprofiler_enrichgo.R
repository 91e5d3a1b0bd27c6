# GO over-representation with clusterProfiler::enricher on a local GO gene set library
# (Snakemake script). Offline.
#
# Inputs: genes (first column, header optional) and gene_sets (GMT of GO terms, ids of the same
# type as the genes). Ensembl version suffixes are stripped on both sides. Universe: all genes of
# the GMT (enricher's default), as gseapy. Output: table (tsv) with Term, Overlap (hits/term size),
# P-value, Adjusted P-value (BH), Genes (';'-joined), sorted by adjusted p then Term; no enriched
# term -> a header-only table. Params: min_size, max_size.

source(file.path(snakemake@scriptdir, "bioplan_step.R"), local = environment())  # the log, fail(), run(), readers

main <- function() {
  genes <- unique(strip_version(read_gene_list(snakemake@input[["genes"]])))
  sets <- read_gmt(snakemake@input[["gene_sets"]])
  load_packages("clusterProfiler")
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

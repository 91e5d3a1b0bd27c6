# KEGG pathway over-representation with clusterProfiler::enrichKEGG (Snakemake script).
#
# NEEDS THE NETWORK: enrichKEGG downloads the current KEGG pathway annotation of the organism
# (KEGG REST API) at run time; the gene_sets input (GMT) is not used (use gseapy_enrich_kegg
# for an offline run on a local KEGG GMT). Inputs: genes (Entrez ids, first column, header
# optional). Output: table (tsv) with Term ("<pathway id> <name>"), Overlap (hits/pathway size),
# P-value, Adjusted P-value (BH), Genes (';'-joined Entrez ids), sorted by adjusted p then Term;
# no enriched pathway -> a header-only table. Universe: all genes with a KEGG annotation.
# Params: organism_kegg (KEGG code, set by the template from the plan's organism; e.g. hsa, mmu),
# kegg_organism (overrides it), min_size, max_size.

source(file.path(snakemake@scriptdir, "bioplan_step.R"), local = environment())  # the log, fail(), run(), readers

main <- function() {
  code <- param("kegg_organism", param("organism_kegg"))
  if (is.null(code) || !nzchar(code)) {
    fail("no KEGG organism code (e.g. hsa, mmu): the plan has no organism. Set params.kegg_organism in config.yaml.")
  }
  genes <- read_gene_list(snakemake@input[["genes"]])
  load_packages("clusterProfiler")
  out <- snakemake@output[["table"]]
  message(sprintf("%d genes; KEGG organism %s; the gene set library input is not used (online KEGG)", length(genes), code))
  if (length(genes) == 0) {
    message("WARNING: the gene list is empty: writing a header-only table")
    return(write_tsv(empty_enrichment(), out))
  }
  res <- tryCatch(
    enrichKEGG(gene = genes, organism = code, keyType = "kegg", pvalueCutoff = 1, qvalueCutoff = 1,
               pAdjustMethod = "BH", minGSSize = as.integer(param("min_size", 10)),
               maxGSSize = as.integer(param("max_size", 500))),
    error = function(e) {
      fail("enrichKEGG failed: ", conditionMessage(e), ". It needs internet access to rest.kegg.jp; offline, use ",
           "gseapy_enrich_kegg with a local KEGG GMT.")
    }
  )
  table <- from_enrich_result(res)
  if (nrow(table) == 0) message("WARNING: no KEGG pathway overlaps the gene list: writing a header-only table")
  write_tsv(table, out)
  message(sprintf("%d pathways; %d with adjusted p < 0.05", nrow(table), sum(table[["Adjusted P-value"]] < 0.05)))
}

run(main)

# Convert a gene list to Entrez Gene ids with clusterProfiler::bitr and an org.*.eg.db package
# (Snakemake script). Runs offline once the OrgDb package is installed.
#
# Input: genes (first column, header optional; Ensembl versions stripped); no mapping table (the
# OrgDb package is the mapping). Output: entrez, a tsv with the header `entrez_id`,
# in input order without repeats. Unmapped ids are listed in the log; nothing mapped is an error.
# Params: organism (scientific name, set by the template from the plan's organism), orgdb (NULL:
# chosen from the organism, e.g. org.Hs.eg.db / org.Mm.eg.db), from_type (NULL: ENSEMBL when
# the ids look like Ensembl ids, ENTREZID when they are integers, else SYMBOL).

source(file.path(snakemake@scriptdir, "bioplan_step.R"), local = environment())  # the log, fail(), run(), readers

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
  genes <- strip_version(read_gene_list(snakemake@input[["genes"]]))
  load_packages("clusterProfiler")
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

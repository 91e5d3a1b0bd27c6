# Differential abundance of taxa between two groups with ALDEx2 (Monte-Carlo CLR, Welch + Wilcoxon).
#
# Snakemake `script:` step of tool `aldex2` (operation differential_abundance).
#
# input$table    taxa x samples count table (tsv/csv): sample columns are the columns named like
#                the samples of the sheet; taxon id = `taxid` column if present, else the first
#                column; a `name` column is carried along
# input$samples  sample sheet (tsv/csv): `sample` column (else the first) and the condition column
# output$table   TSV: taxid, name, group_a, group_b, rab_all, rab_win_a, rab_win_b, diff_btw,
#                diff_win, effect, overlap, we_ep, we_eBH, wi_ep, wi_eBH; sorted by we_eBH, we_ep, id
# params         condition_column, group_a (reference; "" = first level sorted), group_b,
#                mc_samples (128), min_prevalence (0.1), seed (1)
#
# effect/diff_btw are group_b minus group_a (positive = relatively more abundant in group_b).

source(file.path(snakemake@scriptdir, "bioplan_step.R"), local = environment())  # the log, fail(), run(), readers

read_any <- function(path, what) {
    first <- readLines(path, n = 2, warn = FALSE)
    # `biom convert --to-tsv` writes one comment line above its '#OTU ID' header
    skip <- if (startsWith(first[1], "# Constructed from biom file")) 1 else 0
    first <- first[skip + 1]
    n_tab <- lengths(regmatches(first, gregexpr("\t", first, fixed = TRUE)))
    n_comma <- lengths(regmatches(first, gregexpr(",", first, fixed = TRUE)))
    sep <- if (n_tab >= n_comma) "\t" else ","
    tryCatch(
        read.table(path, sep = sep, header = TRUE, check.names = FALSE, quote = "\"", skip = skip,
                   comment.char = "", stringsAsFactors = FALSE, colClasses = "character"),
        error = function(e) fail("cannot read the ", what, " ", path, ": ", conditionMessage(e))
    )
}

p <- snakemake@params
condition <- if (is.null(p[["condition_column"]]) || p[["condition_column"]] == "") "condition" else p[["condition_column"]]
group_a <- if (is.null(p[["group_a"]])) "" else as.character(p[["group_a"]])
group_b <- if (is.null(p[["group_b"]])) "" else as.character(p[["group_b"]])
mc_samples <- as.integer(p[["mc_samples"]])
min_prevalence <- as.numeric(p[["min_prevalence"]])
seed <- as.integer(p[["seed"]])
if (is.na(mc_samples) || is.na(min_prevalence) || is.na(seed)) {
    fail("params.aldex2.mc_samples, min_prevalence and seed must be numbers (config.yaml)")
}

table_path <- snakemake@input[["table"]]
samples_path <- snakemake@input[["samples"]]
meta <- read_any(samples_path, "sample sheet")
id_col <- if ("sample" %in% colnames(meta)) "sample" else colnames(meta)[1]
if (!(condition %in% colnames(meta))) {
    fail("the sample sheet ", samples_path, " has no column '", condition, "'; set params.aldex2.condition_column")
}
meta <- data.frame(sample = trimws(meta[[id_col]]), group = trimws(meta[[condition]]), stringsAsFactors = FALSE)

counts_df <- read_any(table_path, "abundance table")
sample_cols <- colnames(counts_df)[colnames(counts_df) %in% meta$sample]
if (length(sample_cols) == 0) {
    fail("no column of ", table_path, " is named like a sample of ", samples_path)
}
id_column <- if ("taxid" %in% colnames(counts_df)) "taxid" else colnames(counts_df)[1]

levels_present <- sort(unique(meta$group[meta$sample %in% sample_cols]))
if (group_a == "" && group_b == "") {
    if (length(levels_present) != 2) {
        fail("column '", condition, "' has ", length(levels_present), " groups (", paste(levels_present, collapse = ", "),
             "); set params.aldex2.group_a and group_b")
    }
    group_a <- levels_present[1]
    group_b <- levels_present[2]
} else if (group_b == "") {
    others <- setdiff(levels_present, group_a)
    if (length(others) != 1) fail("set params.aldex2.group_b; groups other than '", group_a, "': ", paste(others, collapse = ", "))
    group_b <- others
} else if (group_a == "") {
    others <- setdiff(levels_present, group_b)
    if (length(others) != 1) fail("set params.aldex2.group_a; groups other than '", group_b, "': ", paste(others, collapse = ", "))
    group_a <- others
}
for (g in c(group_a, group_b)) {
    if (!(g %in% levels_present)) fail("group '", g, "' is not a value of column '", condition, "'")
}
in_a <- sort(sample_cols[sample_cols %in% meta$sample[meta$group == group_a]])
in_b <- sort(sample_cols[sample_cols %in% meta$sample[meta$group == group_b]])
if (length(in_a) < 2 || length(in_b) < 2) {
    fail("each group needs at least 2 samples: '", group_a, "' has ", length(in_a), ", '", group_b, "' has ", length(in_b))
}
used <- c(in_a, in_b)

counts <- suppressWarnings(apply(as.matrix(counts_df[, used, drop = FALSE]), 2, as.numeric))
counts <- matrix(counts, ncol = length(used), dimnames = list(NULL, used))
if (any(is.na(counts)) || any(counts < 0)) fail(table_path, ": counts must be non-negative numbers")
counts <- round(counts)
prevalence <- rowMeans(counts > 0)
keep <- prevalence >= min_prevalence & rowSums(counts) > 0
if (sum(keep) < 2) fail("fewer than 2 taxa pass min_prevalence = ", min_prevalence)
ids <- as.character(counts_df[[id_column]])[keep]
reads <- as.data.frame(counts[keep, , drop = FALSE])
rownames(reads) <- make.unique(ids)
conds <- factor(c(rep(group_a, length(in_a)), rep(group_b, length(in_b))), levels = c(group_a, group_b))
message(sprintf("%d taxa kept, %d samples (%s: %d, %s: %d), %d Monte-Carlo instances",
                nrow(reads), length(used), group_a, length(in_a), group_b, length(in_b), mc_samples))

load_packages("ALDEx2")
set.seed(seed)
x <- aldex.clr(reads, conds, mc.samples = mc_samples, denom = "all", verbose = FALSE)
tt <- aldex.ttest(x, paired.test = FALSE, verbose = FALSE)
eff <- aldex.effect(x, CI = FALSE, verbose = FALSE)

res <- data.frame(taxid = ids, stringsAsFactors = FALSE, check.names = FALSE)
colnames(res) <- id_column
if ("name" %in% colnames(counts_df) && id_column != "name") res$name <- counts_df$name[keep]
res$group_a <- group_a
res$group_b <- group_b
res$rab_all <- eff$rab.all
# ALDEx2 orders the groups by factor level; make group_b minus group_a explicit.
win_cols <- grep("^rab\\.win\\.", colnames(eff), value = TRUE)
first_level <- sub("^rab\\.win\\.", "", win_cols[1])
flip <- !(first_level %in% c(group_a, make.names(group_a)))
sign <- if (flip) -1 else 1
res$rab_win_a <- eff[[win_cols[if (flip) 2 else 1]]]
res$rab_win_b <- eff[[win_cols[if (flip) 1 else 2]]]
res$diff_btw <- sign * eff$diff.btw
res$diff_win <- eff$diff.win
res$effect <- sign * eff$effect
res$overlap <- eff$overlap
res$we_ep <- tt$we.ep
res$we_eBH <- tt$we.eBH
res$wi_ep <- tt$wi.ep
res$wi_eBH <- tt$wi.eBH
id_num <- suppressWarnings(as.numeric(res[[id_column]]))
res <- res[order(res$we_eBH, res$we_ep, id_num, res[[id_column]], na.last = TRUE), ]
num <- vapply(res, is.numeric, logical(1))
res[num] <- lapply(res[num], function(v) signif(v, 6))
write.table(res, snakemake@output[["table"]], sep = "\t", quote = FALSE, row.names = FALSE, na = "NA")
message(sprintf("wrote %s: %d taxa, %d with we.eBH <= 0.05", snakemake@output[["table"]], nrow(res),
                sum(res$we_eBH <= 0.05, na.rm = TRUE)))
sink(type = "message")
sink()

# Differentially methylated loci and regions between two conditions with DSS (Snakemake script).
#
# Snakemake `script:` step of tool `dss_calldmr` (operation differential_methylation).
#
# input$calls    one Bismark coverage file per sample (chromosome, start, end, percent methylated,
#                count methylated, count unmethylated; 1-based; .cov or .cov.gz), gathered over samples
# input$samples  sample sheet (tsv/csv): `sample` column and the condition column
# output$regions TSV of differentially methylated regions (DSS callDMR): chr, start, end, length,
#                n_cpg, test, reference, mean_test, mean_reference, diff (test minus reference),
#                area_stat; sorted by |area_stat| (largest first), then chr and start
# output$loci    TSV of every tested CpG (DSS DMLtest): chr, pos, mean_test, mean_reference, diff,
#                diff_se, stat, pvalue, fdr, and `dml` (TRUE where callDML's delta and p threshold
#                hold); sorted by pvalue, then chr and pos
# params         samples (the sample of each coverage file, in order), condition_column,
#                reference_level (NULL: control/ctrl/untreated/wt/normal/... if present, else the
#                first level), test_level (NULL: the first other level), smoothing (TRUE: WGBS;
#                FALSE for sparse RRBS CpGs), smoothing_span (500 bp), delta (0.1: the least
#                methylation difference a locus or region must show), p_threshold (1e-5 for loci,
#                the DSS default), dmr_p_threshold (0.01: the per-CpG p-value a DMR's CpGs must
#                reach, as the DSS vignette calls DMRs), min_cpg (3), min_length (50), dis_merge (100)
#
# Without replicates (one sample per condition) DSS estimates the dispersion from the smoothed
# neighbouring CpGs; smoothing is then required.

source(file.path(snakemake@scriptdir, "bioplan_step.R"), local = environment())  # the log, fail(), run(), readers

read_coverage <- function(path, sample) {
    tab <- tryCatch(
        utils::read.table(path, sep = "\t", header = FALSE, quote = "", comment.char = "",
                          colClasses = c("character", "integer", "integer", "numeric", "integer", "integer")),
        error = function(e) fail("cannot read the Bismark coverage file '", path, "' of sample ", sample,
                                 " (6 tab-separated columns: chromosome, start, end, percent, methylated, ",
                                 "unmethylated): ", conditionMessage(e))
    )
    if (nrow(tab) == 0) fail("the Bismark coverage file '", path, "' of sample ", sample, " holds no CpG.")
    if (any(tab[[5]] < 0 | tab[[6]] < 0)) fail("'", path, "' holds a negative read count.")
    data.frame(chr = tab[[1]], pos = tab[[2]], N = tab[[5]] + tab[[6]], X = tab[[5]])
}

flag <- function(name, default) {
    value <- param(name, default)
    if (is.character(value)) value <- tolower(value) %in% c("true", "yes", "1")
    isTRUE(as.logical(value))
}

number <- function(name, default) {
    value <- suppressWarnings(as.numeric(param(name, default)))
    if (length(value) != 1 || is.na(value)) fail("params.dss_calldmr.", name, " must be a number (config.yaml)")
    value
}

design <- function(samples) {
    condition <- param("condition_column", "condition")
    meta <- read_samples(snakemake@input[["samples"]], condition)
    missing <- setdiff(samples, meta$sample)
    if (length(missing)) {
        fail("samples ", toString(missing), " have methylation calls but no row in the sample sheet '",
             snakemake@input[["samples"]], "'.")
    }
    group <- setNames(meta[[condition]], meta$sample)[samples]
    lv <- choose_levels(group, param("reference_level"), param("test_level"))
    test <- samples[group == lv$test]
    reference <- samples[group == lv$reference]
    if (length(test) == 0 || length(reference) == 0) fail("no samples of level '", lv$test, "' or '", lv$reference, "'.")
    list(test = test, reference = reference, lv = lv)
}

loci_table <- function(dml, d, delta, p_threshold) {
    called <- callDML(dml, delta = delta, p.threshold = p_threshold)
    key <- paste(dml$chr, dml$pos)
    loci <- data.frame(chr = dml$chr, pos = dml$pos, mean_test = dml$mu1, mean_reference = dml$mu2,
                       diff = dml$diff, diff_se = dml$diff.se, stat = dml$stat, pvalue = dml$pval,
                       fdr = dml$fdr, dml = key %in% paste(called$chr, called$pos), stringsAsFactors = FALSE)
    loci[order(is.na(loci$pvalue), loci$pvalue, loci$chr, loci$pos, method = "radix"), , drop = FALSE]
}

regions_table <- function(dml, d) {
    dmr <- callDMR(dml, delta = number("delta", 0.1), p.threshold = number("dmr_p_threshold", 0.01),
                   minlen = number("min_length", 50), minCG = number("min_cpg", 3),
                   dis.merge = number("dis_merge", 100))
    if (is.null(dmr) || nrow(dmr) == 0) {
        return(data.frame(chr = character(0), start = integer(0), end = integer(0), length = integer(0),
                          n_cpg = integer(0), test = character(0), reference = character(0),
                          mean_test = numeric(0), mean_reference = numeric(0), diff = numeric(0),
                          area_stat = numeric(0)))
    }
    out <- data.frame(chr = dmr$chr, start = dmr$start, end = dmr$end, length = dmr$length, n_cpg = dmr$nCG,
                      test = d$lv$test, reference = d$lv$reference, mean_test = dmr$meanMethy1,
                      mean_reference = dmr$meanMethy2, diff = dmr$diff.Methy, area_stat = dmr$areaStat,
                      stringsAsFactors = FALSE)
    out[order(-abs(out$area_stat), out$chr, out$start, method = "radix"), , drop = FALSE]
}

main <- function() {
    paths <- unlist(snakemake@input[["calls"]])
    samples <- unlist(param("samples", character(0)))
    if (length(samples) != length(paths)) {
        fail(length(paths), " coverage files but ", length(samples), " sample names: the `samples` param must name every input, in order.")
    }
    d <- design(samples)
    smoothing <- flag("smoothing", TRUE)
    if (!smoothing && (length(d$test) < 2 || length(d$reference) < 2)) {
        fail("without replicates (", length(d$test), " '", d$lv$test, "' vs ", length(d$reference), " '", d$lv$reference,
             "' samples) DSS needs smoothing; set params.dss_calldmr.smoothing to true")
    }
    used <- c(d$test, d$reference)
    calls <- lapply(used, function(s) read_coverage(paths[match(s, samples)], s))
    # DSS's dispersion estimate divides its progress by round(CpGs / 100) and stops on fewer than 50
    # (makeBSseqData keeps the union of the samples' CpGs); checked before DSS takes seconds to load
    covered <- length(unique(unlist(lapply(calls, function(x) paste(x$chr, x$pos)))))
    if (covered < 50) fail("only ", covered, " CpGs are covered; DSS needs at least 50 (give whole coverage files)")
    load_packages("DSS")
    bs <- makeBSseqData(calls, used)
    message(sprintf("%d CpGs x %d samples; %s (%d) vs %s (%d); smoothing %s", nrow(bs), length(used), d$lv$test,
                    length(d$test), d$lv$reference, length(d$reference), smoothing))
    # group1 = test: DSS's diff is group1 minus group2
    # DSS draws a progress bar on standard output: kept out of the log
    utils::capture.output(dml <- DMLtest(bs, group1 = d$test, group2 = d$reference, smoothing = smoothing,
                                         smoothing.span = number("smoothing_span", 500), ncores = 1))
    loci <- loci_table(dml, d, number("delta", 0.1), number("p_threshold", 1e-5))
    regions <- regions_table(dml, d)
    write_tsv(loci, snakemake@output[["loci"]])
    write_tsv(regions, snakemake@output[["regions"]])
    message(sprintf("%d differentially methylated loci, %d regions", sum(loci$dml), nrow(regions)))
}

run(main)

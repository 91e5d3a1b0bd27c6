#!/usr/bin/env Rscript
# Run a bioplan R step script (written for Snakemake's `script:`) from a Nextflow process:
#   bioplan_run.R SCRIPT --input NAME=PATH ... --output NAME=PATH ... [--params JSON_FILE]
#                 [--threads N] [--log PATH] [--rule NAME]
# It builds the S4 `snakemake` object the scripts read (snakemake@input[["counts"]], ...)
# and sources the script, so both targets share one implementation of every step.
args <- commandArgs(trailingOnly = TRUE)
script <- args[1]
rest <- args[-1]
collect <- function(flag) {
  idx <- which(rest == flag)
  out <- list()
  for (i in idx) {
    kv <- rest[i + 1]
    name <- sub("=.*$", "", kv)
    value <- sub("^[^=]*=", "", kv)
    out[[name]] <- c(out[[name]], value)
  }
  out
}
single <- function(flag, default) {
  i <- which(rest == flag)
  if (length(i) == 0) default else rest[i[1] + 1]
}
params <- list()
params_file <- single("--params", NA)
if (!is.na(params_file)) {
  if (!requireNamespace("jsonlite", quietly = TRUE)) stop("bioplan_run.R needs the R package jsonlite")
  params <- jsonlite::fromJSON(params_file, simplifyVector = TRUE)
}
# scriptdir: the script's folder, where it sources bioplan_step.R from (as under Snakemake)
setClass("Snakemake", representation(input = "list", output = "list", params = "list", log = "list",
                                     threads = "numeric", rule = "character", wildcards = "list",
                                     config = "list", scriptdir = "character"))
inputs <- collect("--input")
listed <- collect("--list-input")
for (name in names(listed)) inputs[[name]] <- as.list(listed[[name]])
for (name in names(collect("--list-param"))) params[[name]] <- collect("--list-param")[[name]]
if (!grepl("^/", script)) {
  here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))
  script <- file.path(here, script)
}
snakemake <- new("Snakemake", input = inputs, output = collect("--output"), params = params,
                 log = list(single("--log", "step.log")), threads = as.numeric(single("--threads", "1")),
                 rule = single("--rule", "step"), wildcards = list(), config = list(),
                 scriptdir = normalizePath(dirname(script)))
source(script, local = new.env())

"""Merge per-sample Kraken2 reports or Bracken outputs into one taxa x samples count table.

Snakemake `script:` step of tool `merge_kraken_reports` (operation abundance_table_merge).

input.profiles  list of per-sample files, each either
                - a Kraken2 report (--report; 6 columns, or 8 with --report-minimizer-data), or
                - a Bracken abundance table (-o; header name, taxonomy_id, taxonomy_lvl, ...)
output.table    TSV: taxid, name, rank, then one column of read counts per sample;
                rows sorted by total count (descending), then taxid
params          samples (sample names, same order as the inputs), rank ("S")

Counts: for Kraken2 reports the clade read count of every taxon whose rank code is
exactly `rank` (S = species, G = genus, ...; sub-ranks like S1 are not counted);
for Bracken outputs new_est_reads of the rows at that level. Taxa absent from a
sample count 0.
"""

import bioplan_step
from bioplan_step import LOG, fail

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)

import pandas as pd

TOOL = "merge_kraken_reports"
RANK_NAMES = {
    "unclassified": "U", "root": "R", "domain": "D", "superkingdom": "D", "kingdom": "K", "phylum": "P",
    "class": "C", "order": "O", "family": "F", "genus": "G", "species": "S",
}

params = snakemake.params
inputs = list(snakemake.input.profiles)
out_path = snakemake.output.table
samples = params.samples
samples = [samples] if isinstance(samples, str) else [str(s) for s in samples]
rank = str(getattr(params, "rank", "S") or "S").strip()
rank = RANK_NAMES.get(rank.lower(), rank.upper())

if len(samples) != len(inputs):
    fail(f"{len(inputs)} input files but {len(samples)} sample names; the samples param must list one name per input.")
if len(set(samples)) != len(samples):
    fail(f"duplicate sample names: {sorted(s for s in set(samples) if samples.count(s) > 1)}")


def parse_kraken_report(path: str) -> dict[int, tuple[str, int]]:
    """taxid -> (name, clade reads) for the rows at `rank`."""
    out: dict[int, tuple[str, int]] = {}
    with open(path, encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, start=1):
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\r\n").split("\t")
            if len(fields) == 6:
                clade, code, taxid, name = fields[1], fields[3], fields[4], fields[5]
            elif len(fields) == 8:
                clade, code, taxid, name = fields[1], fields[5], fields[6], fields[7]
            else:
                fail(f"{path} line {lineno}: {len(fields)} tab-separated columns; a Kraken2 report has 6 (or 8 with "
                     "--report-minimizer-data), a Bracken output has a header starting name/taxonomy_id/taxonomy_lvl.")
            try:
                clade_reads, taxid_int = int(clade), int(taxid)
            except ValueError:
                fail(f"{path} line {lineno}: read count {clade!r} or taxid {taxid!r} is not an integer.")
            if code.strip() == rank:
                out[taxid_int] = (name.strip(), clade_reads)
    return out


def parse_bracken(path: str) -> dict[int, tuple[str, int]]:
    try:
        df = pd.read_csv(path, sep="\t")
    except Exception as exc:  # noqa: BLE001
        fail(f"cannot read Bracken output {path}: {exc}")
    need = {"name", "taxonomy_id", "taxonomy_lvl", "new_est_reads"}
    if not need <= set(df.columns):
        fail(f"{path} lacks Bracken column(s) {sorted(need - set(df.columns))}")
    df = df[df["taxonomy_lvl"].astype(str).str.strip() == rank]
    return {int(t): (str(n).strip(), int(c)) for n, t, c in zip(df["name"], df["taxonomy_id"], df["new_est_reads"])}


names: dict[int, str] = {}
counts: dict[str, dict[int, int]] = {}
for sample, path in zip(samples, inputs):
    try:
        with open(path, encoding="utf-8") as handle:
            first = handle.readline()
    except OSError as exc:
        fail(f"cannot open {path}: {exc}")
    is_bracken = first.lower().startswith("name\ttaxonomy_id")
    parsed = parse_bracken(path) if is_bracken else parse_kraken_report(path)
    if not parsed:
        LOG.warning("%s (%s): no taxon at rank %s", path, sample, rank)
    for taxid, (name, n) in parsed.items():
        names.setdefault(taxid, name)
    counts[sample] = {taxid: n for taxid, (name, n) in parsed.items()}
    LOG.info("%s: %s, %d taxa at rank %s, %d reads", sample, "bracken" if is_bracken else "kraken2 report",
             len(parsed), rank, sum(counts[sample].values()))

taxids = sorted(names)
table = pd.DataFrame({"taxid": taxids, "name": [names[t] for t in taxids], "rank": rank})
for sample in samples:
    table[sample] = [int(counts[sample].get(t, 0)) for t in taxids]
if taxids:
    table["_total"] = table[samples].sum(axis=1)
    table = table.sort_values(["_total", "taxid"], ascending=[False, True], kind="mergesort").drop(columns="_total")
else:
    LOG.warning("no taxon at rank %s in any input: writing a table without rows", rank)
table.to_csv(out_path, sep="\t", index=False)
LOG.info("wrote %s: %d taxa x %d samples", out_path, len(table), len(samples))

"""Precondition check: every group of the condition column has replicates (Snakemake script).

Runs before a step that compares groups (differential expression/abundance). Reads every input
whose datatype (params.datatypes) is sample_metadata (tsv/csv), takes the column
params.condition_column (default "condition") and requires at least params.min_replicates
(default 2) samples per level (distinct values of a `sample` column if there is one, else rows),
and at least 2 levels. On success writes the `ok` sentinel with a one-line summary; on failure
names the levels short of replicates (or the existing columns when the condition column is
missing) and exits 1.
"""

# --- shared helpers (each bioplan step script is self-contained) --------------
import logging
import re
import sys
import traceback

import numpy as np
import pandas as pd

LOG = logging.getLogger("bioplan")


def setup_logging():
    """Send logging, stdout and library warnings to the rule's log file."""
    handle = open(snakemake.log[0], "w", encoding="utf-8")
    logging.basicConfig(stream=handle, level=logging.INFO, format="%(levelname)s: %(message)s")
    sys.stdout = handle
    sys.stderr = handle


def fail(message):
    """Report a data problem to the log and the terminal, then stop with exit code 1."""
    LOG.error(message)
    print(f"ERROR [{snakemake.rule}]: {message}", file=sys.__stderr__)
    sys.exit(1)


def run(main):
    setup_logging()
    try:
        main()
    except SystemExit:
        raise
    except Exception as exc:  # a bug or an unforeseen input: keep the traceback in the log
        LOG.error(traceback.format_exc())
        fail(f"unexpected {type(exc).__name__}: {exc} (traceback in {snakemake.log[0]})")


def sniff_sep(path):
    """Tab if the first non-empty line has a tab, else comma if it has one, else tab."""
    with open(path, encoding="utf-8-sig") as handle:
        for line in handle:
            if line.strip() and not line.startswith("#"):
                if "\t" in line:
                    return "\t"
                return "," if "," in line else "\t"
    return "\t"


def read_table(path, what):
    """Read a tsv/csv table with a header; every column as text."""
    try:
        table = pd.read_csv(path, sep=sniff_sep(path), dtype=str, comment=None,
                            keep_default_na=False, encoding="utf-8-sig")
    except pd.errors.EmptyDataError:
        fail(f"the {what} file '{path}' is empty.")
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        fail(f"cannot parse the {what} file '{path}' as tsv/csv: {exc}")
    table.columns = [str(c).strip() for c in table.columns]
    return table
# ------------------------------------------------------------------------------

# --- precondition checks ------------------------------------------------------------
def inputs_of(datatype, fallback_name):
    """(port name, path) of the guarded step's inputs with this datatype (or the usual port name)."""
    datatypes = dict(snakemake.params.datatypes or {})
    names = [name for name, dt in datatypes.items() if dt == datatype] or \
        [name for name in snakemake.input.keys() if name == fallback_name]
    if not names:
        fail(f"rule {snakemake.rule} has no {datatype} input to check (inputs: {', '.join(snakemake.input.keys())}; "
             f"datatypes: {datatypes}).")
    found = []
    for name in names:
        paths = getattr(snakemake.input, name)
        for path in [paths] if isinstance(paths, str) else list(paths):
            found.append((name, path))
    return found


def check_failed(message):
    fail(f"precondition '{snakemake.params.constraint}' of step '{snakemake.params.guarded_step}' failed: {message}")


def passed(summary):
    LOG.info(summary)
    with open(snakemake.output.ok, "w", encoding="utf-8") as handle:
        handle.write(f"{snakemake.params.constraint}: OK - {summary}\n")
# ------------------------------------------------------------------------------


def check_metadata(path, condition, minimum):
    meta = read_table(path, "sample metadata")
    if condition not in meta.columns:
        close = [c for c in meta.columns if c.lower() == condition.lower()]
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        check_failed(f"the sample metadata '{path}' has no column '{condition}'{hint}; its columns are: "
                     f"{', '.join(meta.columns)}. Set params.condition_column (config.yaml) to the column that holds "
                     "the groups to compare.")
    lower = {c.lower(): c for c in meta.columns}
    meta[condition] = meta[condition].str.strip()
    empty = meta[condition] == ""
    if empty.any():
        who = meta.loc[empty, lower["sample"]].tolist() if "sample" in lower else [int(i) + 2 for i in meta.index[empty]]
        check_failed(f"'{path}': samples {who} have no value in column '{condition}'.")
    if "sample" in lower:
        sizes = meta.groupby(condition)[lower["sample"]].nunique()
    else:
        LOG.warning("'%s' has no 'sample' column: counting rows as samples", path)
        sizes = meta.groupby(condition).size()
    sizes = sizes.sort_index()
    if len(sizes) < 2:
        check_failed(f"column '{condition}' of '{path}' has a single level ({', '.join(sizes.index)}); a comparison "
                     "needs at least two groups.")
    short = sizes[sizes < minimum]
    if not short.empty:
        listing = ", ".join(f"'{level}' ({n} sample{'s' if n != 1 else ''})" for level, n in short.items())
        check_failed(f"column '{condition}' of '{path}' has levels with fewer than {minimum} replicates: {listing}. "
                     "Without biological replicates the within-group variance cannot be estimated and the "
                     "statistics are invalid. Add replicate samples, drop or merge those groups, or choose another "
                     "condition column (params.condition_column).")
    return ", ".join(f"{level}={n}" for level, n in sizes.items())


def main():
    condition = getattr(snakemake.params, "condition_column", None) or "condition"
    minimum = int(getattr(snakemake.params, "min_replicates", None) or 2)
    summaries = [f"{name} '{path}': {check_metadata(path, condition, minimum)}"
                 for name, path in inputs_of("sample_metadata", "samples")]
    passed(f">= {minimum} replicates per level of '{condition}': " + "; ".join(summaries))


run(main)

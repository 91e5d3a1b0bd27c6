"""Precondition check: the VCF holds the fields the variant filter tests (Snakemake script).

Runs before the variant filter (bcftools filter). Reads every input whose datatype
(params.datatypes) is variant_calls (VCF, bgzipped VCF or BCF; through `bcftools view -h` and the
first records) and reports which of the filter's fields exist: QUAL values in the records, DP
declared as INFO (INFO/DP) or as FORMAT (FMT/DP). The filter tests exactly those (a field the
header does not declare is left out, not guessed). Fails when none exists: there is nothing to
filter on, and the message says what to do.
"""

# --- shared helpers (each bioplan step script is self-contained) --------------
import logging
import re
import sys
import traceback


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


import subprocess  # noqa: E402

RECORDS = 1000


def vcf_fields(path):
    """(declared INFO ids, declared FORMAT ids, records seen, records with a QUAL value)."""
    try:
        header = subprocess.run(["bcftools", "view", "-h", path], capture_output=True, text=True, check=True).stdout
        body = subprocess.run(f"bcftools view -H {shlex_quote(path)} | head -n {RECORDS}", shell=True,
                              capture_output=True, text=True, executable="/bin/bash").stdout
    except FileNotFoundError:
        fail("bcftools is not on PATH (install bcftools, or run with --sdm conda)")
    except subprocess.CalledProcessError as exc:
        check_failed(f"bcftools cannot read '{path}' as VCF/BCF: {exc.stderr.strip()}")
    info = {line.split("ID=", 1)[1].split(",", 1)[0] for line in header.splitlines() if line.startswith("##INFO=<ID=")}
    fmt = {line.split("ID=", 1)[1].split(",", 1)[0] for line in header.splitlines() if line.startswith("##FORMAT=<ID=")}
    records = [line.split("\t") for line in body.splitlines() if line.strip()]
    with_qual = sum(1 for r in records if len(r) > 5 and r[5] != ".")
    return info, fmt, len(records), with_qual


def shlex_quote(text):
    import shlex

    return shlex.quote(text)


def main():
    summaries = []
    for name, path in inputs_of("variant_calls", "vcf"):
        info, fmt, n, with_qual = vcf_fields(path)
        found = []
        if with_qual:
            found.append(f"QUAL ({with_qual} of the first {n} records have a value)")
        if "DP" in info:
            found.append("INFO/DP (declared)")
        elif "DP" in fmt:
            found.append("FMT/DP (declared as FORMAT only; the filter tests any sample)")
        missing = [f for f, ok in (("QUAL values", with_qual), ("DP", "DP" in info or "DP" in fmt)) if not ok]
        if not found:
            check_failed(f"{name} '{path}' holds none of the fields the variant filter tests: no QUAL value in its "
                         f"first {n} records and no INFO or FORMAT DP in its header. Drop the filtering step from "
                         "the request, or give params.bcftools_filter.extra an expression on fields it has "
                         f"(INFO fields: {', '.join(sorted(info)[:12]) or 'none'}).")
        summaries.append(f"{name} '{path}': filters on {', '.join(found)}"
                         + (f"; not in the file, left out: {', '.join(missing)}" if missing else ""))
    passed("; ".join(summaries))


run(main)

"""Precondition check: the VCF holds the fields the variant filter tests (Snakemake script).

Runs before the variant filter (bcftools filter). Reads every input whose datatype
(params.datatypes) is variant_calls (VCF, bgzipped VCF or BCF; through `bcftools view -h` and the
first records) and reports which of the filter's fields exist: QUAL values in the records, DP
declared as INFO (INFO/DP) or as FORMAT (FMT/DP). The filter tests exactly those (a field the
header does not declare is left out, not guessed). Fails when none exists: there is nothing to
filter on, and the message says what to do.
"""

import subprocess

import bioplan_step
from bioplan_step import check_failed, fail, inputs_of, passed

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)


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


main()

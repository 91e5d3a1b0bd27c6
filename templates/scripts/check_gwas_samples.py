"""Precondition check: the phenotype table describes the genotyped individuals (Snakemake script).

Runs before the association test (PLINK 2 --glm). Reads the phenotype table (datatype phenotype_table: a header
starting FID IID, #FID IID, #IID or IID, then the phenotype and covariate columns) and the individuals of the
QC'd genotypes (datatype qc_genotype_set: the .psam beside the .pgen, or the .fam beside a .bed). Fails when the
table has no PLINK id columns, no column after the ids, or no value in any column after the ids, or when fewer
than 10 individuals are in both (PLINK matches by id, never by position: a table of other ids tests nobody);
individuals in one of them only are named in the log and left out of the test. On success writes the `ok`
sentinel with the counts.
"""

import os

import bioplan_step
from bioplan_step import LOG, check_failed, inputs_of, passed

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)

MINIMUM = 10
MISSING = {"", "NA", "na", "nan", "NaN", "-9", "."}


def fields(line):
    return line.rstrip("\n").split("\t") if "\t" in line else line.split()


def table_ids(path):
    """(header, {iid: row}) of the phenotype table."""
    try:
        with open(path, encoding="utf-8") as handle:
            lines = [ln for ln in handle if ln.strip()]
    except (OSError, UnicodeDecodeError) as err:
        check_failed(f"the phenotype table '{path}' cannot be read ({err}).")
    if not lines:
        check_failed(f"the phenotype table '{path}' is empty.")
    header = fields(lines[0])
    if header[:2] in (["#FID", "IID"], ["FID", "IID"]):
        nid = 2
    elif header[0] in ("#IID", "IID"):
        nid = 1
    else:
        check_failed(f"the phenotype table '{path}' has no PLINK id columns: its header must start FID IID, #FID IID, "
                     f"#IID or IID (found {header[:2]}). Name the id columns as PLINK does.")
    if len(header) <= nid:
        check_failed(f"the phenotype table '{path}' has the id columns only: add the phenotype column.")
    rows = {}
    for line in lines[1:]:
        f = fields(line)
        rows[tuple(f[:nid])] = f[nid:]  # (FID, IID) or (IID,): PLINK matches both ids when both files have FIDs
    filled = [name for i, name in enumerate(header[nid:]) if any(len(r) > i and r[i] not in MISSING
                                                                for r in rows.values())]
    if not filled:
        check_failed(f"the phenotype table '{path}' has no value in any column after the ids ({header[nid:]}).")
    return header[nid:], rows


def genotyped(path):
    """The (FID, IID) of the genotyped individuals, FID None when the .psam has none: the .psam (or .fam) beside
    the genotype file."""
    real = os.path.realpath(path)
    stem, ext = os.path.splitext(real)
    beside = stem + (".psam" if ext == ".pgen" else ".fam")
    try:
        with open(beside, encoding="utf-8") as handle:
            lines = [ln for ln in handle if ln.strip()]
    except OSError as err:
        check_failed(f"the individuals of '{path}' cannot be read from '{beside}' ({err}).")
    if ext == ".pgen" and lines and lines[0].startswith("#"):
        header = fields(lines[0])
        column = header.index("IID") if "IID" in header else 0
        has_fid = header[0] == "#FID"
        return [(fields(ln)[0] if has_fid else None, fields(ln)[column]) for ln in lines[1:]]
    return [tuple(fields(ln)[:2]) for ln in lines]  # .fam, or a header-less .psam: FID IID ...


def key(sample, nid):
    """How PLINK matches a genotyped individual to a table row: FID and IID when both have FIDs, else the IID."""
    fid, iid = sample
    return (fid, iid) if nid == 2 and fid is not None else (iid,)


def main():
    (_, table_path), = inputs_of("phenotype_table", "phenotypes")[:1]
    (_, geno_path), = inputs_of("qc_genotype_set", "genotypes")[:1]
    columns, rows = table_ids(table_path)
    nid = len(next(iter(rows), ("",)))
    if nid == 2 and not any(fid is not None for fid, _ in genotyped(geno_path)):
        rows = {(ids[1],): values for ids, values in rows.items()}  # the genotypes have no FIDs: IIDs alone
        nid = 1
    samples = [key(s, nid) for s in genotyped(geno_path)]
    shared = [s for s in samples if s in rows]
    if len(shared) < MINIMUM:
        check_failed(f"{len(shared)} of the {len(samples)} genotyped individuals of '{geno_path}' are in the phenotype "
                     f"table '{table_path}' (ids such as {[' '.join(s) for s in samples[:3]]} against "
                     f"{[' '.join(r) for r in list(rows)[:3]]}); the test needs at least {MINIMUM}. Give the table the "
                     f"FIDs and IIDs of the .fam/.psam.")
    only_geno = [" ".join(s) for s in samples if s not in rows]
    only_table = [" ".join(s) for s in rows if s not in set(samples)]
    if only_geno:
        LOG.warning("%d genotyped individuals have no phenotype row and are left out: %s", len(only_geno),
                    ", ".join(only_geno[:20]))
    if only_table:
        LOG.warning("%d individuals of the table are not genotyped (or were removed by the QC): %s", len(only_table),
                    ", ".join(only_table[:20]))
    passed(f"'{table_path}': columns {', '.join(columns)}; {len(shared)} of {len(samples)} genotyped individuals "
           f"have a phenotype row")


main()

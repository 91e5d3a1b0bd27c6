"""The inputs of a genome-wide association study: PLINK genotype filesets and PLINK phenotype tables.

A PLINK 1 binary fileset is its .bed (magic bytes 6c 1b 01, SNP-major) with the .bim (variants) and .fam
(individuals) beside it under the same prefix; a PLINK 2 fileset its .pgen (magic 6c 1b 10-12) with the .pvar and
.psam. The genotype file is the input (`genotype_set`); its companions must be beside it (a missing one is named),
and given as inputs too they are read as parts of it (`cohort.profile_inputs`). The individuals are counted from
the .fam/.psam and a .bed's variants from its size. A phenotype table is a table whose header starts with PLINK's
id columns (FID IID, #FID IID, #IID or IID): `phenotype_table`, its phenotype (the first column after the ids)
read as a binary or quantitative trait (`trait_type`, which decides logistic or linear regression)."""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

from bioplan.models import Fact, SniffedFile
from bioplan.request.sniffers.base import Context, FileSniffer, Notes, Source, open_regular, quote_list, unreadable

PLINK1_MAGIC = b"\x6c\x1b\x01"
PLINK2_MAGICS = (b"\x6c\x1b\x10", b"\x6c\x1b\x11", b"\x6c\x1b\x12")
COMPANIONS = {".bed": (".bim", ".fam"), ".pgen": (".pvar", ".psam")}
PART_SUFFIXES = (".bim", ".fam", ".pvar", ".psam")
_MAX_SAMPLE_LINES = 2_000_000
_MISSING = {"", "na", "nan", "-9", "."}
_NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")
_ID_HEADERS = (("#FID", "IID"), ("FID", "IID"))


def plink_magic(head: bytes) -> bool:
    return head.startswith(PLINK1_MAGIC) or head.startswith(PLINK2_MAGICS)


def _count_samples(src: Source, path: str, shown: str) -> int:
    """The individuals of a .fam (one per line) or a .psam (less its '#' header)."""
    count = 0
    with open_regular(Path(path), shown) as handle:
        for number, line in enumerate(handle):
            if number >= _MAX_SAMPLE_LINES:
                break
            if line.strip() and not line.startswith(b"#"):
                count += 1
    return count


def _read_genotypes(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    plink1 = src.head.startswith(PLINK1_MAGIC)
    ext = ".bed" if plink1 else ".pgen"
    stem = str(src.path)[: -len(src.path.suffix)] if src.path.suffix else str(src.path)
    shown_stem = src.shown[: -len(src.path.suffix)] if src.path.suffix else src.shown
    if src.path.suffix.lower() != ext:
        raise unreadable(src.shown, f"is a PLINK {'1 .bed' if plink1 else '2 .pgen'} genotype file by its first "
                         f"bytes, named without the {ext} extension PLINK finds its companions by",
                         [f"rename it to {shown_stem}{ext}, its companions to the same prefix"])
    missing = [shown_stem + c for c in COMPANIONS[ext] if not _exists(stem + c)]
    if missing:
        raise unreadable(src.shown, f"is a PLINK {'1' if plink1 else '2'} genotype file without its "
                         f"{' and '.join(COMPANIONS[ext])} beside it ({quote_list(missing)} not found)",
                         [f"put {' and '.join(quote_list([m]) for m in missing)} beside it, under the same prefix"])
    samples = _count_samples(src, stem + COMPANIONS[ext][1], shown_stem + COMPANIONS[ext][1])
    facts = [Fact(name="n_samples", value=samples, evidence=f"{samples} individuals in {shown_stem}"
                  f"{COMPANIONS[ext][1]}")]
    kind = "1 binary fileset (.bed" if plink1 else "2 fileset (.pgen"
    parts = " and ".join(shown_stem + c for c in COMPANIONS[ext])
    evidence = [f"PLINK {kind} magic bytes 6c 1b {src.head[2]:02x}), with {parts} beside it: {samples} individuals"]
    if plink1 and samples:
        variants = (src.path.stat().st_size - 3) // math.ceil(samples / 4)
        facts.append(Fact(name="n_variants", value=variants, evidence=f"{variants} variants from the .bed's size"))
        evidence[0] += f", {variants} variants"
    return SniffedFile(path=src.shown, datatype="genotype_set", format="plink_bed" if plink1 else "pgen",
                       evidence=tuple(evidence), facts=tuple(facts)), Notes()


def _exists(path: str) -> bool:
    return os.path.isfile(path)


PLINK_GENOTYPES = FileSniffer("PLINK genotype filesets (.bed/.bim/.fam, .pgen/.pvar/.psam)", ("plink_bed", "pgen"),
                              ("genotype_set",), lambda src, ctx: src.compression is None and plink_magic(src.head),
                              _read_genotypes)


# --------------------------------------------------------------------------- phenotype tables

def _fields(line: str) -> list[str]:
    return line.rstrip("\r\n").split("\t") if "\t" in line else line.split()


def id_columns(header: list[str]) -> int:
    """How many PLINK id columns the header starts with (2: FID IID, 1: IID), 0 for none."""
    if tuple(header[:2]) in _ID_HEADERS:
        return 2
    return 1 if header and header[0] in ("#IID", "IID") else 0


def phenotype_table_like(src: Source) -> bool:
    return src.compression is None and id_columns(_fields(src.first_line)) > 0 and src.ext != ".psam"


def trait_type(values: list[str]) -> str | None:
    """binary (1/2, 0/1 or case/control), quantitative (other numbers), or None (no values, or text)."""
    present = [v for v in values if v.lower() not in _MISSING]
    if not present:
        return None
    words = {v.lower() for v in present}
    if words <= {"case", "control", "affected", "unaffected"}:
        return "binary"
    if not all(_NUMBER.match(v) for v in present):
        return None
    numbers = {float(v) for v in present}
    if numbers <= {0.0, 1.0, 2.0} and 2.0 in numbers:  # PLINK's coding: 1 control, 2 case, 0 missing
        return "binary" if numbers - {0.0} == {1.0, 2.0} else None
    return "binary" if numbers == {0.0, 1.0} else "quantitative"


def _read_phenotypes(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    lines = [ln for ln in src.text_lines if ln.strip()]
    header = _fields(lines[0])
    nid = id_columns(header)
    if len(header) <= nid:
        raise unreadable(src.shown, "is a PLINK id table without a phenotype column (its header is "
                         f"{quote_list(header)})", ["add the phenotype column (and any covariates) after the ids"])
    rows = [_fields(ln) for ln in lines[1:]]
    values = [r[nid] if len(r) > nid else "" for r in rows]
    kind = trait_type(values)
    column = header[nid]
    facts = [Fact(name="phenotype_columns", value=header[nid:], evidence=f"the columns after the ids: "
                  f"{quote_list(header[nid:])}")]
    evidence = [f"PLINK phenotype table (header {quote_list(header[:nid])} then {quote_list(header[nid:])}): "
                f"{len(rows)} individuals in the first {len(lines)} lines"]
    if kind:
        distinct = sorted({v for v in values if v.lower() not in _MISSING})
        shown = quote_list(distinct, 4) if kind == "binary" else f"{len(distinct)} distinct values"
        facts.append(Fact(name="trait_type", value=kind, evidence=f"phenotype column '{column}' (the first after the "
                          f"ids): {shown}"))
        evidence.append(f"phenotype '{column}': a {kind} trait ({shown})")
    return SniffedFile(path=src.shown, datatype="phenotype_table", format="plink_pheno", evidence=tuple(evidence),
                       facts=tuple(facts)), Notes()


PHENOTYPE_TABLE = FileSniffer("PLINK phenotype tables (FID IID / #IID header)", ("plink_pheno",),
                              ("phenotype_table",), lambda src, ctx: phenotype_table_like(src), _read_phenotypes)

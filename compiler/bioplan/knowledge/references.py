"""Reference data by organism and genome build (ontology/references.yaml): the model, its checks,
and the two questions the compiler asks of it.

- Which build? `resolve_genome_build`: the build the request names (GRCh38, hg19, mm10, ...) and
  the builds the inputs reveal (a VCF's ##reference and chr1 length, a GTF's genome-build header);
  a request that disagrees with its files is a ConstraintViolationError naming both.
- Which file? `provider_file`: for a reference datatype, the organism and the build, the
  provider's exact file name, its pinned URL, the checksum the provider publishes, and a hint.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from bioplan import cache as disk_cache
from bioplan.errors import ConstraintViolationError, InvalidKnowledgeError
from bioplan.paths import ontology_dir

ChecksumKind = Literal["bsd_sum", "md5", "recorded"]


class _Frozen(BaseModel):
    # defer_build: a catalog read back from the cache is never validated, so a process that only
    # plans does not pay for building the validators (they are built on the first validation)
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Provider(_Frozen):
    label: str
    checksum: ChecksumKind
    checksum_file: str | None = None  # in the file's directory; "{file}" stands for the file's name


class EnsemblRelease(_Frozen):
    base: str
    release: str
    assembly: str
    dna: Literal["primary_assembly", "toplevel"]
    label: str = "Ensembl"


class GencodeRelease(_Frozen):
    base: str
    release: str
    genome: str
    gtf: str
    transcripts: str


class Build(_Frozen):
    aliases: tuple[str, ...]
    ucsc: tuple[str, ...] = ()
    chr1_length: int | None = None
    genome_mb: int | None = None  # the assembly's length in megabases: memory of genome indexes and STAR
    ensembl: EnsemblRelease
    gencode: GencodeRelease | None = None


class OrganismReferences(_Frozen):
    species: str
    file_species: str
    msigdb: Literal["Hs", "Mm"] | None = None
    default_build: str
    builds: dict[str, Build]


class MSigDB(_Frozen):
    base: str
    version: str
    collections: dict[str, dict[str, str]]
    missing: dict[str, dict[str, str]] = {}


class Download(_Frozen):
    file: str
    url: str
    note: str = ""


class Catalog(_Frozen):
    version: int
    providers: dict[str, Provider]
    msigdb: MSigDB
    kraken2: Download
    taxonomy: Download
    organisms: dict[str, OrganismReferences]


# The code that turns references.yaml into a Catalog: part of the cached catalog's key.
CATALOG_CODE = ("bioplan.knowledge.references",)


def _parse_yaml(text: str) -> Any:
    """references.yaml parsed; invalid YAML is a ValueError (PyYAML is imported on a cache miss only)."""
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ValueError(str(exc)) from None


@lru_cache(maxsize=1)
def load_catalog() -> Catalog:
    """The validated references.yaml, cached on disk (`bioplan.cache`) under the sha256 of the file
    and of this module: reading it back costs a pickle load, not a YAML parse and a validation."""
    path = ontology_dir() / "references.yaml"
    try:
        raw = path.read_bytes()
        key = disk_cache.content_key([raw, disk_cache.source_fingerprint(CATALOG_CODE).encode()])
        cached = disk_cache.read("references", key, Catalog)
        if cached is not None:
            return cached
        catalog = Catalog.model_validate(_parse_yaml(raw.decode("utf-8")))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InvalidKnowledgeError([f"{path}: {exc}"]) from None
    disk_cache.write("references", key, catalog)
    return catalog


def check_catalog(catalog: Catalog, organism_ids: set[str], builds_of: dict[str, tuple[str, ...]]) -> list[str]:
    """Problems of the catalog against the knowledge: unknown organisms, a default build it does not
    describe, a build name the organism's constraint does not list among its genome builds."""
    problems = []
    for org_id, org in catalog.organisms.items():
        where = f"ontology/references.yaml: organisms.{org_id}"
        if org_id not in organism_ids:
            problems.append(f"{where}: no organism constraint of that id in ontology/constraints.yaml")
            continue
        if org.default_build not in org.builds:
            problems.append(f"{where}: default_build {org.default_build!r} is not one of its builds")
        known = {b.lower() for b in builds_of.get(org_id, ())}
        for name, build in org.builds.items():
            for alias in (name, *build.ucsc):
                if alias.lower() not in known and alias not in build.aliases:
                    problems.append(f"{where}.builds.{name}: {alias!r} is not a genome build of {org_id}")
    if set(catalog.msigdb.collections) - {"Hs", "Mm"}:
        problems.append("ontology/references.yaml: msigdb.collections: species codes are Hs and Mm")
    return problems


# ----------------------------------------------------------------------------- which build


def canonical_build(catalog: Catalog, organism: str | None, text: str) -> tuple[str, str] | None:
    """(organism id, build name) that `text` names (case-insensitive alias, UCSC name or patch level)."""
    word = text.strip().lower()
    for org_id, org in catalog.organisms.items():
        if organism and org_id != organism:
            continue
        for name, build in org.builds.items():
            if word in {a.lower() for a in (name, *build.aliases, *build.ucsc)}:
                return org_id, name
    return None


def _build_in_text(catalog: Catalog, text: str) -> tuple[str, str] | None:
    """The first build alias (as a whole word) in a header line such as '##reference=.../hs37d5.fa'."""
    words = re.split(r"[^A-Za-z0-9.\-_]+", text)
    for w in words:
        for candidate in (w, w.rsplit(".", 1)[0] if w.endswith((".fa", ".fasta", ".gz")) else w):
            found = canonical_build(catalog, None, candidate)
            if found:
                return found
    return None


def builds_from_file(catalog: Catalog, assembly: dict) -> tuple[tuple[str, str], str] | None:
    """((organism id, build), evidence) from a sniffed `assembly` fact: the chr1 length decides
    (it differs between every pair of builds here), else a build named in a header."""
    length = assembly.get("chr1_length")
    if length:
        for org_id, org in catalog.organisms.items():
            for name, build in org.builds.items():
                if build.chr1_length == length:
                    return (org_id, name), f"chromosome 1 is {length:,} bp long ({name})"
    for text in assembly.get("texts", ()):
        found = _build_in_text(catalog, text)
        if found:
            return found, f"header {text.strip()[:80]!r}"
    return None


def resolve_genome_build(catalog: Catalog, organism: str | None, request_builds: list[tuple[str, str]],
                         files: list) -> tuple[str | None, str | None, bool, list[str]]:
    """(organism id, build, chr-style names wanted, warnings) from the request and the inputs.

    `request_builds`: (text, organism id) of each build the request names. `files`: sniffed files
    (their `assembly` fact). A request naming one build while a file is another, or files of two
    builds, is a ConstraintViolationError naming both."""
    warnings: list[str] = []
    said: dict[str, tuple[str, str]] = {}
    for text, org_id in request_builds:
        found = canonical_build(catalog, org_id, text) or canonical_build(catalog, None, text)
        if found:
            said[text] = found
    if len(set(said.values())) > 1:
        raise ConstraintViolationError(
            "the request names two genome builds: " + ", ".join(_named(t, b) for t, (_, b) in said.items()),
            ["name one build (e.g. GRCh38 or GRCm39): every reference of the workflow must come from it"],
            {"builds": {t: b for t, (_, b) in said.items()}})
    in_files: dict[str, tuple[tuple[str, str], str]] = {}
    chr_names = False
    for f in files:
        fact = f.fact("assembly")
        if not fact:
            continue
        chr_names = chr_names or bool(fact.get("chr_prefixed"))
        from_file = builds_from_file(catalog, fact)
        if from_file:
            in_files[f.path] = from_file
    if len({b for b, _ in in_files.values()}) > 1:
        raise ConstraintViolationError(
            "the input files come from different genome builds: "
            + "; ".join(f"{p}: {b[1]} ({why})" for p, (b, why) in sorted(in_files.items())),
            ["give inputs of one build (lift the others over, e.g. with CrossMap or Picard LiftoverVcf)"],
            {"files": {p: b[1] for p, (b, _) in in_files.items()}})
    request_build = next(iter(said.values()), None)
    file_build = next(iter(in_files.values()), None)
    if request_build and file_build and request_build != file_build[0]:
        path = next(p for p, v in sorted(in_files.items()) if v == file_build)
        text = next(t for t, b in said.items() if b == request_build)
        raise ConstraintViolationError(
            f"the request says {_named(text, request_build[1])} but {path} is {file_build[0][1]}: {file_build[1]}",
            [f"correct the build in the request to {file_build[0][1]}, or give {request_build[1]} files "
             "(annotating or comparing data of one build with references of another gives wrong positions)"],
            {"request": request_build[1], "file": path, "file_build": file_build[0][1]})
    chosen = request_build or (file_build[0] if file_build else None)
    if chosen and organism and chosen[0] != organism:
        raise ConstraintViolationError(
            f"genome build {chosen[1]} is of {chosen[0].removeprefix('organism_')}, but the workflow is for "
            f"{organism.removeprefix('organism_')}",
            ["correct the organism or the build in the request"], {"build": chosen[1], "organism": organism})
    if chosen and not request_build and file_build:
        warnings.append(f"genome build {chosen[1]} inferred from {next(iter(in_files))}: {file_build[1]}")
    ucsc_said = any(t.lower() in {u.lower() for u in _org_build(catalog, b).ucsc} for t, b in said.items())
    return (chosen[0] if chosen else None), (chosen[1] if chosen else None), chr_names or ucsc_said, warnings


def _named(text: str, build: str) -> str:
    """'GRCh38', or 'hg19 (GRCh37)' where the request used another name for the build."""
    return build if text.lower() == build.lower() else f"{text} ({build})"


def _org_build(catalog: Catalog, found: tuple[str, str]) -> Build:
    return catalog.organisms[found[0]].builds[found[1]]


# ----------------------------------------------------------------------------- which file


class Source(_Frozen):
    """One download: the pinned URL, where the provider's checksum is, and which algorithm it is."""

    url: str
    checksum: ChecksumKind
    checksum_url: str | None = None
    provider: str


class ProviderFile(_Frozen):
    """A reference as a provider ships it for one organism and build."""

    file_name: str  # the name the workflow reads (after gunzip or untar where the tool needs that)
    hint: str  # where to get it, in words (README, config comment, start check)
    sources: tuple[Source, ...] = ()  # empty: bioplan cannot download it
    unpack: Literal["none", "gunzip", "untar"] = "none"
    derive: Literal["none", "gene_id_mapping", "tx2gene"] = "none"


def _source(catalog: Catalog, provider: str, directory: str, file: str, label: str | None = None) -> Source:
    p = catalog.providers[provider]
    checksum_url = None
    if p.checksum_file:
        checksum_url = f"{directory}/{p.checksum_file.replace('{file}', file)}"
    return Source(url=f"{directory}/{file}", checksum=p.checksum, checksum_url=checksum_url,
                  provider=label or p.label)


def _ensembl(catalog: Catalog, org: OrganismReferences, build: Build, kind: str) -> Source:
    e = build.ensembl
    label = f"{e.label} {e.release}"
    sp, fs, asm = org.species, org.file_species, e.assembly
    where = {
        "genome": (f"{e.base}/fasta/{sp}/dna", f"{fs}.{asm}.dna.{e.dna}.fa.gz"),
        "gtf": (f"{e.base}/gtf/{sp}", f"{fs}.{asm}.{e.release}.gtf.gz"),
        "cdna": (f"{e.base}/fasta/{sp}/cdna", f"{fs}.{asm}.cdna.all.fa.gz"),
        "entrez": (f"{e.base}/tsv/{sp}", f"{fs}.{asm}.{e.release}.entrez.tsv.gz"),
    }[kind]
    return _source(catalog, "ensembl", where[0], where[1], label)


def _gencode(catalog: Catalog, build: Build, kind: str) -> Source:
    g = build.gencode
    assert g is not None
    file = {"genome": g.genome, "gtf": g.gtf, "cdna": g.transcripts}[kind]
    return _source(catalog, "gencode", g.base, file, f"GENCODE {g.release}")


def _unzipped(name: str, fmt: str) -> tuple[str, Literal["none", "gunzip"]]:
    """(name the workflow reads, unpack): a gzipped provider file is unpacked unless the tool reads .gz."""
    if name.endswith(".gz") and ".gz" not in fmt:
        return name.removesuffix(".gz"), "gunzip"
    return name, "none"


_KIND = {"reference_genome": "genome", "gene_annotation": "gtf", "transcriptome": "cdna"}


def provider_file(catalog: Catalog, datatype: str, fmt: str, organism: str | None, build: str | None,
                  chr_names: bool, consumers: tuple[str, ...], namespace: str) -> ProviderFile | None:
    """The provider file for a reference datatype, or None when the catalog has nothing organism- and
    build-specific for it (the datatype's own `sources` then stay the hint)."""
    if datatype == "taxonomic_database":
        k = catalog.kraken2
        src = Source(url=k.url, checksum="recorded", provider=catalog.providers["kraken2_indexes"].label)
        return ProviderFile(file_name=k.file.removesuffix(".tar.gz"), sources=(src,), unpack="untar",
                            hint=f"{k.file} ({k.note}) from {k.url}, unpacked into one folder")
    if datatype == "taxonomy_dump":
        t = catalog.taxonomy
        src = _source(catalog, "ncbi_taxonomy", t.url.rsplit("/", 1)[0], t.file, "NCBI Taxonomy")
        return ProviderFile(file_name="taxdump", sources=(src,), unpack="untar",
                            hint=f"NCBI {t.file} ({t.url}), unpacked (nodes.dmp, names.dmp)")
    org = catalog.organisms.get(organism or "")
    if org is None:
        return None
    if datatype == "gene_set_library":
        return _msigdb(catalog, org, consumers, namespace)
    build_name = build or org.default_build
    b = org.builds.get(build_name)
    if b is None:
        return None
    said = f"{org.file_species.replace('_', ' ')} {build_name}"
    if datatype in _KIND:
        kind = _KIND[datatype]
        use_gencode = chr_names and b.gencode is not None
        src = _gencode(catalog, b, kind) if use_gencode else _ensembl(catalog, org, b, kind)
        name, unpack = _unzipped(src.url.rsplit("/", 1)[1], fmt)
        other = (f"; GENCODE {b.gencode.release} has the same with chr-prefixed names"
                 if b.gencode and not use_gencode else "")
        return ProviderFile(file_name=name, sources=(src,), unpack=unpack,
                            hint=f"{src.provider} {said}: {src.url}" + (" (gunzip it)" if unpack == "gunzip" else "")
                            + other)
    if datatype == "gene_id_mapping":
        entrez, gtf = _ensembl(catalog, org, b, "entrez"), _ensembl(catalog, org, b, "gtf")
        name = f"{org.file_species}.{b.ensembl.assembly}.{b.ensembl.release}.gene_id_mapping.tsv"
        return ProviderFile(file_name=name, sources=(entrez, gtf), derive="gene_id_mapping",
                            hint=f"{entrez.provider} {said}: Ensembl gene id -> NCBI Gene (Entrez) id from "
                                 f"{entrez.url}, symbols from the GTF {gtf.url} (columns ensembl_gene_id, "
                                 "entrez_id, symbol; or a BioMart export of the same release)")
    if datatype == "transcript_gene_map":
        use_gencode = chr_names and b.gencode is not None
        gtf = _gencode(catalog, b, "gtf") if use_gencode else _ensembl(catalog, org, b, "gtf")
        name = gtf.url.rsplit("/", 1)[1].removesuffix(".gtf.gz") + ".tx2gene.tsv"
        return ProviderFile(file_name=name, sources=(gtf,), derive="tx2gene",
                            hint=f"transcript_id -> gene_id of every transcript of {gtf.provider} {said} "
                                 f"({gtf.url}), the annotation of the quantified transcriptome")
    return None


def _msigdb(catalog: Catalog, org: OrganismReferences, consumers: tuple[str, ...],
            namespace: str) -> ProviderFile | None:
    if org.msigdb is None:
        return None
    m = catalog.msigdb
    words = {w for op in consumers for w in op.split("_")}
    topic = next((t for t in ("kegg", "go", "reactome") if t in words), "default")
    missing = m.missing.get(org.msigdb, {}).get(topic)
    if missing:
        return ProviderFile(file_name=f"gene_sets_{topic}.gmt", hint=" ".join(missing.split()))
    collection = m.collections[org.msigdb].get(topic) or m.collections[org.msigdb]["default"]
    ns = "entrez" if namespace == "entrez" else "symbols"
    file = f"{collection}.v{m.version}.{org.msigdb}.{ns}.gmt"
    src = _source(catalog, "msigdb", f"{m.base}/{m.version}.{org.msigdb}", file, f"MSigDB {m.version}.{org.msigdb}")
    return ProviderFile(file_name=file, sources=(src,),
                        hint=f"MSigDB {m.version}.{org.msigdb} {collection} in {ns} ids: {src.url}")

"""Gene annotation: GTF and GFF3, with the provider, gene id kind, sequence-name style and
genome build clues of the headers."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from bioplan.models import Fact, SniffedFile
from bioplan.request.sniffers.base import (
    CHROM_ID_RE,
    NAMESPACE_WORDS,
    FileSniffer,
    Lines,
    Notes,
    Source,
    compressed_fact,
    compression_evidence,
    id_namespace,
    organism_fact,
    quote_list,
    unreadable,
)

_GFF_LINES = 5000
_GFF_BUDGET = 16 << 20

# --------------------------------------------------------------------------- GTF / GFF3

_GTF_GENE_RE = re.compile(r'(?:^|;)\s*gene_id\s+"([^"]*)"')
_GFF3_ATTR_RE = re.compile(r"(?:^|;)\s*(?:ID|Parent)=")
_GFF3_GENE_RE = re.compile(r"(?:^|;)\s*(?:gene_id=([^;]+)|ID=(?:gene[:-])?([^;]+))")
# StringTie's and Cufflinks' estimates on the transcripts they assembled
_EXPRESSION_ATTR_RE = re.compile(r'(?:^|;)\s*(?:FPKM|TPM|cov)\s+"[\d.eE+-]+"')
_ASSEMBLERS = ("stringtie", "cufflinks")


_CHR1_RE = re.compile(r"^(?:chr)?1$|^NC_000001\.\d+$|^NC_000067\.\d+$")  # chr1 of human and mouse, RefSeq too
_REFSEQ_SEQID_RE = re.compile(r"^N[CTW]_\d{6,}\.\d+$")
_TAXON_RE = re.compile(r"[?&]id=(\d+)")


def _seqid_style(seqids: Sequence[str]) -> tuple[str, str] | None:
    """('ucsc' | 'ensembl' | 'refseq', evidence) of the sequence names: chr1 / 1 / NC_000001.11."""
    if not seqids:
        return None
    if all(_REFSEQ_SEQID_RE.match(s) for s in seqids):
        return "refseq", f"RefSeq accessions as sequence names ({quote_list(seqids, 3)})"
    if all(s.startswith("chr") for s in seqids):
        return "ucsc", f"chr-prefixed sequence names ({quote_list(seqids, 3)})"
    if any(CHROM_ID_RE.match(s) for s in seqids):
        return "ensembl", f"sequence names without 'chr' ({quote_list(seqids, 3)})"
    return None


def _annotation_flavour(header: Sequence[str], seqids: Sequence[str], sources: Counter, gene_ids: Sequence[str],
                        prefixes: Mapping[str, str]) -> list[Fact]:
    """Who made an annotation (GENCODE, Ensembl, RefSeq/NCBI, UCSC), its gene id kind and sequence-name
    style, each with what says so: a GTF of one provider goes with that provider's genome and counts."""
    facts: list[Fact] = []
    # Ensembl's '#!genome-build-accession NCBI:GCA_...' names the assembly's registry, not who made the genes
    text = " ".join(h for h in header if not h.startswith("#!genome-build-accession")).lower()
    ns, share = id_namespace(gene_ids[:2000], prefixes)
    versioned = ns == "ensembl" and sum(bool(re.search(r"\.\d+$", g)) for g in gene_ids) > len(gene_ids) / 2
    top_sources = {k.lower() for k, _ in sources.most_common(3)}
    style = _seqid_style(seqids)
    if "gencode" in text:
        provider, why = "GENCODE", next(h for h in header if "gencode" in h.lower())
    elif "refseq" in text or "ncbi" in text or (style and style[0] == "refseq") or top_sources & {
            "bestrefseq", "gnomon", "refseq", "curated genomic"}:
        provider, why = "RefSeq", next((h for h in header if ("refseq" in h.lower() or "ncbi" in h.lower())
                                        and h.lower() in text),
                                       style[1] if style and style[0] == "refseq"
                                       else f"source column {', '.join(sorted(top_sources))}")
    elif any(src.endswith("refgene") or src.endswith("ncbirefseq") for src in top_sources):
        provider, why = "UCSC", f"source column {', '.join(sorted(top_sources))} (UCSC's RefSeq genes)"
    elif ns == "ensembl" and versioned and style and style[0] == "ucsc":
        provider, why = "GENCODE", "versioned Ensembl gene ids on chr-prefixed sequences"
    elif ns == "ensembl":
        provider, why = "Ensembl", next((h for h in header if h.startswith("#!genome")),
                                        f"Ensembl gene ids ({quote_list(list(gene_ids), 2)})")
    else:
        provider, why = None, ""
    if provider:
        facts.append(Fact(name="annotation_provider", value=provider, evidence=f"{provider} annotation: {why}"))
    if gene_ids and ns != "unknown":
        facts.append(Fact(name="id_namespace", value=ns, evidence=f"gene ids like {quote_list(list(gene_ids), 3)} "
                          f"({share:.0%} {NAMESPACE_WORDS[ns]}" + (", versioned)" if versioned else ")")))
    if style:
        facts.append(Fact(name="seqid_style", value=style[0], evidence=style[1]))
    taxon = next((m.group(1) for h in header if h.startswith("##species") for m in [_TAXON_RE.search(h)] if m), None)
    if taxon:
        facts.append(Fact(name="taxon_id", value=int(taxon), evidence=f"##species header names NCBI taxon {taxon}"))
    return facts


def _gff_fields(line: str) -> list[str] | None:
    f = line.split("\t")
    if len(f) == 10 and not f[9].strip():
        f = f[:9]  # a tab after the attributes (older Ensembl GTFs): an empty tenth column, not a tenth field
    if len(f) != 9 or not f[3].isdigit() or not f[4].isdigit() or f[6] not in ("+", "-", ".", "?"):
        return None
    return f


# UCSC custom-track lines above the features (a GFF uploaded to a genome browser)
_TRACK_LINES = ("track ", "track\t", "browser ")


def _looks_like_gff(text_lines: Sequence[str]) -> bool:
    body = [ln for ln in text_lines if ln.strip() and not ln.startswith(("#", *_TRACK_LINES))][:20]
    return bool(body) and all(_gff_fields(ln) for ln in body)


@dataclass
class _GffScan:
    """What the header and the first feature lines of a GTF/GFF3 file say."""

    declared: str | None = None  # ##gff-version
    gtf: int = 0  # lines with GTF attributes (gene_id "...")
    gff3: int = 0  # lines with key=value attributes
    n: int = 0  # feature lines read
    header: list[str] = field(default_factory=list)  # Ensembl / GENCODE / NCBI build headers (issue 14)
    regions: list[list[str]] = field(default_factory=list)  # ##sequence-region seqid start end
    sources: Counter = field(default_factory=Counter)  # column 2: ensembl, havana, BestRefSeq, refGene, ...
    seqids: list[str] = field(default_factory=list)
    gene_ids: list[str] = field(default_factory=list)
    expression: int = 0  # lines whose attributes carry an assembler's estimates (cov, FPKM, TPM)
    assembler: str = ""  # '# StringTie version ...' header line


_BUILD_HEADERS = ("#!genome-build", "#!genome-version", "##description:", "##provider:", "##genome-build",
                  "#!annotation-source", "#!processor", "##species")


def _read_comment(scan: _GffScan, line: str) -> bool:
    """Keep what a '#' line says; False at ##FASTA (the features end there)."""
    if line.startswith(_BUILD_HEADERS):
        scan.header.append(line.strip())
    if line.startswith("##sequence-region") and len(line.split()) == 4:
        scan.regions.append(line.split()[1:])
    if line.lower().startswith(("# stringtie version", "# cufflinks version")):
        scan.assembler = line.lstrip("# ").strip()
    if line.startswith("##gff-version"):
        parts = line.split()
        scan.declared = parts[1] if len(parts) > 1 else "?"
    return not line.startswith("##FASTA")


def _read_feature(scan: _GffScan, f: list[str]) -> None:
    if f[0] not in scan.seqids and len(scan.seqids) < 10:
        scan.seqids.append(f[0])
    scan.sources[f[1]] += 1
    scan.expression += bool(_EXPRESSION_ATTR_RE.search(f[8]))
    m = _GTF_GENE_RE.search(f[8])
    if m:
        scan.gtf += 1
        scan.gene_ids.append(m.group(1))
    elif _GFF3_ATTR_RE.search(f[8]) or "=" in f[8]:
        scan.gff3 += 1
        g = _GFF3_GENE_RE.search(f[8])
        if g and (g.group(1) or f[2] == "gene"):
            scan.gene_ids.append((g.group(1) or g.group(2)).strip())
    scan.n += 1


def _scan_gff(src: Source) -> _GffScan:
    scan = _GffScan()
    lines = Lines(src, _GFF_BUDGET)
    for line in lines:
        if not line.strip():
            continue
        if line.startswith("#"):
            if not _read_comment(scan, line):
                break
            continue
        if line.startswith(">") and scan.n:
            break  # sequences appended without the ##FASTA line: the features ended
        if scan.n == 0 and line.startswith(_TRACK_LINES):
            continue
        f = _gff_fields(line)
        if f is None:
            raise unreadable(src.shown, f"not a valid GTF/GFF file: line {lines.lineno} is not 9 tab-separated "
                             "columns (seqid, source, type, start, end, score, strand, phase, attributes)",
                             ["check the file is tab-separated and complete"], expected="GTF/GFF3")
        _read_feature(scan, f)
        if scan.n >= _GFF_LINES:
            break
    return scan


def _sniff_gff(src: Source, prefixes: Mapping[str, str]) -> SniffedFile:
    scan = _scan_gff(src)
    declared, gtf, gff3, n = scan.declared, scan.gtf, scan.gff3, scan.n
    header, regions, sources, seqids, gene_ids = scan.header, scan.regions, scan.sources, scan.seqids, scan.gene_ids
    if n == 0:
        raise unreadable(src.shown, "GTF/GFF file with a header but no feature lines", expected="GTF/GFF3")
    evidence = compression_evidence(src)
    if (declared or "").startswith("3") and gff3 >= gtf:
        fmt, why = "gff3", f"'##gff-version {declared}' header and ID=/Parent= attributes"
    elif gff3 > gtf:
        fmt, why = "gff3", f"key=value attributes (ID=/Parent=) on {gff3} of {n} lines"
    elif gtf:
        fmt, why = "gtf", f'gene_id "..." attributes on {gtf} of {n} lines'
    else:
        raise unreadable(src.shown, "9-column annotation whose attributes are neither GTF (gene_id \"...\";) nor "
                         "GFF3 (ID=...;Parent=...)", ["give an Ensembl/GENCODE GTF or a GFF3 file"],
                         expected="GTF/GFF3")
    facts = [Fact(name="seqids", value=seqids, evidence=f"first sequence names: {quote_list(seqids, 5)}")]
    chr_prefixed = bool(seqids) and all(s.startswith("chr") for s in seqids)
    chr1_length = next((int(end) for seqid, start, end in regions
                        if _CHR1_RE.match(seqid) and start == "1" and end.isdigit()), None)
    if header or chr_prefixed or chr1_length:
        clues = ([f"chr1 length {chr1_length} (##sequence-region)"] if chr1_length else []) + header[:2] + (
            ["chr-prefixed sequence names"] if chr_prefixed else [])
        facts.append(Fact(name="assembly", value={"chr1_length": chr1_length, "texts": header[:4],
                                                  "chr_prefixed": chr_prefixed},
                          evidence="genome build clues: " + "; ".join(clues)))
    facts += _annotation_flavour(header, seqids, sources, gene_ids, prefixes)
    org = organism_fact(gene_ids, prefixes, "gene ids")
    if org:
        facts.append(org)
    facts += compressed_fact(src)
    evidence = [f"{fmt.upper()}: {why}"] + evidence
    if org:
        evidence.append(org.evidence)
    # Prodigal's own GFF (source 'Prodigal_v2.6.3' on every CDS): genes predicted on contigs, not an annotation
    prodigal = fmt == "gff3" and bool(sources) and all(k.startswith("Prodigal_v") for k in sources)
    if prodigal:
        evidence.append(f"every feature's source is {quote_list(list(sources), 2)}: Prodigal's gene predictions")
    assembled = _assembled_by(scan, fmt)
    if assembled:
        evidence.append(assembled)
    datatype = "predicted_genes" if prodigal else "assembled_transcripts" if assembled else "gene_annotation"
    return SniffedFile(path=src.shown, datatype=datatype, format=fmt, evidence=tuple(evidence), facts=tuple(facts))


def _assembled_by(scan: _GffScan, fmt: str) -> str:
    """Why a GTF is transcripts one sample's reads assembled (StringTie, Cufflinks), not a gene annotation: the
    assembler is every feature's source and its estimates (cov, FPKM, TPM) are on the features; '' when not.
    A merged assembly (stringtie --merge) carries no estimates: it is the annotation a cohort is counted on."""
    sources = {k.lower() for k in scan.sources}
    if fmt != "gtf" or not sources or not sources <= set(_ASSEMBLERS) or scan.expression == 0:
        return ""
    made_by = scan.assembler or next(k for k in scan.sources)
    return (f"assembled transcripts ({made_by}): every feature's source is {quote_list(list(scan.sources), 2)} "
            f"and {scan.expression} of {scan.n} lines carry its cov/FPKM/TPM estimates; a reference gene "
            "annotation has none (declare --input-type FILE=gene_annotation to count on it anyway)")


# --------------------------------------------------------------------------- registry entries

GFF = FileSniffer("GTF/GFF3", ("gtf", "gff3"), ("gene_annotation", "predicted_genes", "assembled_transcripts"),
                  lambda src, ctx: src.first_line.startswith("##gff-version") or _looks_like_gff(src.text_lines),
                  lambda src, ctx: (_sniff_gff(src, ctx.prefixes), Notes()))

"""Variant calls: VCF (plain, gzip or BGZF) and BCF, annotated or not, with genome build clues."""

from __future__ import annotations

import os
import re
import struct
from dataclasses import dataclass, field
from pathlib import Path

from bioplan.models import Fact, SniffedFile
from bioplan.request.sniffers.base import (
    BAM_HEADER_MAX,
    Context,
    FileSniffer,
    Lines,
    Notes,
    Source,
    compression_evidence,
    count_noun,
    decode,
    quote_list,
    read_exact,
    unreadable,
)

_VCF_RECORDS = 10_000
_VCF_BUDGET = 32 << 20

# --------------------------------------------------------------------------- VCF / BCF

_ANNOTATION_INFO = ("ANN", "CSQ", "BCSQ", "EFF")
_INFO_ID_RE = re.compile(r"^##INFO=<ID=([^,>]+)")


# what the records are: structural variants (symbolic <DEL>/<DUP:TANDEM>/<INS:ME:L1>, breakends, INFO SVTYPE),
# reference blocks of a genomic VCF (GATK <NON_REF>, bcftools call -g <*>) or bcftools mpileup's genotype
# likelihoods (<*> at every site, no GT): kinds that small-variant tools misread
_SYMBOLIC_SV_RE = re.compile(r"<(?:DEL|DUP|INV|INS|CNV|BND|TRA|CPX)(?::[^>]*)?>")
_BREAKEND_RE = re.compile(r"[\[\]]")
_SV_SHARE = 0.5


@dataclass
class _RecordKinds:
    """Counts of the kinds of record among those read, and the first of each as evidence."""

    sv: int = 0
    ref_block: int = 0
    no_gt: int = 0
    examples: dict[str, str] = field(default_factory=dict)

    def add(self, f: list[str]) -> None:
        alt, info = f[4], f[7]
        if _SYMBOLIC_SV_RE.search(alt) or _BREAKEND_RE.search(alt) or re.search(r"(?:^|;)SVTYPE=", info):
            self.sv += 1
            self.examples.setdefault("sv", f"{f[0]}:{f[1]} ALT {alt[:30]}"
                                     + (f" {m.group(0)}" if (m := re.search(r"SVTYPE=[^;]+", info)) else ""))
        if "<NON_REF>" in alt or "<*>" in alt:
            self.ref_block += 1
            self.examples.setdefault("block", f"{f[0]}:{f[1]} ALT {alt[:30]}")
        if len(f) < 9 or f[8].split(":")[0] != "GT":
            self.no_gt += 1


def _header_signs(line: str) -> set[str]:
    """What a header line says about the records: 'mpileup' (bcftools mpileup wrote them), 'called' (bcftools call
    ran), 'bcftools_gvcf' (call -g/--gvcf), 'gatk_gvcf' (HaplotypeCaller -ERC GVCF's GVCFBlock and NON_REF lines)."""
    if line.startswith("##bcftoolsCommand="):
        return {"mpileup"} if line.split("=", 1)[1].startswith("mpileup") else set()
    if line.startswith("##bcftools_callCommand="):
        args = line.split("=", 1)[1].split(";")[0].split()
        return {"called"} | ({"bcftools_gvcf"} if {"-g", "--gvcf"} & set(args) else set())
    if line.startswith(("##GVCFBlock", "##ALT=<ID=NON_REF")):
        return {"gatk_gvcf"}
    return set()


def _refuse_bcftools_gvcf(src: Source) -> None:
    raise unreadable(
        src.shown, "is a bcftools gVCF (bcftools call -g: reference blocks between the calls), which GATK's joint "
        "genotyping does not read (it reads HaplotypeCaller -ERC GVCF files, with <NON_REF> alleles) and bioplan "
        "does not merge",
        ["merge and call the samples' bcftools gVCFs (bcftools merge --gvcf REF.fa *.g.vcf.gz | bcftools call -mv) "
         "and give the calls, or give the BAM files and ask for joint variant calling"],
        expected="VCF of variant calls")


def _vcf_kind(kinds: _RecordKinds, n: int, header: set[str], src: Source) -> tuple[str | None, str]:
    """(datatype the records say, evidence) when they are not small-variant calls, else (None, '')."""
    if "bcftools_gvcf" in header:
        _refuse_bcftools_gvcf(src)
    if "gatk_gvcf" in header and n and kinds.ref_block:
        return "sample_gvcf", (f"a GATK gVCF: the header declares <NON_REF>/GVCFBlock and {kinds.ref_block} of {n} "
                               f"records carry <NON_REF> (first: {kinds.examples['block']})")
    if n and kinds.sv >= _SV_SHARE * n:
        return "structural_variant_calls", (f"{kinds.sv} of {n} records are structural variants (first: "
                                            f"{kinds.examples['sv']}): SV calls, not SNVs and indels")
    if n and kinds.ref_block >= _SV_SHARE * n:
        if kinds.no_gt == n and "mpileup" in header and "called" not in header:
            raise unreadable(
                src.shown, f"is bcftools mpileup output: genotype likelihoods at every site ({kinds.ref_block} of "
                f"{n} records have ALT <*>, none a GT), not variant calls",
                ["call the variants first (bcftools call -mv -Oz -o calls.vcf.gz FILE) and give the calls, or "
                 "give the BAM files and ask for variant calling"], expected="VCF of variant calls")
        return "sample_gvcf", (f"{kinds.ref_block} of {n} records are reference blocks or carry the "
                               f"<NON_REF>/<*> allele (first: {kinds.examples['block']}): a genomic VCF (gVCF)")
    return None, ""


def _vcf_result(src: Source, fmt: str, info_ids: set[str], samples: list[str], n: int, complete: bool,
                evidence: list[str], kind: tuple[str | None, str] = (None, "")) -> SniffedFile:
    ann = [i for i in _ANNOTATION_INFO if i in info_ids]
    more = "" if complete else "+"
    facts = [
        Fact(name="samples", value=samples,
             evidence=f"#CHROM line lists {count_noun(len(samples), 'sample')}"
             + (f": {quote_list(samples)}" if samples else "")),
        Fact(name="n_variants_seen", value=n,
             evidence=f"{n}{more} variant record{'' if n == 1 and not more else 's'} read"
             + ("" if complete else " (stopped reading there)")),
    ]
    if fmt == "vcf.gz":
        facts.append(Fact(name="bgzipped", value=src.bgzf,
                          evidence="BGZF blocks (indexable with tabix)" if src.bgzf
                          else "plain gzip, not bgzip: not indexable"))
    index = next((src.shown + ext for ext in (".tbi", ".csi") if os.path.exists(str(src.path) + ext)), None)
    if index:
        facts.append(Fact(name="index", value=index, evidence=f"{index} next to it"))
        evidence.append(f"indexed ({Path(index).name} next to it)")
        if os.path.getmtime(str(src.path) + index[len(src.shown):]) < os.path.getmtime(src.path):
            # htslib warns and region queries may read the wrong blocks
            facts.append(Fact(name="index_stale", value=True,
                              evidence=f"{Path(index).name} is older than the data: re-index it "
                                       f"(bcftools index -f {src.shown})"))
    if kind[0] == "structural_variant_calls":
        datatype = "structural_variant_calls"
        evidence.append(kind[1])
    elif kind[0] == "sample_gvcf":
        # CombineGVCFs' multi-sample gVCF is what joint genotyping reads; one sample's is consolidated first
        datatype = "combined_gvcf" if len(samples) > 1 else "sample_gvcf"
        evidence.append(kind[1] + (f" of {len(samples)} samples (combined)" if len(samples) > 1 else ""))
    elif ann:
        datatype = "annotated_variants"
        evidence.append(f"header declares INFO/{ann[0]} (consequence annotation)")
    else:
        datatype = "variant_calls"
        evidence.append("no ANN/CSQ/BCSQ INFO in the header: not yet annotated")
    return SniffedFile(path=src.shown, datatype=datatype, format=fmt, evidence=tuple(evidence), facts=tuple(facts))


def _sniff_vcf(src: Source) -> SniffedFile:
    info_ids: set[str] = set()
    samples: list[str] | None = None
    version = ""
    assembly_lines: list[str] = []  # ##reference, ##assembly, ##contig: which genome build (issue 14)
    first_chrom = ""
    n = 0
    kinds = _RecordKinds()
    header_words: set[str] = set()
    lines = Lines(src, _VCF_BUDGET)
    for line in lines:
        if line.startswith("##"):
            m = _INFO_ID_RE.match(line)
            if m:
                info_ids.add(m.group(1))
            elif line.startswith("##fileformat="):
                version = line.split("=", 1)[1]
            elif line.startswith(("##reference=", "##assembly=", "##contig=<")):
                assembly_lines.append(line)
            else:
                header_words.update(_header_signs(line))
            continue
        if line.startswith("#CHROM"):
            cols = line.split("\t")
            if cols[:8] != ["#CHROM", "POS", "ID", "REF", "ALT", "QUAL", "FILTER", "INFO"]:
                raise unreadable(src.shown, f"not a valid VCF file: the #CHROM line (line {lines.lineno}) is not "
                                 "tab-separated #CHROM POS ID REF ALT QUAL FILTER INFO", expected="VCF")
            samples = cols[9:]
            continue
        if not line.strip():
            continue
        if samples is None:
            raise unreadable(src.shown, f"not a valid VCF file: line {lines.lineno} is a record but no #CHROM header "
                             "line came before it", expected="VCF")
        f = line.split("\t")
        first_chrom = first_chrom or f[0]
        if len(f) < 8 or not f[1].isdigit():
            raise unreadable(src.shown, f"not a valid VCF file: line {lines.lineno} is not a record of at least 8 "
                             "tab-separated columns with a numeric POS", expected="VCF")
        n += 1
        kinds.add(f)
        if n >= _VCF_RECORDS:
            break
    if samples is None:
        raise unreadable(src.shown, "not a valid VCF file: no #CHROM header line", expected="VCF")
    fmt = "vcf.gz" if src.compression else "vcf"
    evidence = [f"VCF ({version or 'version not declared'})"] + compression_evidence(src)
    result = _vcf_result(src, fmt, info_ids, samples, n, lines.complete and n < _VCF_RECORDS, evidence,
                         _vcf_kind(kinds, n, header_words, src))
    assembly = _vcf_assembly_fact(assembly_lines, first_chrom)
    return result.model_copy(update={"facts": result.facts + (assembly,)}) if assembly else result


_CONTIG_CHR1_RE = re.compile(r"^##contig=<ID=(?:chr)?1,(?:.*,)?length=(\d+)")


def _vcf_assembly_fact(header: list[str], first_chrom: str) -> Fact | None:
    """The genome build clues of a VCF header: chr1's length (##contig) and the ##reference/##assembly
    texts; chr-prefixed names from the contigs or the first record."""
    length = next((int(m.group(1)) for ln in header if (m := _CONTIG_CHR1_RE.match(ln))), None)
    texts = [ln.split("=", 1)[1] for ln in header if ln.startswith(("##reference=", "##assembly="))]
    texts += sorted({m.group(1) for ln in header if (m := re.search(r"assembly=\"?([^,>\"]+)", ln))})
    contigs = [ln[len("##contig=<ID="):].split(",", 1)[0] for ln in header if ln.startswith("##contig=<ID=")]
    chr_prefixed = (contigs[0] if contigs else first_chrom).startswith("chr")
    if length is None and not texts and not (contigs or first_chrom):
        return None
    said = [f"chr1 length {length}"] if length else []
    return Fact(name="assembly", value={"chr1_length": length, "texts": texts[:3], "chr_prefixed": chr_prefixed},
                evidence="genome build clues: " + "; ".join(said + texts[:2] + [
                    "chr-prefixed sequence names" if chr_prefixed else "sequence names without 'chr'"]))



def _sniff_bcf(src: Source) -> SniffedFile:
    with src.open() as fh:
        magic = read_exact(fh, 9, src.shown)
        (l_text,) = struct.unpack("<I", magic[5:9]) if len(magic) == 9 else (None,)
        if l_text is None or l_text > BAM_HEADER_MAX:
            raise unreadable(src.shown, "BCF file whose header is truncated or corrupt", expected="BCF")
        text = read_exact(fh, l_text, src.shown)
        if len(text) < l_text:
            raise unreadable(src.shown, "BCF file whose header is truncated", expected="BCF")
        info_ids: set[str] = set()
        samples: list[str] = []
        for line in decode(text.rstrip(b"\x00")).splitlines():
            m = _INFO_ID_RE.match(line)
            if m:
                info_ids.add(m.group(1))
            elif line.startswith("#CHROM"):
                samples = line.split("\t")[9:]
        n = 0
        complete = False
        while n < _VCF_RECORDS:
            lens = read_exact(fh, 8, src.shown)
            if len(lens) < 8:
                complete = True
                break
            l_shared, l_indiv = struct.unpack("<II", lens)
            body = read_exact(fh, l_shared + l_indiv, src.shown)
            if len(body) < l_shared + l_indiv:
                break
            n += 1
    evidence = [f"BCF (binary VCF, version {magic[3]}.{magic[4]})"] + compression_evidence(src)
    return _vcf_result(src, "bcf", info_ids, samples, n, complete, evidence)


# --------------------------------------------------------------------------- registry entries

_VARIANT_DATATYPES = ("variant_calls", "annotated_variants", "structural_variant_calls", "sample_gvcf",
                      "combined_gvcf")
BCF = FileSniffer("BCF", ("bcf",), _VARIANT_DATATYPES,
                  lambda src, ctx: src.head.startswith(b"BCF\x02"),
                  lambda src, ctx: (_sniff_bcf(src), Notes()))
VCF = FileSniffer("VCF", ("vcf", "vcf.gz"), _VARIANT_DATATYPES,
                  lambda src, ctx: src.first_line.startswith(("##fileformat=VCF", "#CHROM\tPOS")),
                  lambda src, ctx: (_sniff_vcf(src), Notes()))


# VCF records with their header lines cut off (`bcftools view -H`, a `grep -v '^#'`): no tool reads them
_ALLELES_RE = re.compile(r"^(?:[ACGTNacgtn]+|\*)$")
# symbolic alleles after the first: ',' then no ',' (with `,\S+` a long ALT of ',x' pairs that fails to
# match backtracked through every way to split it: exponential time)
_ALT_RE = re.compile(r"^(?:[ACGTNacgtn*.,]+|<[^>]+>(?:,[^,\s]+)*|\S*[\[\]]\S*)$")


def _vcf_record(line: str) -> bool:
    f = line.split("\t")
    return len(f) >= 8 and f[1].isdigit() and bool(_ALLELES_RE.match(f[3])) and bool(_ALT_RE.match(f[4])) \
        and (f[5] == "." or f[5].replace(".", "", 1).isdigit()) and ("=" in f[7] or f[7] == ".")


def _headerless_vcf(src: Source) -> bool:
    body = [ln for ln in src.text_lines[:20] if ln.strip()]
    return bool(body) and not body[0].startswith("#") and all(_vcf_record(ln) for ln in body)


def _refuse_headerless_vcf(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    raise unreadable(src.shown, "holds VCF records (chrom, pos, id, ref, alt, qual, filter, info) without the VCF "
                     "header lines (##fileformat, ##INFO/##FORMAT, #CHROM), which every VCF tool needs",
                     ["give the VCF with its header (bcftools view without -H keeps it), or put the header back "
                      "(bcftools reheader, or cat the header lines and the records)"], expected="VCF")


VCF_RECORDS = FileSniffer("VCF records without the header (refused)", (), (), lambda src, ctx: _headerless_vcf(src),
                          _refuse_headerless_vcf)

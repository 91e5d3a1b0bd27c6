"""The cross-file pass over the sniffed inputs: mates paired, sample names unique, sheets against
matrices, taxonomy dump halves."""

from __future__ import annotations

import dataclasses
import os
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

from bioplan.errors import AmbiguousInputError, BioplanError
from bioplan.models import Fact, InputProfile, SniffedFile
from bioplan.request.sniffers.alignments import file_sample
from bioplan.request.sniffers.base import Context, Notes, count_noun, quote_list, unreadable
from bioplan.request.sniffers.columns import NA
from bioplan.request.sniffers.refusals import INDEX_SUFFIXES
from bioplan.request.sniffers.registry import settled_by_request  # read beside their data file, never on their own
from bioplan.request.sniffers.sheet_matrix import check_sheet_against_matrix


def profile_inputs(paths: Sequence[str], ctx: Context) -> InputProfile:
    """Every input read by the registry (`ctx.sniff`), then the cross-file pass; see `sniff.sniff_inputs`."""
    ctx = dataclasses.replace(ctx, inputs=tuple(os.path.abspath(p) for p in paths))
    results = []
    deferred: list[tuple[str, BioplanError]] = []
    warnings: list[str] = []
    undecided: list[tuple[str, AmbiguousInputError]] = []
    for p in _without_plink_parts(paths, warnings):
        try:
            sniffed, notes = ctx.sniff(p)
        except AmbiguousInputError as exc:
            if getattr(exc, "found", None) is None:
                raise
            undecided.append((p, exc))  # the other inputs may settle it
            continue
        except BioplanError as exc:
            if any(Path(p).name.endswith((part, part + ".gz")) for part in _MTX_PARTS) \
                    or p.lower().endswith(INDEX_SUFFIXES):
                deferred.append((p, exc))  # 10x barcodes/features, or an index, given beside their data file
                continue
            raise
        # a folder of per-sample folders is one input per sample
        results += [(f, Notes()) for f in notes.expanded] if notes.expanded else [(sniffed, notes)]
    results += _settle_by_the_others(undecided, [f for f, _ in results], ctx)
    results = _peaks_per_sample(results, ctx, warnings)
    results += _reads_the_sheets_name([f for f, _ in results], paths, ctx, warnings)
    matrices = [f for f, _ in results if f.format == "mtx"]
    parts = [(f, n, owner) for f, n in results
             if f.format != "mtx" and (owner := _mtx_part_of(f.path, matrices)) is not None]
    for f, n, owner in parts:  # a features.tsv.gz also reads as a gene table: beside its matrix it is part of it
        results.remove((f, n))
        warnings.append(f"{f.path} is read as part of the 10x matrix {owner.path}")
    for p, error in deferred:
        if p.lower().endswith(INDEX_SUFFIXES):
            data = next((f.path for f, _ in results if os.path.abspath(p).startswith(os.path.abspath(f.path) + ".")
                         or os.path.abspath(p)
                         == os.path.abspath(os.path.splitext(f.path)[0]) + os.path.splitext(p)[1]),
                        None)
            if data is None:
                raise unreadable(p, "is an index file (tabix .tbi/.csi, BAM .bai, CRAM .crai, FASTA .fai) without "
                                 "its data file among the inputs", ["give the data file it indexes (the index is "
                                                                     "found next to it)"]) from None
            warnings.append(f"{p} is read as the index of {data}")
            continue
        part_of = _mtx_part_of(p, matrices)
        if part_of is None:
            raise error
        warnings.append(f"{p} is read as part of the 10x matrix {part_of.path}")
    for f, _ in results:
        if f.fact("index_stale"):
            warnings.append(f"{f.path}: " + next(x.evidence for x in f.facts if x.name == "index_stale"))
    _check_unique_samples([f for f, _ in results])
    files = [sniffed for sniffed, _ in results]
    files = _pair_mates(files, [notes for _, notes in results], warnings)
    _check_cohort(files, [notes for _, notes in results], warnings)
    for path, times in Counter(paths).items():
        if times > 1:
            warnings.append(f"{path} is given {times} times")
    return InputProfile(files=tuple(files), warnings=tuple(warnings))



_PLINK_PARTS = {".bim": ".bed", ".fam": ".bed", ".pvar": ".pgen", ".psam": ".pgen"}  # genotypes.COMPANIONS


def _without_plink_parts(paths: Sequence[str], warnings: list[str]) -> list[str]:
    """The paths less the .bim/.fam (.pvar/.psam) given beside their .bed (.pgen): read with it, said."""
    kept = []
    for p in paths:
        fileset = _plink_fileset_of(p, paths)
        if fileset is None:
            kept.append(p)
        else:
            warnings.append(f"{p} is read as part of the PLINK fileset {fileset}")
    return kept


def _plink_fileset_of(path: str, paths: Sequence[str]) -> str | None:
    """The PLINK genotype file among `paths` a .bim/.fam/.pvar/.psam is a companion of (same prefix), else None."""
    stem, ext = os.path.splitext(path)
    genotypes = _PLINK_PARTS.get(ext.lower())
    return next((q for q in paths if genotypes and os.path.abspath(q) == os.path.abspath(stem + genotypes)), None)


_MTX_PARTS = ("barcodes.tsv", "features.tsv", "genes.tsv")  # single_cell.MTX_PARTS (a test keeps them equal)


def _mtx_part_of(path: str, matrices: Sequence[SniffedFile]) -> SniffedFile | None:
    """`single_cell.mtx_part_of`, its module imported only when a 10x matrix is among the inputs (issue 10)."""
    if not matrices:
        return None
    from bioplan.request.sniffers.single_cell import mtx_part_of
    return mtx_part_of(path, matrices)


def _sheet_path(sheet: SniffedFile, value: str) -> str:
    """A FASTQ path as a sample sheet names it: absolute, else beside the sheet when there, else as given."""
    if os.path.isabs(value):
        return value
    beside = os.path.join(os.path.dirname(sheet.path), value)
    return beside if os.path.exists(beside) else value


# a FASTQ file a sample sheet names carries the sheet's row in its evidence, so a refusal of its sample id names the
# row to edit, not the FASTQ file (`sheet_row_of`; codegen's sample sources)
_SHEET_ROW = "sample named by data row {row} of the sample sheet {sheet}"
_SHEET_ROW_RE = re.compile(r"^sample named by data row (\d+) of the sample sheet (.+)$")


def sheet_row_of(evidence: Sequence[str]) -> str | None:
    """'SHEET, data row N' for a FASTQ file a sample sheet named (its sample id came from that row), else None."""
    found = next((m for e in evidence for m in [_SHEET_ROW_RE.match(e)] if m), None)
    return f"{found.group(2)}, data row {found.group(1)}" if found else None


def _reads_the_sheets_name(files: Sequence[SniffedFile], paths: Sequence[str], ctx: Context,
                           warnings: list[str]) -> list[tuple[SniffedFile, Notes]]:
    """The FASTQ files a sample sheet names in its path columns (nf-core/sarek's and nf-core/rnaseq's
    fastq_1, fastq_2) and the inputs do not already hold: read as the sheet's sample, mate 1 and 2 by
    column. A sample of several rows is several lanes (or re-runs) of it, each file carrying its lane
    (the sheet's `lane` column, else the row's number among the sample's rows): merged per sample
    before its first step (codegen/lanes.py)."""
    given = {os.path.abspath(p) for p in paths}
    out: list[tuple[SniffedFile, Notes]] = []
    for sheet in (f for f in files if f.datatype == "sample_metadata" and f.fact("fastq_files")):
        rows = sheet.fact("fastq_files")
        lanes = _sheet_lanes(sheet, rows)
        _refuse_repeated_files(sheet, rows)
        named: list[str] = []
        missing: list[str] = []
        for row, ((sample, *values), lane) in enumerate(zip(rows, lanes), start=1):
            present = [(column, v) for column, v in enumerate(values, start=1) if v and v.lower() not in NA]
            for column, value in present:
                path = _sheet_path(sheet, value)
                if os.path.abspath(path) in given:
                    continue
                if not os.path.isfile(path):  # an example sheet of paths elsewhere: said, not read
                    missing.append(value)
                    continue
                found, _ = ctx.sniff(path)
                if found.datatype != "raw_reads":
                    raise unreadable(path, f"is named as sample '{sample}''s reads by {sheet.path} but holds "
                                     f"{found.datatype.replace('_', ' ')}", ["name the sample's FASTQ files in the "
                                     "sheet's fastq_1 and fastq_2 columns"], override=False)
                mate = column if len(present) == 2 else None  # fastq_1 and fastq_2; one file: single-end
                update: dict = {"sample": sample, "mate": mate, "evidence": (
                    *found.evidence, _SHEET_ROW.format(row=row, sheet=sheet.path))}
                if lane is not None:
                    facts = [f for f in found.facts if f.name != "lane"]
                    update["facts"] = (*facts, Fact(name="lane", value=lane,
                                                    evidence=f"lane of its row in {sheet.path}"))
                out.append((found.model_copy(update=update), Notes()))
                given.add(os.path.abspath(path))
                named.append(path)
        if named:
            warnings.append(f"{sheet.path}: read {len(named)} FASTQ file(s) the sheet names, as its samples")
        if missing:
            warnings.append(f"{sheet.path} names {len(missing)} FASTQ file(s) not found here, not read: "
                            + quote_list(missing, 3) + "; to use them, correct the paths or give the files with -i")
    return out


def _refuse_repeated_files(sheet: SniffedFile, rows: Sequence[Sequence[str]]) -> None:
    """A FASTQ file the sheet names in two places (two lanes, two samples, both mates) would be read twice."""
    where: dict[str, list[str]] = {}
    for number, (sample, *values) in enumerate(rows, start=1):
        for value in values:
            if value and value.lower() not in NA:
                where.setdefault(os.path.abspath(_sheet_path(sheet, value)), []).append(
                    f"row {number} (sample '{sample}'): {value}")
    repeated = [" and ".join(places) for places in where.values() if len(places) > 1]
    if repeated:
        raise AmbiguousInputError(
            f"{sheet.path} names the same FASTQ file more than once ({'; '.join(repeated[:5])}): its reads would be "
            "counted twice", ["to resolve, name each lane's own files in its row (a sample's lanes are concatenated "
                              "before its first step), or remove the repeated row"],
            {"sheet": sheet.path, "repeated": repeated})


def _sheet_lanes(sheet: SniffedFile, rows: Sequence[Sequence[str]]) -> list[str | None]:
    """Each row's lane: None for a sample of one row, else the sheet's lane column (nf-core/sarek's) or the
    row's number among its sample's rows (nf-core/rnaseq's technical replicates); two rows of one sample
    and lane are refused, naming them."""
    column = sheet.fact("fastq_lanes") or [""] * len(rows)
    per_sample = Counter(r[0] for r in rows)
    seen: Counter[str] = Counter()
    lanes: list[str | None] = []
    for row, given in zip(rows, column):
        seen[row[0]] += 1
        lanes.append(None if per_sample[row[0]] == 1 else (given if given and given.lower() not in NA
                                                           else str(seen[row[0]])))
    repeated = sorted({f"sample '{r[0]}' lane '{lane}'" for r, lane in zip(rows, lanes)
                       if lane is not None and sum(x[0] == r[0] and y == lane for x, y in zip(rows, lanes)) > 1})
    if repeated:
        raise AmbiguousInputError(
            f"{sheet.path}: several rows name the same lane of a sample ({', '.join(repeated[:10])}): "
            "each row of a sample is one of its lanes, merged before the first step",
            ["to resolve, give each row of a sample its own value in the lane column (L001, L002), or remove the "
             "repeated row"], {"sheet": sheet.path, "rows": repeated})
    return lanes


def _settle_by_the_others(undecided: Sequence[tuple[str, AmbiguousInputError]], settled: Sequence[SniffedFile],
                          ctx: Context) -> list[tuple[SniffedFile, Notes]]:
    """Ambiguous inputs whose request-expected readings the other inputs narrow to one; else the first error."""
    given = {f.datatype: f.path for f in settled}
    out = []
    for _, exc in undecided:
        found = settled_by_request(exc, ctx, given)
        if found is None:
            raise exc
        out.append((found, Notes()))
    return out


_PEAK_SUFFIX_RE = re.compile(r"(?:[._-](?:peaks?|summits?))?(?:\.(?:narrowpeak|broadpeak|bed))(?:\.gz)?$",
                             re.IGNORECASE)


def _peaks_per_sample(results: list[tuple[SniffedFile, Notes]], ctx: Context,
                      warnings: list[str]) -> list[tuple[SniffedFile, Notes]]:
    """Several peak files where the request's steps read one peak set per sample (comparing peak sets, IDR, a
    consensus) are each sample's peaks, named by the file (ctrl_1_peaks.narrowPeak -> ctrl_1); one file, or a
    request reading one cohort peak set, keeps them as they are."""
    peaks = [f for f, _ in results if f.datatype == "peak_calls"]
    level = next((lv for lv in ctx.expected if "replicate_peak_calls" in lv or "peak_calls" in lv), {})
    if len(peaks) < 2 or "replicate_peak_calls" not in level or "peak_calls" in level:
        return results
    names = {f.path: _PEAK_SUFFIX_RE.sub("", Path(f.path).name) or Path(f.path).name for f in peaks}
    if len(set(names.values())) < len(names):
        return results  # two files of one name: refused as repeated inputs, naming them
    why = level["replicate_peak_calls"]
    warnings.append(f"{count_noun(len(peaks), 'peak file')} read as each sample's peaks ({why}), the samples named "
                    f"by the files: {quote_list(sorted(names.values()), 6)}")
    return [(f.model_copy(update={"datatype": "replicate_peak_calls", "sample": names[f.path], "evidence": (
        *f.evidence, f"read as the peaks of sample {names[f.path]!r} (its file name), one of several peak files")}),
             n) if f.datatype == "peak_calls" else (f, n) for f, n in results]


def _check_unique_samples(files: Sequence[SniffedFile]) -> None:
    """Two quantification outputs of one sample name would overwrite each other: an error naming both."""
    seen: dict[str, SniffedFile] = {}
    for f in files:
        if f.datatype != "transcript_quantification" or f.sample is None:
            continue
        other = seen.setdefault(f.sample, f)
        if other is not f:
            why = next((e for e in f.evidence if e.startswith("sample '")), "")
            raise AmbiguousInputError(
                f"two inputs have the sample name '{f.sample}': {other.path} and {f.path}"
                + (f" ({why})" if why else ""),
                ["give each sample's quantification in a folder named after the sample "
                 "(ctrl_1/quant.sf, ctrl_2/quant.sf) or in files named after it (ctrl_1.genes.results)",
                 "or check that the same sample was not given twice"],
                {"sample": f.sample, "paths": [other.path, f.path]})


def _lone_mates(files: Sequence[SniffedFile], notes: Sequence[Notes], mate: int) -> dict[str, int]:
    """First read name -> index of the FASTQ files whose read ids say `mate` and whose sample has no other
    mate among the inputs; a first read two such files share settles nothing and is left out."""
    mates_of: dict[str, set[int]] = {}
    for f in files:
        if f.datatype == "raw_reads" and f.sample is not None and f.mate:
            mates_of.setdefault(f.sample, set()).add(f.mate)
    found = [(n.first_read, i) for i, (f, n) in enumerate(zip(files, notes))
             if f.datatype == "raw_reads" and n.read_id_mate == mate == f.mate and n.first_read
             and mates_of.get(f.sample or "") == {mate}]
    shared = Counter(read for read, _ in found)
    return {read: i for read, i in found if shared[read] == 1}


def _shared_name(first: str, second: str) -> str:
    """The sample two mate files are of: what their names share ('sam1F', 'sam1R' -> 'sam1')."""
    common = os.path.commonprefix([first, second]).rstrip("._-")
    return common or first


def _pair_by_read_names(files: list[SniffedFile], notes: list[Notes]) -> list[SniffedFile]:
    """Mates named in a way no suffix rule knows (dada2's sam1F/sam1R, Rsubread's reads1/reads2): a file of
    read-1 ids and a file of read-2 ids whose first reads are the same read are one pair."""
    ones, twos = _lone_mates(files, notes, 1), _lone_mates(files, notes, 2)
    out = list(files)
    for read, j in twos.items():
        i = ones.get(read)
        if i is None:
            continue
        name = _shared_name(files[i].sample or "", files[j].sample or "")
        for k, mate, other in ((i, 1, files[j]), (j, 2, files[i])):
            ev = [e for e in files[k].evidence if not e.startswith(f"mate {mate} of sample")]
            ev.append(f"mate {mate} of sample '{name}': its first read ({read}) is the first read of {other.path}, "
                      f"and its read ids say mate {mate}")
            out[k] = files[k].model_copy(update={"sample": name, "evidence": tuple(ev)})
    return out


def _pair_mates(files: list[SniffedFile], notes: list[Notes], warnings: list[str]) -> list[SniffedFile]:
    """Settle weak mate suffixes (_1/_2) against the other inputs; warn about unpaired or repeated mates."""
    files = _pair_by_read_names(files, notes)
    mates_of: dict[str, set[int]] = {}
    for f in files:
        if f.datatype == "raw_reads" and f.sample is not None and f.mate:
            mates_of.setdefault(f.sample, set()).add(f.mate)
    out: list[SniffedFile] = []
    for f, note in zip(files, notes):
        named = note.mate_name
        if (f.datatype == "raw_reads" and f.sample is not None and named is not None and named.mate and not named.strong
                and note.read_id_mate in (None, 1) and mates_of.get(f.sample, set()) == {named.mate}):
            # "x_1.fastq" alone: a single-end sample called "x_1", not mate 1 of "x"
            # (single-end Illumina reads all say read 1, so such ids do not make it a mate)
            ev = [e for e in f.evidence if not e.startswith(f"mate {named.mate} of sample")]
            ev.append(f"single-end sample '{named.stem}': name ends {named.suffix} but no mate "
                      f"{3 - named.mate} file among the inputs and no mate in the read ids")
            f = f.model_copy(update={"sample": named.stem, "mate": None, "evidence": tuple(ev)})
        out.append(f)
    groups: dict[tuple[str, int | None], list[str]] = {}
    for f in out:
        if f.datatype == "raw_reads" and f.sample is not None and not f.fact("interleaved", False):
            groups.setdefault((f.sample, f.mate), []).append(f.path)
    samples = dict.fromkeys(s for s, _ in groups)
    for s in samples:
        m1, m2 = groups.get((s, 1), []), groups.get((s, 2), [])
        if m1 and not m2:
            warnings.append(f"sample '{s}': mate 1 given ({quote_list(m1, 2)}) but no mate 2")
        if m2 and not m1:
            warnings.append(f"sample '{s}': mate 2 given ({quote_list(m2, 2)}) but no mate 1")
        if (m1 or m2) and groups.get((s, None)):
            warnings.append(f"sample '{s}' has both paired and unpaired FASTQ files")
    return _number_lanes(out, groups, warnings)


def _lane_of(f: SniffedFile) -> str:
    return str(f.fact("lane") or "")


def _number_lanes(files: list[SniffedFile], groups: Mapping[tuple[str, int | None], list[str]],
                  warnings: list[str]) -> list[SniffedFile]:
    """A sample with several files of one mate: its lanes (or re-runs), merged before its first step
    (nf-core/rnaseq's technical replicates). Each file keeps its lane (a sheet's lane column, an Illumina
    name's L001) when the sample's lanes are told apart so, else it is numbered in path order; mate 1
    and mate 2 must have the same lanes."""
    by_path = {f.path: f for f in files}
    lanes: dict[str, str] = {}
    for s in dict.fromkeys(s for s, _ in groups):
        mates = {m: sorted((by_path[p] for p in groups.get((s, m), [])), key=lambda f: (_lane_of(f), f.path))
                 for m in (1, 2, None)}
        if all(len(fs) < 2 for fs in mates.values()):
            continue
        for fs in mates.values():
            named = [_lane_of(f) for f in fs]
            keep = all(named) and len(set(named)) == len(named)
            lanes.update({f.path: (lane if keep else str(i)) for i, (f, lane) in enumerate(zip(fs, named), start=1)})
        one, two = ([lanes[f.path] for f in mates[m]] for m in (1, 2))
        if one and two and one != two:
            raise AmbiguousInputError(
                f"sample '{s}' has mate 1 files of lanes {', '.join(one)} and mate 2 files of lanes {', '.join(two)}: "
                "each lane needs both mates", ["to resolve, give both mate files of every lane of the sample (or a "
                "sample sheet with a lane column naming each lane's fastq_1 and fastq_2)"],
                {"sample": s, "mate_1": [f.path for f in mates[1]], "mate_2": [f.path for f in mates[2]]})
        count = max(len(fs) for fs in mates.values())
        warnings.append(f"sample '{s}': {count} lanes ({', '.join(lanes[f.path] for f in mates[1] or mates[None])}), "
                        "concatenated per mate before the sample's first step, or, where variants are called, "
                        "aligned lane by lane (a read group each) and merged")
    lane = "one of its sample's lanes"
    return [f.model_copy(update={"facts": (*(x for x in f.facts if x.name != "lane"),
                                           Fact(name="lane", value=lanes[f.path], evidence=lane))})
            if f.path in lanes else f for f in files]


def _column_sample(name: str) -> str:
    """featureCounts names count columns by BAM path: 'aln/ctrl_1.sorted.bam' -> 'ctrl_1'."""
    return file_sample(name)


def _check_cohort(files: list[SniffedFile], notes: list[Notes], warnings: list[str]) -> None:
    sheets = [f for f in files if f.datatype == "sample_metadata"]
    matrices = [f for f in files if f.datatype in ("raw_count_matrix", "normalized_count_matrix")]
    warnings.extend(f"{m.path}: estimated counts (Salmon/kallisto/RSEM via tximport, not whole numbers): the "
                    "count-based steps (DESeq2, edgeR, limma-voom, the VST) round them to whole numbers first, as "
                    "DESeq2's documentation advises for estimated counts"
                    for m in matrices if m.fact("estimated_counts"))
    for sheet in sheets:
        if without_data := sheet.fact("rows_without_data"):
            warnings.append(f"{sheet.path}: {count_noun(len(without_data), 'row')} without data, "
                            "left out of the analysis: "
                            + "; ".join(without_data[:10]) + (" ..." if len(without_data) > 10 else "")
                            + "; to resolve, fill them in or delete them")
        listed = set(sheet.fact("samples", []))
        for m in matrices:
            columns = {_column_sample(c) for c in m.fact("sample_names", [])}
            check_sheet_against_matrix(sheet, m, sheet.fact("samples", []), sorted(columns))
            missing = sorted(listed - columns)
            extra = sorted(columns - listed)
            if missing:
                warnings.append(f"{sheet.path} lists sample(s) {quote_list(missing)} that are not columns of {m.path}")
            if extra:
                warnings.append(f"{m.path} has column(s) {quote_list(extra)} that {sheet.path} does not list")
        if sheet.fact("patient_rows") and sheet.fact("status_column") == sheet.fact("condition_column"):
            continue  # tumour/normal status: one tumour and one normal per patient is the design, not a lack
        if sheet.fact("replicates") is not None and len(sheet.fact("replicates")) < 2:
            warnings.append(f"{sheet.path}: condition column '{sheet.fact('condition_column')}' has a single level "
                            "(nothing to compare)")
        elif (min_rep := sheet.fact("min_replicates")) is not None and min_rep < 2:
            reps = sheet.fact("replicates", {})
            single = [k for k, v in reps.items() if v < 2]
            warnings.append(f"{sheet.path}: level(s) {quote_list(single)} of '{sheet.fact('condition_column')}' have "
                            "fewer than 2 samples (no replicates)")
    dmp = {name for n in notes for name in n.dmp_files}
    if dmp and len(dmp) < 2:
        (have,) = dmp
        other = "names.dmp" if have == "nodes.dmp" else "nodes.dmp"
        warnings.append(f"a taxonomy dump needs nodes.dmp and names.dmp; only {have} is given (add {other})")
    for f in files:
        if f.format == "vcf.gz" and f.fact("bgzipped") is False:
            warnings.append(f"{f.path} is gzip- but not bgzip-compressed: tabix and bcftools need bgzip "
                            "(zcat FILE | bgzip > FILE.bgz)")

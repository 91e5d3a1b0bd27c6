"""Precondition check: the two mate files of each paired-end read input belong together.

Run by the generated `check_<constraint>...` rule before the guarded step. Inputs have the
guarded step's names (e.g. reads_1/reads_2); params: constraint, guarded_step, datatypes
(input name -> datatype id). For every <name>_1/<name>_2 pair it checks that both files exist,
are non-empty, gzip-compressed and readable, that their first 1000 FASTQ records have the
same read ids (a trailing /1 or /2 and any comment after the first space are ignored), and
that both files decompress to the end and hold the same number of records (a truncated
download or a mate with reads missing further down is caught; this reads each file once, at
a few hundred MB/s of FASTQ). On success it writes the `ok` sentinel with what was checked;
otherwise it names the sample and the file, says what is wrong and what to do, and exits with
status 1.
"""

import gzip
import logging
import os
import sys
import zlib

RECORDS = 1000
MATE_DATATYPES = {"raw_reads", "trimmed_reads", "host_depleted_reads"}
log = logging.getLogger("check_paired_mates")


def fail(message):
    log.error(message)
    print(f"ERROR: {message}", file=sys.stderr)
    sys.exit(1)


def as_list(value):
    return [value] if isinstance(value, str) else list(value)


def read_id(header):
    name = header[1:].split(None, 1)[0] if len(header) > 1 else ""
    if name.endswith(("/1", "/2")):
        name = name[:-2]
    return name


def first_records(path, who):
    """Return the read ids of the first RECORDS FASTQ records of a gzipped file."""
    if not os.path.exists(path):
        fail(f"{who}: the file {path} does not exist. Check the path in the sample sheet.")
    if os.path.getsize(path) == 0:
        fail(f"{who}: the file {path} is empty. Re-download or re-export this sample's reads.")
    with open(path, "rb") as handle:
        if handle.read(2) != b"\x1f\x8b":
            fail(f"{who}: {path} is not gzip-compressed. Compress it with `gzip` (or `bgzip`) "
                 "and point the sample sheet at the .fastq.gz file.")
    ids = []
    try:
        with gzip.open(path, "rt", errors="replace") as handle:
            while len(ids) < RECORDS:
                header = handle.readline()
                if not header:
                    break
                seq, plus, qual = handle.readline(), handle.readline(), handle.readline()
                number = len(ids) + 1
                if not header.startswith("@") or not plus.startswith("+"):
                    fail(f"{who}: {path} record {number} is not FASTQ (header {header.strip()[:60]!r}). "
                         "The file must hold 4-line FASTQ records.")
                if len(seq.rstrip("\r\n")) != len(qual.rstrip("\r\n")):
                    fail(f"{who}: {path} record {number} ({read_id(header)}) has a sequence and a "
                         "quality string of different lengths: the file is corrupt or truncated.")
                ids.append(read_id(header.rstrip("\r\n")))
    except (OSError, EOFError, zlib.error) as err:
        fail(f"{who}: {path} cannot be decompressed ({err}): the download is truncated or "
             "corrupt. Download the file again and check its checksum.")
    if not ids:
        fail(f"{who}: {path} holds no FASTQ records.")
    return ids


def count_records(path, who):
    """Number of FASTQ records in a whole gzipped file; fails on a truncated file."""
    lines, last = 0, b""
    try:
        with gzip.open(path, "rb") as handle:
            while chunk := handle.read(1 << 20):
                lines += chunk.count(b"\n")
                last = chunk[-1:]
    except (OSError, EOFError, zlib.error) as err:
        fail(f"{who}: {path} cannot be decompressed to the end ({err}): the file is truncated or "
             "corrupt. Download it again and check its checksum.")
    if last and last != b"\n":
        lines += 1
    if lines % 4:
        fail(f"{who}: {path} has {lines} lines, not a multiple of 4: its last FASTQ record is cut "
             "off, so the file is truncated. Download it again and check its checksum.")
    return lines // 4


def pairs(inputs, datatypes):
    names = list(inputs.keys())
    found = []
    for name in names:
        if name.endswith("_1") and name[:-2] + "_2" in names:
            base = name[:-2]
            datatype = datatypes.get(name) or datatypes.get(base)
            if datatype is None or datatype in MATE_DATATYPES:
                found.append((base, name, base + "_2"))
    return found


def main():
    params = snakemake.params
    datatypes = dict(params.get("datatypes", {}) or {})
    guarded = params.get("guarded_step", "the next step")
    sample = dict(snakemake.wildcards.items()).get("sample")
    who_sample = f"sample {sample!r}" if sample else "the cohort"
    inputs = {name: as_list(value) for name, value in snakemake.input.items()}
    found = pairs(inputs, datatypes)
    if not found:
        fail(f"{who_sample}: {guarded} needs paired-end reads (two mate files, _1 and _2), but its "
             f"inputs are {', '.join(inputs) or 'none'}. Give both mate files in the sample sheet, "
             "or choose a tool that accepts single-end reads.")
    lines = []
    for base, n1, n2 in found:
        files1, files2 = inputs[n1], inputs[n2]
        if len(files1) != len(files2):
            fail(f"{who_sample}: {len(files1)} files for {n1} but {len(files2)} for {n2}; every "
                 "sample needs exactly one file per mate.")
        for f1, f2 in zip(files1, files2):
            if os.path.abspath(f1) == os.path.abspath(f2):
                fail(f"{who_sample}: both mates of {base} are the same file {f1}. Give the _1 and "
                     "_2 files in the sample sheet.")
            ids1 = first_records(f1, f"{who_sample}, mate 1 of {base}")
            ids2 = first_records(f2, f"{who_sample}, mate 2 of {base}")
            for number, (a, b) in enumerate(zip(ids1, ids2), 1):
                if a != b:
                    fail(f"{who_sample}: read {number} is {a!r} in {f1} but {b!r} in {f2}. The mate "
                         "files are not in the same order or are not mates of each other; "
                         "re-export both files of this sample together (or restore the pairing "
                         "with a tool such as BBTools repair.sh).")
            if len(ids1) != len(ids2):
                short, n = (f1, len(ids1)) if len(ids1) < len(ids2) else (f2, len(ids2))
                fail(f"{who_sample}: {f1} and {f2} differ in read count ({short} ends after {n} "
                     "records): one mate file is truncated or has reads the other lacks. Download "
                     "both again or re-pair them.")
            total1 = count_records(f1, f"{who_sample}, mate 1 of {base}")
            total2 = count_records(f2, f"{who_sample}, mate 2 of {base}")
            if total1 != total2:
                short, n = (f1, total1) if total1 < total2 else (f2, total2)
                fail(f"{who_sample}: {f1} holds {total1} reads but {f2} holds {total2}: {short} ends "
                     f"after {n} records, so one mate file is truncated or lacks reads the other has. "
                     "Download both files of this sample again (check their checksums) or re-pair "
                     "them, then rerun.")
            lines.append(f"{base}: {f1} + {f2}: {total1} read pairs, first {len(ids1)} read ids match")
            log.info(lines[-1])
    with open(snakemake.output.ok, "w") as out:
        out.write(f"constraint\t{params.get('constraint', 'paired_mates')}\n")
        out.write(f"guarded_step\t{guarded}\n")
        if sample:
            out.write(f"sample\t{sample}\n")
        for line in lines:
            out.write(f"checked\t{line}\n")


if __name__ == "__main__":
    logging.basicConfig(filename=snakemake.log[0] if snakemake.log else None, level=logging.INFO,
                        format="%(levelname)s %(message)s")
    main()

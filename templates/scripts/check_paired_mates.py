"""Precondition check: the two mate files of each paired-end read input belong together.

Run by the generated `check_<constraint>...` rule before the guarded step. Inputs have the
guarded step's names (e.g. reads_1/reads_2); params: constraint, guarded_step, datatypes
(input name -> datatype id). For every <name>_1/<name>_2 pair it checks that both files exist,
are non-empty, gzip-compressed and readable, that their first 1000 FASTQ records have the
same read ids (a trailing /1 or /2 and any comment after the first space are ignored), and
that both files decompress to the end, hold the same number of records and end on the same
read id (a truncated download, a mate with reads missing further down or a mate file of
another sample is caught).

Scale: each mate is read once, both at the same time, through an external decompressor
(pigz, else gzip; Python's zlib when neither is on PATH) in its own process; this script only
counts newlines in the decompressed stream and keeps the last 64 KB, so memory stays constant
(~20 MB whatever the file size) and the check runs at the decompressor's speed. Read ids are
compared for the first 1000 and the last record, not for every record in between: a full
comparison would parse every record in Python at a fraction of that speed
(benchmarks/check_paired_mates.py measures a 2 GB pair). On success it writes the `ok`
sentinel with what was checked; otherwise it names the sample and the file, says what is wrong
and what to do, and exits with status 1.
"""

import gzip
import os
import shutil
import subprocess
import zlib
from concurrent.futures import ThreadPoolExecutor

import bioplan_step
from bioplan_step import LOG, as_list, fail

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)


RECORDS = 1000
MATE_DATATYPES = {"raw_reads", "trimmed_reads", "host_depleted_reads"}


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


def decompressor():
    """The fastest gzip decompressor on PATH (pigz, else gzip) as an argv prefix, or None.

    An external decompressor runs in its own process, so both mates decompress on two cores at
    tool speed while this script only counts newlines in the stream."""
    for tool in ("pigz", "gzip"):
        found = shutil.which(tool)
        if found:
            return [found, "-dc", "--"]
    return None


class MateStream:
    """Streams one gzipped mate file once, in constant memory: its line count and its last record.

    Lines are counted chunk by chunk; only the last TAIL bytes are kept, to read the last
    record's name. `error` is set when the file does not decompress to its end."""

    CHUNK = 1 << 20
    TAIL = 1 << 16

    def __init__(self, path):
        self.path, self.lines, self.size, self.tail, self.last_byte, self.error = path, 0, 0, b"", b"", None

    def feed(self, chunk):
        if not chunk:
            return
        self.size += len(chunk)
        self.lines += chunk.count(b"\n")
        self.tail = (self.tail + chunk)[-self.TAIL:]
        self.last_byte = chunk[-1:]

    def run(self, argv):
        try:
            if argv is None:
                self.run_zlib()
            else:
                self.run_pipe(argv)
        except (OSError, EOFError, zlib.error) as err:
            self.error = str(err)
        return self

    def run_pipe(self, argv):
        with subprocess.Popen(argv + [self.path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL) as proc:
            while chunk := proc.stdout.read(self.CHUNK):
                self.feed(chunk)
            message = proc.stderr.read().decode("utf-8", "replace").strip()
        if proc.returncode != 0:
            self.error = message.splitlines()[-1] if message else f"{argv[0]} exited with {proc.returncode}"

    def run_zlib(self):
        """Python's zlib (no decompressor on PATH): every gzip member (bgzip writes many) to its end."""
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        with open(self.path, "rb") as handle:
            while block := handle.read(self.CHUNK):
                while block:
                    if inflater.eof:  # the next gzip member starts
                        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
                    self.feed(inflater.decompress(block))
                    block = inflater.unused_data
        if not inflater.eof:
            self.error = "compressed data ends before the end-of-stream marker"

    def last_read_id(self):
        """The last record's read id, or None when the kept tail does not hold the whole record."""
        lines = self.tail.rstrip(b"\n").split(b"\n")
        whole = self.size <= self.TAIL  # else the first kept line may be cut: it is never used
        if len(lines) < (4 if whole else 5) or not lines[-4].startswith(b"@") or not lines[-2].startswith(b"+"):
            return None
        return read_id(lines[-4].decode("utf-8", "replace").rstrip("\r"))


def stream_mates(path1, path2):
    """Decompress both mates side by side (two decompressor processes) and stream them to the end."""
    argv = decompressor()
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(lambda path: MateStream(path).run(argv), (path1, path2)))


def count_records(stream, who):
    """Number of FASTQ records in a streamed mate; fails on a truncated or cut-off file."""
    if stream.error:
        fail(f"{who}: {stream.path} cannot be decompressed to the end ({stream.error}): the file is "
             "truncated or corrupt. Download it again and check its checksum.")
    lines = stream.lines + (1 if stream.last_byte and stream.last_byte != b"\n" else 0)
    if lines % 4:
        fail(f"{who}: {stream.path} has {lines} lines, not a multiple of 4: its last FASTQ record is "
             "cut off, so the file is truncated. Download it again and check its checksum.")
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
            stream1, stream2 = stream_mates(f1, f2)
            total1 = count_records(stream1, f"{who_sample}, mate 1 of {base}")
            total2 = count_records(stream2, f"{who_sample}, mate 2 of {base}")
            if total1 != total2:
                short, n = (f1, total1) if total1 < total2 else (f2, total2)
                fail(f"{who_sample}: {f1} holds {total1} reads but {f2} holds {total2}: {short} ends "
                     f"after {n} records, so one mate file is truncated or lacks reads the other has. "
                     "Download both files of this sample again (check their checksums) or re-pair "
                     "them, then rerun.")
            last1, last2 = stream1.last_read_id(), stream2.last_read_id()
            if last1 is not None and last2 is not None and last1 != last2:
                fail(f"{who_sample}: the last read is {last1!r} in {f1} but {last2!r} in {f2}. The mate "
                     "files hold the same number of reads but end on different reads: they are not "
                     "mates of each other or not in the same order; re-export both files of this "
                     "sample together (or restore the pairing with a tool such as BBTools repair.sh).")
            lines.append(f"{base}: {f1} + {f2}: {total1} read pairs, first {len(ids1)} and last read ids match")
            LOG.info(lines[-1])
    with open(snakemake.output.ok, "w") as out:
        out.write(f"constraint\t{params.get('constraint', 'paired_mates')}\n")
        out.write(f"guarded_step\t{guarded}\n")
        if sample:
            out.write(f"sample\t{sample}\n")
        for line in lines:
            out.write(f"checked\t{line}\n")


main()

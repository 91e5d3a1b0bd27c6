"""Benchmark: the paired-mates precondition check on a 2 GB gzipped FASTQ pair.

    python benchmarks/check_paired_mates.py              # 2 GiB pair (1 GiB per mate), plus a 1/8 pair
    python benchmarks/check_paired_mates.py --gib 0.25   # a smaller pair

The pair is written to a temporary folder and deleted afterwards. Each mate is one gzip member
of 150 bp reads with random bases and qualities (compressing about 2.8:1, like real Illumina
FASTQ), repeated until the file reaches its size: gzip readers decompress concatenated members
as one stream, so every repetition is decompressed for real. The check runs as a pipeline runs
it (templates/nextflow/bin/bioplan_run.py, the runner of the Nextflow target, with the script
the Snakemake target runs). Peak memory is the largest sum of VmRSS over the check's process
tree (the Python script and its two decompressors), sampled every 50 ms. Run at two sizes, the
peak must not grow with the input. The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNNER = ROOT / "templates" / "nextflow" / "bin" / "bioplan_run.py"
SCRIPT = ROOT / "templates" / "scripts" / "check_paired_mates.py"
MEMBER_READS = 100_000


BASES = bytes.maketrans(bytes(range(256)), b"ACGT" * 64)
QUALS = bytes.maketrans(bytes(range(256)), b"FFFFF:,#" * 32)


@functools.cache
def fastq_member(mate: int, reads: int = MEMBER_READS) -> tuple[bytes, int]:
    """One gzip member of `reads` 150 bp records of mate 1 or 2, and its decompressed size.

    The same seed for both mates: the same read names in the same order."""
    rng = random.Random(7)
    records = []
    for n in range(reads):
        seq = rng.randbytes(150).translate(BASES)
        qual = rng.randbytes(150).translate(QUALS)
        records.append(b"@SIM:1:FC:1:1:%d:7 %d:N:0:ACGT\n%s\n+\n%s\n" % (n, mate, seq, qual))
    text = b"".join(records)
    return gzip.compress(text, compresslevel=6, mtime=0), len(text)


def write_mate(path: Path, mate: int, size: int, reads: int = MEMBER_READS) -> tuple[int, int]:
    """Repeat one member until the file holds `size` bytes; returns its records and FASTQ bytes."""
    member, text_size = fastq_member(mate, reads)
    copies = max(1, size // len(member))
    with open(path, "wb") as out:
        for _ in range(copies):
            out.write(member)
    return copies * reads, copies * text_size


def tree_rss_kb(pid: int) -> int:
    """VmRSS summed over a process and its descendants (Linux /proc)."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            status = Path(f"/proc/{p}/status").read_text()
            total += next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
            children = Path(f"/proc/{p}/task/{p}/children").read_text().split()
        except (OSError, StopIteration):
            continue
        todo += [int(c) for c in children]
    return total


def run_check(mate1: Path, mate2: Path, workdir: Path) -> dict:
    params = workdir / "params.json"
    params.write_text(json.dumps({"constraint": "paired_end_reads", "guarded_step": "read_trimming",
                                  "datatypes": {"reads_1": "raw_reads", "reads_2": "raw_reads"}}))
    ok = workdir / "check.ok"
    argv = [sys.executable, str(RUNNER), str(SCRIPT), "--input", f"reads_1={mate1}", "--input",
            f"reads_2={mate2}", "--output", f"ok={ok}", "--params", str(params), "--log", str(workdir / "check.log")]
    peak, done = [0], threading.Event()
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], tree_rss_kb(proc.pid))
            time.sleep(0.05)

    watcher = threading.Thread(target=sample)
    watcher.start()
    out, err = proc.communicate()
    seconds = time.perf_counter() - start
    done.set()
    watcher.join()
    if proc.returncode != 0:
        sys.exit(f"the check failed on a good pair:\n{err.decode()}")
    return {"seconds": round(seconds, 1), "peak_rss_mb": round(peak[0] / 1024, 1), "ok": ok.read_text()}


def measure(gib: float, member_reads: int = MEMBER_READS) -> dict:
    with tempfile.TemporaryDirectory(prefix="bioplan-bench-mates-") as tmp:
        tmpdir = Path(tmp)
        size = int(gib * (1 << 30) / 2)  # the pair holds `gib`: half per mate
        mate1, mate2 = tmpdir / "s_R1.fastq.gz", tmpdir / "s_R2.fastq.gz"
        reads, fastq_bytes = write_mate(mate1, 1, size, member_reads)
        write_mate(mate2, 2, size, member_reads)
        pair_bytes = mate1.stat().st_size + mate2.stat().st_size
        result = run_check(mate1, mate2, tmpdir)
    if f"{reads} read pairs" not in result.pop("ok"):
        sys.exit(f"the check did not count the {reads} read pairs")
    return {"pair_gib": round(pair_bytes / (1 << 30), 2), "read_pairs": reads,
            "fastq_gib_decompressed": round(2 * fastq_bytes / (1 << 30), 2),
            **result}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=2.0, help="size of the gzipped pair (both mates), GiB")
    args = parser.parse_args()
    runs = [measure(args.gib / 8), measure(args.gib)]
    for run in runs:
        print(f"{run['pair_gib']:5.2f} GiB pair, {run['read_pairs']:>11,} read pairs: "
              f"{run['seconds']:6.1f} s, peak RSS {run['peak_rss_mb']:.0f} MB")
    print(json.dumps({"runs": runs, "cpus": os.cpu_count(), "load_avg_1min": round(os.getloadavg()[0], 1),
                      "decompressor": next((t for t in ("pigz", "gzip") if shutil.which(t)), "python zlib")}))


if __name__ == "__main__":
    main()

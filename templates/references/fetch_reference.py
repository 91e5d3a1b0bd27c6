#!/usr/bin/env python3
"""Download one reference from its pinned provider URLs, verify it, and unpack or derive it (bioplan).

Run by the fetch rules of a Snakemake workflow (`script:`, the `snakemake` object) and by the FETCH
processes of a Nextflow pipeline (command line). Standard library only.

    fetch_reference.py --output PATH --log PATH [--unpack none|gunzip|untar]
                       [--derive none|gene_id_mapping|tx2gene]
                       --source URL KIND CHECKSUM_URL [--source ...]

KIND is how the provider publishes the file's checksum:
  bsd_sum   Ensembl CHECKSUMS: `sum` output (BSD 16-bit checksum, 1 KiB blocks) and the file name
  md5       GENCODE MD5SUMS (`md5sum` lines) or NCBI FILE.md5 (one md5, with or without the name)
  recorded  no published checksum (MSigDB, the Kraken2 index): the first download's sha256 is
            written beside it (FILE.sha256) and a later download (or a reuse of the cached
            file) that differs is refused

Each downloaded file is kept beside the output, in the same (shared) cache folder, named as the
provider names it; a file already there whose checksum holds is not downloaded again, so several
workflows with one cache download each file once. Downloads go to a temporary name and are renamed
into place only once verified, under a lock file, so concurrent runs never see a partial file.
A checksum mismatch stops with an error naming the file, the URL and both checksums.

BIOPLAN_REFERENCE_MIRROR=URL reads every file from a mirror that keeps the providers' layout
(URL/<host>/<path>, e.g. URL/ftp.ensembl.org/pub/release-112/...): a site mirror, or the tests'
local server. The file names, checksums and cache paths stay those of the pinned URLs.
"""

import argparse
import csv
import fcntl
import gzip
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

_CHUNK = 1 << 20


class FetchError(Exception):
    """A download, checksum or unpacking problem: the message says which file and what to do."""


# --------------------------------------------------------------------------- checksums


def bsd_sum(path: Path) -> tuple[int, int]:
    """(checksum, 1 KiB blocks) as `sum` (BSD algorithm, the coreutils default) prints them."""
    try:  # coreutils is fast on multi-GB genomes; the Python loop below is the same algorithm
        out = subprocess.run(["sum", "-r", str(path)], capture_output=True, text=True, check=True).stdout.split()
        return int(out[0]), int(out[1])
    except (OSError, subprocess.CalledProcessError, ValueError, IndexError):
        pass
    checksum = 0
    size = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            size += len(chunk)
            for byte in chunk:
                checksum = ((checksum >> 1) | ((checksum & 1) << 15)) + byte
                checksum &= 0xFFFF
    return checksum, -(-size // 1024)


def digest(path: Path, algorithm: str) -> str:
    h = hashlib.new(algorithm)
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def published_checksum(listing: str, name: str, kind: str, shown: str) -> str:
    """The provider's checksum of `name` from the text of its checksum file."""
    lines = [ln.split() for ln in listing.splitlines() if ln.strip()]
    if kind == "bsd_sum":
        for fields in lines:
            if len(fields) >= 3 and fields[-1].lstrip("*") == name:
                return f"{int(fields[0])} {int(fields[1])}"
    else:
        for fields in lines:
            if len(fields) >= 2 and fields[-1].lstrip("*").removeprefix("./") == name:
                return fields[0].lower()
            if fields and fields[0].startswith("MD5(") and fields[0][4:].rstrip(")=") == name:
                return fields[-1].lower()
        if len(lines) == 1 and len(lines[0]) == 1:  # FILE.md5 holding only the digest
            return lines[0][0].lower()
    raise FetchError(f"{shown} does not list {name}: the provider's checksum file has no line for it; "
                     "to resolve, check the release in the URL (or supply the file yourself)")


def verify(path: Path, name: str, url: str, kind: str, checksum_url: str | None, log) -> None:
    if kind == "recorded":
        record = path.with_name(path.name + ".sha256")
        actual = digest(path, "sha256")
        if record.exists():
            expected = record.read_text().split()[0]
            if expected != actual:
                raise FetchError(f"checksum mismatch for {name} ({url}): sha256 {actual}, but {record} recorded "
                                 f"{expected} when it was first downloaded; to resolve, delete both and run again")
        else:
            record.write_text(f"{actual}  {name}\n")
            log(f"{name}: the provider publishes no checksum; recorded sha256 {actual} beside it in the cache")
        return
    if not checksum_url:
        raise FetchError(f"{name}: no checksum URL for a {kind} checksum")
    listing = read_url(checksum_url).decode("utf-8", "replace")
    expected = published_checksum(listing, name, kind, checksum_url)
    actual = "{} {}".format(*bsd_sum(path)) if kind == "bsd_sum" else digest(path, "md5")
    if actual != expected:
        raise FetchError(f"checksum mismatch for {name} ({url}): {checksum_url} says {expected}, the downloaded "
                         f"file has {actual}; the download is corrupt or the provider changed the file; to resolve, "
                         "run again (a partial download is never kept)")
    log(f"{name}: {kind} {actual} matches {checksum_url}")


# --------------------------------------------------------------------------- download


def mirrored(url: str) -> str:
    mirror = os.environ.get("BIOPLAN_REFERENCE_MIRROR", "").rstrip("/")
    if not mirror:
        return url
    return f"{mirror}/{url.split('://', 1)[1]}"


def read_url(url: str, retries: int = 3) -> bytes:
    for attempt in range(1, retries + 1):
        try:
            with urllib.request.urlopen(mirrored(url), timeout=120) as response:  # noqa: S310 - pinned provider URLs
                return response.read()
        except OSError as exc:
            missing = isinstance(exc, urllib.error.HTTPError) and 400 <= exc.code < 500
            if attempt == retries or missing:  # a file the server does not have: asking again will not help
                raise FetchError(f"cannot download {url}: {exc}; to resolve, check the network (or put the file "
                                 "at its path yourself)") from None
            time.sleep(2 * attempt)
    raise AssertionError("unreachable")


def download(url: str, dest: Path, final: Path, log) -> None:
    part = dest.with_name(f".{dest.name}.part-{os.getpid()}")
    try:
        with urllib.request.urlopen(mirrored(url), timeout=120) as response, open(part, "wb") as out:  # noqa: S310
            shutil.copyfileobj(response, out, _CHUNK)
    except OSError as exc:
        part.unlink(missing_ok=True)
        raise FetchError(f"cannot download {url}: {exc}; to resolve, check the network (or put the file at "
                         f"{final} yourself)") from None
    log(f"downloaded {url} ({part.stat().st_size} bytes)")
    os.replace(part, dest)


@contextmanager
def locked(path: Path):
    """An exclusive lock for one file of the cache: concurrent workflows download it once."""
    lock = path.with_name(f".{path.name}.lock")
    with open(lock, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def fetch(url: str, kind: str, checksum_url: str | None, cache: Path, log) -> Path:
    """The verified provider file in the cache, downloaded only when it is not there yet."""
    name = url.rsplit("/", 1)[1]
    path = cache / name
    with locked(path):
        if path.exists():
            try:
                verify(path, name, url, kind, checksum_url, log)
                log(f"{name}: already in {cache}, not downloaded again")
                return path
            except FetchError as exc:
                log(f"{name}: the copy in the cache fails its check ({exc}); downloading it again")
                path.unlink()
        tmp = cache / f".{name}.unverified-{os.getpid()}"
        download(url, tmp, path, log)
        try:
            verify(tmp, name, url, kind, checksum_url, log)
        except FetchError:
            tmp.unlink(missing_ok=True)
            tmp.with_name(tmp.name + ".sha256").unlink(missing_ok=True)
            raise
        if kind == "recorded":
            os.replace(tmp.with_name(tmp.name + ".sha256"), path.with_name(name + ".sha256"))
        os.replace(tmp, path)
        return path


# --------------------------------------------------------------------------- unpack / derive


def gunzip(src: Path, output: Path) -> None:
    part = output.with_name(f".{output.name}.part-{os.getpid()}")
    with gzip.open(src, "rb") as fh, open(part, "wb") as out:
        shutil.copyfileobj(fh, out, _CHUNK)
    os.replace(part, output)


def untar(src: Path, output: Path) -> None:
    part = output.with_name(f".{output.name}.part-{os.getpid()}")
    shutil.rmtree(part, ignore_errors=True)
    part.mkdir(parents=True)
    with tarfile.open(src) as tar:
        for member in tar.getmembers():  # nothing may land outside the folder
            target = (part / member.name).resolve()
            if not (member.isfile() or member.isdir()) or part.resolve() not in (target, *target.parents):
                raise FetchError(f"{src.name}: unsafe member {member.name!r} (a link or a path leaving the folder)")
        tar.extractall(part)  # noqa: S202 - members checked above
    inner = [p for p in part.iterdir()]
    if len(inner) == 1 and inner[0].is_dir():  # an archive holding one folder: that folder is the reference
        inner[0].rename(part.with_name(part.name + ".inner"))
        shutil.rmtree(part)
        part = part.with_name(part.name + ".inner")
    if output.exists():
        shutil.rmtree(output)
    os.replace(part, output)


def _gtf_attributes(field: str) -> dict[str, str]:
    out = {}
    for item in field.strip().split(";"):
        item = item.strip()
        if " " in item:
            key, value = item.split(" ", 1)
            out[key] = value.strip().strip('"')
    return out


def _gtf_rows(path: Path, feature: str):
    with gzip.open(path, "rt") if path.name.endswith(".gz") else open(path) as fh:
        for line in fh:
            if line.startswith("#"):
                continue
            f = line.rstrip("\n").split("\t")
            if len(f) == 9 and f[2] == feature:
                yield _gtf_attributes(f[8])


def derive_gene_id_mapping(entrez_tsv: Path, gtf: Path, output: Path) -> int:
    """ensembl_gene_id, entrez_id, symbol: Ensembl's Entrez cross-references with the GTF's gene names."""
    symbols = {a["gene_id"].split(".")[0]: a.get("gene_name", "") for a in _gtf_rows(gtf, "gene") if "gene_id" in a}
    pairs: dict[tuple[str, str], None] = {}
    with gzip.open(entrez_tsv, "rt") as fh:
        reader = csv.DictReader(fh, delimiter="\t")
        if not reader.fieldnames or "gene_stable_id" not in reader.fieldnames or "xref" not in reader.fieldnames:
            raise FetchError(f"{entrez_tsv.name}: expected Ensembl's columns gene_stable_id and xref, got "
                             f"{reader.fieldnames}")
        for row in reader:
            if row["xref"].isdigit() and row.get("db_name", "EntrezGene") in ("EntrezGene", "NCBI gene", ""):
                pairs[(row["gene_stable_id"], row["xref"])] = None
    part = output.with_name(f".{output.name}.part-{os.getpid()}")
    with open(part, "w", newline="") as out:
        w = csv.writer(out, delimiter="\t", lineterminator="\n")
        w.writerow(["ensembl_gene_id", "entrez_id", "symbol"])
        for gene, entrez in sorted(pairs):
            w.writerow([gene, entrez, symbols.get(gene, "")])
    os.replace(part, output)
    return len(pairs)


def derive_tx2gene(gtf: Path, output: Path) -> int:
    """TXNAME, GENEID of every transcript of the GTF (tximport's tx2gene)."""
    pairs = {(a["transcript_id"], a["gene_id"]): None for a in _gtf_rows(gtf, "transcript")
             if "transcript_id" in a and "gene_id" in a}
    part = output.with_name(f".{output.name}.part-{os.getpid()}")
    with open(part, "w", newline="") as out:
        out.write("TXNAME\tGENEID\n" + "".join(f"{t}\t{g}\n" for t, g in sorted(pairs)))
    os.replace(part, output)
    return len(pairs)


# --------------------------------------------------------------------------- main


def run(output: Path, sources: list[tuple[str, str, str | None]], unpack: str, derive: str, log_path: Path) -> None:
    output = Path(os.path.abspath(output))
    cache = output.parent
    cache.mkdir(parents=True, exist_ok=True)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "a", encoding="utf-8") as log_fh:
        def log(message: str) -> None:
            log_fh.write(message + "\n")
            log_fh.flush()

        files = [fetch(url, kind, checksum_url, cache, log) for url, kind, checksum_url in sources]
        with locked(output):
            if output.exists() and (derive != "none" or unpack != "none"):
                log(f"{output.name}: already in {cache}")
                return
            if derive == "gene_id_mapping":
                log(f"{output.name}: {derive_gene_id_mapping(files[0], files[1], output)} gene id pairs")
            elif derive == "tx2gene":
                log(f"{output.name}: {derive_tx2gene(files[0], output)} transcripts")
            elif unpack == "gunzip":
                gunzip(files[0], output)
            elif unpack == "untar":
                untar(files[0], output)
            elif files[0] != output:
                os.replace(files[0], output)
        log(f"{output}: ready")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Download one reference, verify it, unpack or derive it.")
    parser.add_argument("--output", required=True, type=Path)
    parser.add_argument("--log", required=True, type=Path)
    parser.add_argument("--unpack", default="none", choices=["none", "gunzip", "untar"])
    parser.add_argument("--derive", default="none", choices=["none", "gene_id_mapping", "tx2gene"])
    parser.add_argument("--source", nargs=3, action="append", required=True, metavar=("URL", "KIND", "CHECKSUM_URL"))
    args = parser.parse_args(argv)
    sources = [(u, k, None if c in ("-", "") else c) for u, k, c in args.source]
    try:
        run(args.output, sources, args.unpack, args.derive, args.log)
    except FetchError as exc:
        print(f"ERROR [fetch {args.output.name}]: {exc}", file=sys.stderr)
        with open(args.log, "a", encoding="utf-8") as fh:
            fh.write(f"ERROR: {exc}\n")
        return 1
    return 0


if __name__ == "__main__":
    if "snakemake" in globals():  # a Snakemake `script:`: the rule's params hold the command line
        sm = globals()["snakemake"]
        sys.exit(main(["--output", str(sm.output[0]), "--log", str(sm.log[0]), *sm.params.args]))
    sys.exit(main())

"""Fetched when wanted (issue 14): compile --fetch-references emits download rules with pinned provider
URLs whose files are checked against the provider's published checksums and kept in a shared cache.

Offline: a local HTTP server (127.0.0.1, a free port, stopped after the module; every request
logged) serves fixture files in each provider's directory layout with their checksum files (Ensembl
CHECKSUMS of BSD `sum`, GENCODE MD5SUMS, MSigDB without any); the fetch script reads them through
BIOPLAN_REFERENCE_MIRROR, so the URLs, file names and cache paths are the pinned ones.
"""

from __future__ import annotations

import gzip
import hashlib
import http.server
import importlib.util
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import yaml

from bioplan.compile import compile_request
from bioplan.paths import templates_dir

ROOT = Path(__file__).resolve().parent.parent
FETCH_SCRIPT = templates_dir() / "references" / "fetch_reference.py"
ENSEMBL = "ftp.ensembl.org/pub/release-112"
GENCODE_M25 = "ftp.ebi.ac.uk/pub/databases/gencode/Gencode_mouse/release_M25"
MSIGDB = "data.broadinstitute.org/gsea-msigdb/msigdb/release/2024.1.Mm"


def _fetch_module():
    spec = importlib.util.spec_from_file_location("fetch_reference", FETCH_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _write_gz(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(text.encode(), mtime=0))


def _ensembl_checksums(folder: Path) -> None:
    fetch = _fetch_module()
    lines = [f"{s} {b} {p.name}" for p in sorted(folder.iterdir()) if p.name != "CHECKSUMS"
             for s, b in [fetch.bsd_sum(p)]]
    (folder / "CHECKSUMS").write_text("\n".join(lines) + "\n")


GTF = ("#!genome-build GRCm39\n"
       '1\tensembl\tgene\t1\t900\t.\t+\t.\tgene_id "ENSMUSG00000000001"; gene_name "Gnai3";\n'
       '1\tensembl\ttranscript\t1\t900\t.\t+\t.\tgene_id "ENSMUSG00000000001"; transcript_id "ENSMUST00000000001";\n'
       '1\tensembl\tgene\t1000\t1900\t.\t-\t.\tgene_id "ENSMUSG00000000028"; gene_name "Cdc45";\n')


@pytest.fixture(scope="module")
def provider_server(tmp_path_factory):
    """(base URL, request log, root folder) of a local server in the providers' layouts."""
    root = tmp_path_factory.mktemp("providers")
    # Ensembl 112, mouse: genome FASTA, GTF, Entrez cross-references; CHECKSUMS per folder
    dna = root / ENSEMBL / "fasta/mus_musculus/dna"
    _write_gz(dna / "Mus_musculus.GRCm39.dna.primary_assembly.fa.gz", ">1\n" + "ACGT" * 500 + "\n")
    gtf = root / ENSEMBL / "gtf/mus_musculus"
    _write_gz(gtf / "Mus_musculus.GRCm39.112.gtf.gz", GTF)
    tsv = root / ENSEMBL / "tsv/mus_musculus"
    _write_gz(tsv / "Mus_musculus.GRCm39.112.entrez.tsv.gz",
              "gene_stable_id\ttranscript_stable_id\tprotein_stable_id\txref\tdb_name\tinfo_type\tsource_identity\t"
              "xref_identity\tlinkage_type\n"
              "ENSMUSG00000000001\tENSMUST00000000001\t-\t14679\tEntrezGene\tDEPENDENT\t-\t-\t-\n"
              "ENSMUSG00000000028\tENSMUST00000000028\t-\t12544\tEntrezGene\tDEPENDENT\t-\t-\t-\n")
    for folder in (dna, gtf, tsv):
        _ensembl_checksums(folder)
    # GENCODE M25 (GRCm38, chr names): MD5SUMS for the release folder
    gencode = root / GENCODE_M25
    _write_gz(gencode / "GRCm38.primary_assembly.genome.fa.gz", ">chr1\n" + "TTGA" * 300 + "\n")
    _write_gz(gencode / "gencode.vM25.annotation.gtf.gz", GTF.replace("\n1\t", "\nchr1\t"))
    (gencode / "MD5SUMS").write_text("".join(f"{hashlib.md5(p.read_bytes()).hexdigest()}  {p.name}\n"
                                             for p in sorted(gencode.glob("*.gz"))))
    # MSigDB mouse: no checksum file
    msig = root / MSIGDB
    msig.mkdir(parents=True)
    for name in ("m5.go.bp.v2024.1.Mm.entrez.gmt", "m5.go.bp.v2024.1.Mm.symbols.gmt"):
        (msig / name).write_text("GOBP_TEST\thttp://x\t14679\t12544\n")

    requests: list[str] = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(root), **kwargs)

        def log_message(self, fmt, *args):  # the test reads what was asked for
            requests.append(self.path)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.timeout = 10
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", requests, root
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _snakemake(workdir: Path, mirror: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "BIOPLAN_REFERENCE_MIRROR": mirror, "SLURM_CONF": os.devnull}
    return subprocess.run([str(Path(sys.executable).parent / "snakemake"), "--cores", "1", *args], cwd=workdir,
                          env=env, capture_output=True, text=True, timeout=300)


def _reads(workspace: Path) -> list[str]:
    return sorted(str(p) for p in (workspace / "data" / "rnaseq_fastq").glob("*.fastq.gz"))


ALIGN = "RNA-seq: align the reads with hisat2 and count reads per gene"


def test_bsd_sum_is_the_coreutils_algorithm(tmp_path):
    fetch = _fetch_module()
    data = tmp_path / "x.bin"
    data.write_bytes(bytes(range(256)) * 4099)
    by_sum = subprocess.run(["sum", "-r", str(data)], capture_output=True, text=True, check=True).stdout.split()
    assert fetch.bsd_sum(data) == (int(by_sum[0]), int(by_sum[1]))
    real = fetch.subprocess.run
    fetch.subprocess.run = lambda *a, **k: (_ for _ in ()).throw(OSError("no sum"))  # the pure-Python path
    try:
        assert fetch.bsd_sum(data) == (int(by_sum[0]), int(by_sum[1]))
    finally:
        fetch.subprocess.run = real


def test_without_the_option_nothing_is_downloaded(workspace, tmp_path):
    res = compile_request(f"mouse {ALIGN}", _reads(workspace), str(tmp_path / "wf" / "Snakefile"), validate=False)
    config = yaml.safe_load((res.output_dir / "config" / "config.yaml").read_text())
    assert config["fetch"] is False
    rules = (res.output_dir / "workflow" / "rules" / "references.smk").read_text()
    assert "https://ftp.ensembl.org/pub/release-112/fasta/mus_musculus/dna/Mus_musculus.GRCm39.dna" in rules
    assert "CHECKSUMS" in rules


def test_fetch_rules_download_verify_and_share_one_cache(workspace, tmp_path, provider_server):
    mirror, requests, _ = provider_server
    cache = tmp_path / "cache"
    first = compile_request(f"mouse {ALIGN}", _reads(workspace), str(tmp_path / "a" / "Snakefile"),
                            fetch_references=True, reference_cache=str(cache))
    assert first.checks and first.checks[0].ok, first.checks[0].output  # the pre-check dry-runs the downloads
    refs = {r.key: r for r in first.workflow.references}
    assert refs["reference_genome"].path == str(cache / "ensembl-112" / "Mus_musculus.GRCm39.dna.primary_assembly.fa")
    assert not list(cache.rglob("*")), "the pre-check never writes into the cache"
    run = _snakemake(first.output_dir, mirror, "fetch_reference_genome", "fetch_gene_annotation")
    assert run.returncode == 0, run.stderr[-3000:]
    genome = Path(refs["reference_genome"].path)
    assert genome.read_text().startswith(">1\nACGT")  # downloaded, verified, gunzipped
    assert Path(refs["gene_annotation"].path).read_text() == GTF
    log = (first.output_dir / "logs" / "fetch_references" / "reference_genome.log").read_text()
    assert "bsd_sum" in log and "matches" in log
    asked = list(requests)
    assert any(p.endswith("/dna/CHECKSUMS") for p in asked)

    # a second run downloads nothing
    again = _snakemake(first.output_dir, mirror, "fetch_reference_genome", "fetch_gene_annotation")
    assert again.returncode == 0 and "Nothing to be done" in again.stdout + again.stderr
    assert requests == asked

    # a second workflow with the same cache: the GTF is there, only the Entrez table is downloaded
    data = workspace / "data" / "bulk_de"
    second = compile_request("mouse bulk RNA-seq raw counts: differential expression, then KEGG enrichment",
                             [str(data / "counts.csv"), str(data / "samples.tsv"), str(data / "gene_sets_kegg.gmt")],
                             str(tmp_path / "b" / "Snakefile"), fetch_references=True, reference_cache=str(cache))
    before = len(requests)
    run = _snakemake(second.output_dir, mirror, "fetch_gene_id_mapping")
    assert run.returncode == 0, run.stderr[-3000:]
    new = requests[before:]
    assert any(p.endswith("Mus_musculus.GRCm39.112.entrez.tsv.gz") for p in new)
    assert not any(p.endswith(".gtf.gz") for p in new), new  # shared: taken from the cache
    mapping = Path(next(r.path for r in second.workflow.references if r.key == "gene_id_mapping"))
    assert mapping.read_text().splitlines() == ["ensembl_gene_id\tentrez_id\tsymbol",
                                                 "ENSMUSG00000000001\t14679\tGnai3",
                                                 "ENSMUSG00000000028\t12544\tCdc45"]
    # the first workflow's references stay in place: its dry run plans no download
    dry = _snakemake(first.output_dir, mirror, "-n")
    assert dry.returncode == 0, dry.stderr[-2000:]
    assert "fetch_reference_genome" not in dry.stdout and "fetch_gene_annotation" not in dry.stdout


def test_gencode_md5_and_msigdb_recorded_sha256(workspace, tmp_path, provider_server):
    mirror, _, _ = provider_server
    cache = tmp_path / "cache"
    res = compile_request(f"mouse mm10 {ALIGN}", _reads(workspace), str(tmp_path / "g" / "Snakefile"),
                          fetch_references=True, reference_cache=str(cache), validate=False)
    run = _snakemake(res.output_dir, mirror, "fetch_reference_genome")
    assert run.returncode == 0, run.stderr[-3000:]
    genome = Path(next(r.path for r in res.workflow.references if r.key == "reference_genome"))
    assert genome.name == "GRCm38.primary_assembly.genome.fa" and genome.read_text().startswith(">chr1")
    log = (res.output_dir / "logs" / "fetch_references" / "reference_genome.log").read_text()
    assert "md5" in log and "MD5SUMS" in log

    data = workspace / "data" / "bulk_de"
    go = compile_request("mouse bulk RNA-seq raw counts: differential expression, then GO enrichment",
                         [str(data / "counts.csv"), str(data / "samples.tsv"), str(data / "id_mapping.tsv")],
                         str(tmp_path / "go" / "Snakefile"), fetch_references=True, reference_cache=str(cache),
                         validate=False)
    key = next(r.key for r in go.workflow.references if r.datatype == "gene_set_library")
    run = _snakemake(go.output_dir, mirror, f"fetch_{key}")
    assert run.returncode == 0, run.stderr[-3000:]
    gmt = Path(next(r.path for r in go.workflow.references if r.key == key))
    record = gmt.with_name(gmt.name + ".sha256")
    assert record.read_text().split()[0] == hashlib.sha256(gmt.read_bytes()).hexdigest()


def _serve_a_cdna_with_a_wrong_checksum(root: Path) -> None:
    """The mouse cDNA FASTA in the server's Ensembl layout, with a CHECKSUMS line that is not its sum."""
    folder = root / ENSEMBL / "fasta/mus_musculus/cdna"
    _write_gz(folder / "Mus_musculus.GRCm39.cdna.all.fa.gz", ">ENSMUST00000000001\nACGT\n")
    (folder / "CHECKSUMS").write_text("12345 1 Mus_musculus.GRCm39.cdna.all.fa.gz\n")


def test_a_checksum_mismatch_fails_the_rule_naming_the_file(workspace, tmp_path, provider_server):
    mirror, _, root = provider_server
    _serve_a_cdna_with_a_wrong_checksum(root)
    res = compile_request("mouse RNA-seq: quantify transcripts with salmon", _reads(workspace),
                          str(tmp_path / "s" / "Snakefile"), fetch_references=True,
                          reference_cache=str(tmp_path / "cache"), validate=False)
    key = next(r.key for r in res.workflow.references if r.datatype == "transcriptome")
    run = _snakemake(res.output_dir, mirror, f"fetch_{key}")
    assert run.returncode != 0
    assert "checksum mismatch for Mus_musculus.GRCm39.cdna.all.fa.gz" in run.stderr
    assert "says 12345 1" in run.stderr
    left = [p.name for p in (tmp_path / "cache").rglob("*") if p.is_file() and not p.name.endswith(".lock")]
    assert left == [], f"nothing unverified stays in the cache: {left}"


def test_the_start_check_lets_fetch_true_download_what_is_missing(workspace, tmp_path):
    res = compile_request(f"mouse {ALIGN}", _reads(workspace), str(tmp_path / "wf" / "Snakefile"), validate=False)
    run = _snakemake(res.output_dir, "http://127.0.0.1:9", "-n")
    assert run.returncode != 0 and "or set fetch: true to download it" in run.stderr + run.stdout
    run = _snakemake(res.output_dir, "http://127.0.0.1:9", "-n", "fetch_reference_genome", "fetch_gene_annotation",
                     "--config", "fetch=True")
    assert run.returncode == 0, run.stderr[-2000:]
    assert "rule fetch_reference_genome:" in run.stdout and "rule fetch_gene_annotation:" in run.stdout


def test_nextflow_fetch_processes_with_pinned_urls_and_a_store_dir(workspace, tmp_path, nf_lint):
    """Nextflow: --fetch true runs FETCH_<REFERENCE> (storeDir = the cache) for missing references only;
    Nextflow's own strict parser accepts the pipeline (the run is the next test)."""
    cache = tmp_path / "cache"
    res = compile_request(f"mouse {ALIGN}", _reads(workspace), str(tmp_path / "nf" / "main.nf"), target="nextflow",
                          fetch_references=True, reference_cache=str(cache))
    root = res.output_dir
    main = (root / "main.nf").read_text(encoding="utf-8")
    assert "include { FETCH_REFERENCE as FETCH_REFERENCE_GENOME } from './modules/local/fetch_reference/main'" in main
    assert ("ch_reference_genome = params.fetch && !file(params.reference_genome).exists() ? "
            "FETCH_REFERENCE_GENOME(ch_fetch_reference_genome).reference.first()") in main
    assert ("https://ftp.ensembl.org/pub/release-112/fasta/mus_musculus/dna/Mus_musculus.GRCm39.dna.primary_assembly"
            ".fa.gz bsd_sum https://ftp.ensembl.org/pub/release-112/fasta/mus_musculus/dna/CHECKSUMS") in main
    module = (root / "modules" / "local" / "fetch_reference" / "main.nf").read_text(encoding="utf-8")
    assert 'storeDir "${store}"' in module and "fetch_reference.py --output ${name}" in module
    assert (root / "bin" / "fetch_reference.py").stat().st_mode & 0o111
    config = (root / "nextflow.config").read_text(encoding="utf-8")
    assert "fetch = true" in config
    assert f"reference_genome = '{cache}/ensembl-112/Mus_musculus.GRCm39.dna.primary_assembly.fa'" in config
    lint = nf_lint(root)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    plain = compile_request(f"mouse {ALIGN}", _reads(workspace), str(tmp_path / "nf2" / "main.nf"), target="nextflow")
    assert "fetch = false" in (plain.output_dir / "nextflow.config").read_text(encoding="utf-8")


def _nextflow() -> str | None:
    """The Nextflow launcher scripts/install-nextflow.sh installs ($BIOPLAN_NEXTFLOW, .venv/bin, its
    prefix), else PATH; None when there is none."""
    import shutil

    prefixes = sorted((Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "bioplan").glob("nextflow-*"))
    for candidate in [os.environ.get("BIOPLAN_NEXTFLOW", ""), str(ROOT / ".venv" / "bin" / "nextflow"),
                      *(str(p / "bin" / "nextflow") for p in reversed(prefixes)), shutil.which("nextflow") or ""]:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def _fetch_only(root: Path, key: str) -> str:
    """A pipeline of the emitted FETCH_REFERENCE module alone, fed the request tuple main.nf builds for
    one reference (URLs, checksum files, cache): the file name written into `root`."""
    import re

    main = (root / "main.nf").read_text(encoding="utf-8")
    request = re.search(rf"ch_fetch_{key} = .*? \? channel\.of\((\[.*\])\) : channel\.empty\(\)", main)
    assert request, f"main.nf builds no fetch request for {key}"
    (root / f"fetch_{key}.nf").write_text(
        "include { FETCH_REFERENCE } from './modules/local/fetch_reference/main'\n\n"
        f"params.{key} = null\n\nworkflow {{\n"
        f"    FETCH_REFERENCE(channel.of({request.group(1)}))\n}}\n")
    return f"fetch_{key}.nf"


def test_nextflow_fetch_process_downloads_verifies_and_stores_once(workspace, tmp_path, provider_server):
    """The emitted FETCH process, run by Nextflow on the emitted request tuple: downloads from the local
    provider server, verifies against CHECKSUMS, stores in the cache; a second run is skipped (storeDir);
    another workflow with the same cache takes the file from it; a checksum mismatch fails naming the file."""
    nextflow = _nextflow()
    if nextflow is None:
        from tests.conftest import skip_or_fail_in_ci

        skip_or_fail_in_ci("no Nextflow runtime (bash scripts/install-nextflow.sh .venv/bin)")
    mirror, requests, server_root = provider_server
    cache = tmp_path / "cache"
    env = {**os.environ, "BIOPLAN_REFERENCE_MIRROR": mirror, "NXF_OFFLINE": "true", "NXF_ANSI_LOG": "false",
           "NXF_HOME": str(tmp_path / "nxf_home")}

    def compiled(query: str, where: str):
        return compile_request(query, _reads(workspace), str(tmp_path / where / "main.nf"), target="nextflow",
                               fetch_references=True, reference_cache=str(cache), validate=False)

    def run(res, key: str) -> subprocess.CompletedProcess:
        import nextflow_jvm

        path = next(r.path for r in res.workflow.references if r.key == key)
        return nextflow_jvm.run([nextflow, "run", _fetch_only(res.output_dir, key), f"--{key}", path],
                                cwd=res.output_dir, env=env, timeout=600)

    first_workflow = compiled(f"mouse {ALIGN}", "nf")
    first = run(first_workflow, "reference_genome")
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-2000:]
    genome = Path(next(r.path for r in first_workflow.workflow.references if r.key == "reference_genome"))
    assert genome.read_text().startswith(">1\nACGT") and genome.parent.parent == cache
    (log,) = (first_workflow.output_dir / "work").rglob("*.fetch.log")  # verified before it was stored
    assert "bsd_sum" in log.read_text() and "matches" in log.read_text()
    asked = list(requests)
    assert any(p.endswith("/dna/CHECKSUMS") for p in asked)
    # a second run downloads nothing
    second = run(first_workflow, "reference_genome")
    assert second.returncode == 0 and "Stored process > FETCH_REFERENCE" in second.stdout, second.stdout[-2000:]
    assert requests == asked
    # another workflow (STAR, not HISAT2) with its own work folder and the same cache: taken from the cache
    other_workflow = compiled("mouse RNA-seq: align the reads with star and count reads per gene", "nf_star")
    other = run(other_workflow, "reference_genome")
    assert other.returncode == 0 and "Stored process > FETCH_REFERENCE" in other.stdout, other.stdout[-2000:]
    assert requests == asked
    # a checksum mismatch fails the process, naming the file; nothing unverified is stored
    _serve_a_cdna_with_a_wrong_checksum(server_root)
    salmon = compiled("mouse RNA-seq: quantify transcripts with salmon", "nf_salmon")
    bad = run(salmon, "transcriptome")
    assert bad.returncode != 0
    assert "checksum mismatch for Mus_musculus.GRCm39.cdna.all.fa.gz" in bad.stdout + bad.stderr, bad.stdout[-3000:]
    assert not list(cache.rglob("*cdna*")), "nothing unverified enters the cache"

#!/usr/bin/env bash
# Set up bioplan on a fresh machine: a virtualenv with bioplan, its pinned dependencies, the pinned
# Python tools (`tools` extra), the SLURM executor plugin (`slurm` extra, for the cluster profile and
# tests/test_slurm.py) and the test tools, the Debian packages of the real tools
# (scripts/install-tools.sh, skipped when present), then compile the bulk RNA-seq example (request +
# generated example data) to out/bulk_de/.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
# --no-compile: pip byte-compiles each package's modules one after the other; all of them are
# compiled at the end instead, on every core (below)
.venv/bin/python -m pip install --quiet --no-compile --upgrade pip
# uv installs the ~190 packages with parallel downloads and unpacking (38 s here on a cold cache, pip 80 s);
# where uv cannot reach the index (a proxy only pip is configured for), pip does it
.venv/bin/python -m pip install --quiet --no-compile "uv==0.13.9"
.venv/bin/uv pip install --quiet --python .venv/bin/python -e ".[test,tools,slurm]" \
    || .venv/bin/python -m pip install --quiet --no-compile -e ".[test,tools,slurm]"
# the Debian packages, then the Python tools the extra cannot carry (UMI-tools: built without
# build isolation) into the venv; each part is skipped when present
bash scripts/install-tools.sh .venv/bin/python
bash scripts/install-nextflow.sh .venv/bin  # Nextflow 25.04.4 + nf-schema, offline (docs/nextflow-runtime.md)
# Byte-compile every module of the venv (and bioplan's own), on every core (~85 CPU-s once for ~15,000
# modules). Python caches a module's bytecode only when PYTHONDONTWRITEBYTECODE is unset; where it is set
# (CI machines, many HPC environments), every start of snakemake -- each rule's script job too -- and of
# the Python tools would compile their modules again: a snakemake start 2.3 -> 3.8 CPU-s. Some packages
# ship Python 2 files they never import (quast's bundled joblib2): as pip does, those are left
# uncompiled, hence `|| true`.
.venv/bin/python -m compileall -qq -j 0 \
    "$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" compiler || true
.venv/bin/python examples/generate.py data --only bulk_de
# a compile of an older bioplan (Snakefile at the top, before the workflow/ layout) is replaced whole
if [ -f out/bulk_de/Snakefile ]; then rm -rf out/bulk_de; fi
.venv/bin/bioplan compile "$(cat examples/bulk_de/request.txt)" \
    -i data/bulk_de/counts.csv -i data/bulk_de/samples.tsv \
    -i data/bulk_de/gene_sets_kegg.gmt -i data/bulk_de/gene_sets_go.gmt -i data/bulk_de/id_mapping.tsv \
    -o out/bulk_de --force

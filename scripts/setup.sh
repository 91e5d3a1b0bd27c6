#!/usr/bin/env bash
# Set up bioplan on a fresh machine: a virtualenv with bioplan, its pinned dependencies, the pinned
# Python tools (`tools` extra), the SLURM executor plugin (`slurm` extra, for the cluster profile and
# tests/test_slurm.py) and the test tools, the Debian packages of the real tools
# (scripts/install-tools.sh, skipped when present), then compile the bulk RNA-seq example (request +
# generated example data) to out/bulk_de/.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
# --no-compile: pip would byte-compile all ~15,000 modules of the dependencies (about half of the
# install's CPU time); Python compiles (and caches) only the modules a run imports, when it imports them
.venv/bin/python -m pip install --quiet --no-compile --upgrade pip
.venv/bin/python -m pip install --quiet --no-compile -e ".[test,tools,slurm]"
# the Debian packages, then the Python tools the extra cannot carry (UMI-tools: built without
# build isolation) into the venv; each part is skipped when present
bash scripts/install-tools.sh .venv/bin/python
bash scripts/install-nextflow.sh .venv/bin  # Nextflow 25.04.4 + nf-schema, offline (docs/nextflow-runtime.md)
.venv/bin/python examples/generate.py data --only bulk_de
# a compile of an older bioplan (Snakefile at the top, before the workflow/ layout) is replaced whole
if [ -f out/bulk_de/Snakefile ]; then rm -rf out/bulk_de; fi
.venv/bin/bioplan compile "$(cat examples/bulk_de/request.txt)" \
    -i data/bulk_de/counts.csv -i data/bulk_de/samples.tsv \
    -i data/bulk_de/gene_sets_kegg.gmt -i data/bulk_de/gene_sets_go.gmt -i data/bulk_de/id_mapping.tsv \
    -o out/bulk_de --force

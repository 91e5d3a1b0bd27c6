"""What each step reports as its software (codegen/provenance.py): versions keyed by the bioconda
package, as nf-core does, and version commands that print the version itself (issue 15)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bioplan.codegen.nextflow import version_number_command
from bioplan.codegen.provenance import conda_package, package_name
from bioplan.knowledge.models import Software

VERSION = re.compile(r"^[0-9]+(\.[0-9]+)+[a-z]?$")
# the tools extra's Python (scipy, multiqc) first on PATH, as in the e2e runs
PATH = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")


def test_conda_package_names():
    assert conda_package("bioconda::subread=2.0.6") == "subread"
    assert conda_package("conda-forge::python-igraph=0.11.4") == "python-igraph"
    assert conda_package("bioconda::trim-galore=0.6.10") == "trim-galore"
    assert conda_package("pandas") == "pandas"


@pytest.mark.parametrize("tool, package", [
    ("featurecounts", "subread"),  # the package, not the command nor the bioplan id
    ("bowtie2_host_removal", "bowtie2"),
    ("bowtie2", "bowtie2"),  # a mulled container (bowtie2 + samtools + pigz): the pinned tool version
    ("trimgalore", "trim-galore"),
    ("deseq2", "bioconductor-deseq2"),
    ("limma_voom", "bioconductor-limma"),  # runs in the edgeR container
    ("da_clr_welch", "scipy"),  # the step's statistics are SciPy's, in the scanpy image
    ("scanpy_qc", "scanpy"),  # a Wave image: the conda package pinned at the version
])
def test_versions_are_keyed_by_the_package(knowledge, tool, package):
    assert package_name(knowledge.tools[tool].software) == package


def test_an_explicit_package_wins():
    software = Software(conda=("bioconda::bioconductor-tximeta=1.20.1",), version="1.20.1",
                        container="quay.io/biocontainers/bioconductor-tximeta:1.20.1--r43hdfd78af_0",
                        version_command="Rscript -e 'x'", package="bioconductor-tximport")
    assert package_name(software) == "bioconductor-tximport"


def test_every_tool_reports_a_package_its_env_or_image_names(knowledge):
    """A versions key that is none of the env's packages nor the image's would be made up."""
    for tool in knowledge.tools.values():
        name = package_name(tool.software)
        if tool.software.package is None:
            assert name in {conda_package(s) for s in tool.software.conda} | {
                tool.software.container.rsplit("/", 1)[-1].split(":")[0]}, tool.id
        assert name != tool.id or name in {conda_package(s) for s in tool.software.conda}, tool.id


@pytest.mark.parametrize("tool, executable", [
    ("fastqc", "fastqc"), ("fastp", "fastp"), ("bowtie2", "bowtie2"), ("bowtie2_host_removal", "bowtie2"),
    ("bowtie2_build", "bowtie2-build"), ("featurecounts", "featureCounts"), ("samtools_stats", "samtools"),
    ("star", "STAR"), ("kraken2", "kraken2"), ("bcftools_filter", "bcftools"), ("snpeff", "snpEff"),
    ("da_clr_welch", "python"), ("multiqc", "multiqc"),
])
def test_version_command_prints_exactly_the_version(knowledge, tool, executable):
    """The tool's own command prints the bare version (fastp on stderr, FastQC's 'FastQC v...' and
    Bowtie2's '<path> version ...' parsed), and the versions topic's command keeps it whole."""
    command = knowledge.tools[tool].software.version_command
    if shutil.which(executable, path=PATH) is None:
        pytest.skip(f"{executable} not on PATH")
    if tool == "da_clr_welch":
        pytest.importorskip("scipy")
    own = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PATH": PATH})
    if tool in ("fastqc", "fastp", "bowtie2", "bowtie2_host_removal", "bowtie2_build", "da_clr_welch", "multiqc"):
        assert VERSION.match(own.stdout.strip()), (tool, own.stdout, own.stderr)
    topic = subprocess.run(["bash", "-c", version_number_command(command)], capture_output=True, text=True,
                           timeout=120, env={**os.environ, "PATH": PATH})
    assert topic.returncode == 0 and VERSION.match(topic.stdout.strip()), (tool, topic.stdout, topic.stderr)
    if own.stdout.strip() and VERSION.match(own.stdout.strip()):
        assert topic.stdout.strip() == own.stdout.strip()


def test_versions_topic_fails_without_a_version():
    done = subprocess.run(["bash", "-c", version_number_command("echo no version here")], capture_output=True)
    assert done.returncode != 0

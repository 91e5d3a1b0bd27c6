"""What a step reports as its software: the package name under which a tool's version is recorded.

nf-core keys a module's versions by the tool's package (`fastp`, `bowtie2`, `subread`), not by
the pipeline's own step or module names; bioplan does the same, so a versions table reads the
same whichever bioplan tool (bowtie2, bowtie2_build, bowtie2_host_removal) ran the package.
"""

from __future__ import annotations

import re

from bioplan.knowledge.models import Software

# quay.io/biocontainers/<package>:<version>--<build>: a single-package biocontainer names its package
_BIOCONTAINER = re.compile(r"^(?:docker://)?quay\.io/biocontainers/(?P<name>[a-z0-9_.-]+):")
# channel::name=version (channel and version optional)
_CONDA_SPEC = re.compile(r"^(?:[\w.-]+::)?(?P<name>[\w.-]+?)(?:[=<>!~].*)?$")


def conda_package(spec: str) -> str:
    """The package of one conda spec: 'bioconda::subread=2.0.6' -> 'subread'."""
    match = _CONDA_SPEC.match(spec.strip())
    return match.group("name") if match else spec


def package_name(software: Software) -> str:
    """The package whose version the tool's `version_command` prints: the tool's explicit `package`,
    else the package of a single-package biocontainer, else the conda package pinned at the tool's
    version, else the first conda package."""
    if software.package:
        return software.package
    container = _BIOCONTAINER.match(software.container)
    if container and not container.group("name").startswith("mulled-v2"):
        return container.group("name")
    pinned = [conda_package(s) for s in software.conda if s.rpartition("=")[2] == software.version]
    return pinned[0] if pinned else conda_package(software.conda[0])

"""The software versions table of a workflow: which version command runs in which environment.

Every tool step's package reports its version by running the tool's `version_command` inside that
tool's own conda env / container (the version actually installed, not the one the knowledge pins),
keyed by the package as codegen/provenance.py names it, so the table reads like the Nextflow target's
`pipeline_info/software_versions.yml`. A package several steps use (bowtie2 and bowtie2_build) is
asked once, in the env of the first step that uses it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bioplan.codegen.ir import Workflow
from bioplan.codegen.provenance import package_name
from bioplan.knowledge.models import Knowledge

TABLE = "results/pipeline_info/software_versions.yml"
# MultiQC reads `*_mqc_versions.yml` files ({package: version}) into its Software Versions section
MULTIQC_TABLE = "results/pipeline_info/software_versions_mqc_versions.yml"


@dataclass(frozen=True)
class VersionSource:
    package: str  # the key in the table
    command: str  # the tool's version command (prints the version, maybe among other text)
    env: str  # the step's conda env file (envs/<env>)
    container: str  # the step's container image

    @property
    def slug(self) -> str:
        """The package as a rule-name part (package names may hold '-' and '.')."""
        return re.sub(r"\W", "_", self.package)

    @property
    def output(self) -> str:
        return f"results/pipeline_info/versions/{self.package}.yml"


def version_sources(knowledge: Knowledge, workflow: Workflow) -> tuple[VersionSource, ...]:
    """One source per package of the workflow's tool steps, sorted by package."""
    found: dict[str, VersionSource] = {}
    for step in workflow.steps:
        if step.kind != "tool" or step.tool is None:
            continue
        software = knowledge.tools[step.tool].software
        package = package_name(software)
        found.setdefault(package, VersionSource(package=package, command=software.version_command,
                                                env=step.env, container=step.container))
    return tuple(found[p] for p in sorted(found))

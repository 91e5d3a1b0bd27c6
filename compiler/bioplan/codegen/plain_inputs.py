"""Given files a step cannot read in their plain (uncompressed) form, refused at compile time.

Most tools read FASTQ and FASTA whether gzipped or not, so the binder lets a plain file (reads.fastq)
feed a port of the compressed format (fastq.gz). Some do not: STAR's `--readFilesCommand gunzip -c`
and the paired-end mate check (templates/scripts/check_paired_mates.py) read gzip only. The knowledge
says which (a tool port's `compressed_only`, a constraint's `check_formats`); a workflow that would
hand a plain given file to one of them stops here, naming the files, the step and the command that
compresses them, instead of compiling and then failing at run time.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable

from bioplan.codegen.ir import IOPort, Workflow, WorkflowStep, _rel
from bioplan.errors import UnreadableInputError
from bioplan.knowledge.models import Knowledge
from bioplan.models import SpecInput


def _needs(knowledge: Knowledge, step: WorkflowStep, port: IOPort) -> tuple[str, str] | None:
    """The compressed format the step reads on `port` only, and who reads it (None: plain is read too)."""
    if step.kind == "check" and step.constraint in knowledge.constraints:
        formats = knowledge.constraints[step.constraint].check_formats
        if formats and port.format and port.format.removesuffix(".gz") + ".gz" in formats:
            label = knowledge.constraints[step.constraint].label.lower()
            return port.format.removesuffix(".gz") + ".gz", f"the check of {label} ({step.script or step.id})"
        return None
    tool = knowledge.tools.get(step.tool or "")
    spec = tool.inputs.get(port.port) if tool is not None else None
    if tool is not None and spec is not None and spec.compressed_only and spec.format.endswith(".gz"):
        return spec.format, f"{tool.name} (step {step.id})"
    return None


def _given(workflow: Workflow, port: IOPort) -> list[str]:
    """The given files a port reads: a sample sheet column's values, or a given file of the config."""
    if port.ref.kind == "samplesheet":
        return [row[port.ref.path] for row in workflow.samples if row.get(port.ref.path)]
    if port.ref.kind == "config_input":
        return [c.path for c in workflow.config_inputs if c.key == port.ref.path and c.path]
    return []


def refuse_plain_inputs(knowledge: Knowledge, workflow: Workflow, inputs: Iterable[SpecInput],
                        workdir: str | None) -> None:
    """UnreadableInputError when a step reads only compressed files and a given file it reads is plain
    (its sniffed format, from the content: a gzipped file named .fastq counts as compressed)."""
    given = {_rel(i.path, workdir): i for i in inputs}
    plain: dict[str, set[str]] = {}  # compressed format -> the user's paths of plain files
    readers: dict[str, list[str]] = {}
    for step in workflow.steps:
        for port in step.inputs:
            need = _needs(knowledge, step, port)
            if need is None:
                continue
            files = {given[f].path for f in _given(workflow, port)
                     if f in given and not given[f].format.endswith(".gz")}
            if files:
                plain.setdefault(need[0], set()).update(files)
                readers.setdefault(need[0], []).append(need[1])
    if not plain:
        return
    fmt = sorted(plain)[0]
    paths = sorted(plain[fmt])
    who = list(dict.fromkeys(readers[fmt]))
    shown = ", ".join(paths[:6]) + (f" and {len(paths) - 6} more" if len(paths) > 6 else "")
    raise UnreadableInputError(
        f"{' and '.join(who)} read{'s' if len(who) == 1 else ''} {fmt} (gzip-compressed) files only, "
        f"and these inputs are not compressed: {shown}",
        [f"to resolve, compress each of them (gzip FILE writes FILE.gz) and give the .gz files instead: "
         f"gzip {' '.join(shlex.quote(p) for p in paths[:2])}{' ...' if len(paths) > 2 else ''}"],
        {"paths": paths, "format": fmt, "steps": who})

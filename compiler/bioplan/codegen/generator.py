"""The Generator protocol and the registry of targets.

A generator lowers the target-neutral Workflow IR to the files of one workflow language. It
owns everything about its target: the entry file's name, the names its target cannot carry, the
structural checks it runs on its own output while emitting, and the pre-check run on the staged
files before they are installed. `compile.py` looks generators up here by name and never
branches on a target.

The registry (`bioplan.codegen.REGISTRY`) names each generator's class by import path, so this module stays light:
`bioplan plan` imports compile.py, and the generators (Jinja, the templates) load only when a
workflow is emitted.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol

from bioplan.codegen import DEFAULT_TARGET as DEFAULT_TARGET  # the registry, re-exported here
from bioplan.codegen import REGISTRY as REGISTRY
from bioplan.codegen import target_names as target_names
from bioplan.errors import TargetUnsupportedError

if TYPE_CHECKING:
    from bioplan.codegen.ir import Workflow
    from bioplan.knowledge.models import Knowledge
    from bioplan.validate.check_result import CheckResult


@dataclass(frozen=True)
class EmitOptions:
    """How the user runs the workflow, beside what it computes (the IR): the batch scheduler's
    queue and account (`--partition`, `--account`; None: the profiles mark the line to fill in)."""

    partition: str | None = None
    account: str | None = None


NO_OPTIONS = EmitOptions()  # the default: profiles mark the scheduler lines to fill in


@dataclass(frozen=True)
class Emitted:
    """A generator's output: file path (relative to the workflow directory) -> content, and what
    its own structural checks found wrong in them (a template or wiring bug: nothing is written)."""

    files: Mapping[str, str | bytes]
    problems: tuple[str, ...] = ()


class Generator(Protocol):
    """One target language. `emit` is pure given the knowledge; `precheck` runs the target's own
    tool on the staged files (None: the target has no pre-check that runs here)."""

    name: ClassVar[str]
    entry_file: ClassVar[str]  # the file -o names (Snakefile, main.nf)
    precheck_name: ClassVar[str | None]  # how the pre-check is called in messages ("snakemake -n")
    executable_dirs: ClassVar[tuple[str, ...]]  # folders whose files are written executable (Nextflow's bin/)

    def __init__(self, knowledge: Knowledge) -> None: ...

    def emit(self, workflow: Workflow, options: EmitOptions) -> Emitted: ...

    def precheck(self, staged: Path, workflow: Workflow, output_dir: Path) -> CheckResult | None: ...

    @staticmethod
    def refuse_output_folder(folder: str) -> None:
        """Raise a BioplanError when the target's runs cannot name the workflow's folder (the absolute path
        -o gives) safely; checked before anything is planned or written."""


def generator_class(target: str) -> type[Generator]:
    """The generator registered for `target`; an unknown target is a TargetUnsupportedError."""
    where = REGISTRY.get(target)
    if where is None:
        raise TargetUnsupportedError(f"unknown target {target!r}", [f"use one of: {', '.join(REGISTRY)}"])
    module, _, name = where.partition(":")
    cls: type[Generator] = getattr(importlib.import_module(module), name)
    return cls


def make_generator(target: str, knowledge: Knowledge) -> Generator:
    return generator_class(target)(knowledge)

"""Nextflow target parity on thread limits: Snakemake gives every job's shell OMP_NUM_THREADS and the other
BLAS/OpenMP thread variables = the job's threads (snakemake/shell.py); every script of every emitted Nextflow
process exports the same variables = task.cpus, first, inside the task (templates/nextflow/_macros.nf.j2
`thread_env`), so an R or numpy step on a large node starts no more threads than its task's cpus."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
from pathlib import Path

from conftest import ROOT

NEXTFLOW_TEMPLATES = ROOT / "templates" / "nextflow"


def _snakemake_thread_variables() -> set[str]:
    """The variables Snakemake sets to a job's threads, read from the installed Snakemake's source
    (not imported: a second's import for one file's text)."""
    spec = importlib.util.find_spec("snakemake")
    assert spec is not None and spec.submodule_search_locations
    source = (Path(next(iter(spec.submodule_search_locations))) / "shell.py").read_text(encoding="utf-8")
    names = set(re.findall(r'envvars\["(\w+)"\] = threads\b', source))
    assert "OMP_NUM_THREADS" in names, "snakemake/shell.py no longer sets OMP_NUM_THREADS: read it again"
    return names


def _script_strings(lines: list[str], start: str, end: str) -> list[list[str]]:
    """The shell strings of a process's script section (from the line holding `start` to the one holding
    `end`): each top-level `\"\"\"` string (4-space indent; a string built inside a closure is indented
    deeper) as its lines."""
    strings: list[list[str]] = []
    section = False
    current: list[str] | None = None
    for line in lines:
        if start in line:
            section = True
        elif end in line:
            section = False
        elif section and line == '    """':
            if current is None:
                current = []
            else:
                strings.append(current)
                current = None
        elif current is not None:
            current.append(line)
    assert current is None, "a script string is not closed"
    return strings


def _first_statement(body: list[str]) -> list[str]:
    """The first shell statement of a script string: its line and the continuation lines after it."""
    statement: list[str] = []
    for line in (line for line in body if line.strip()):
        statement.append(line)
        if not line.endswith("\\\\"):
            break
    return statement


def test_every_nextflow_template_script_starts_with_the_thread_limits():
    """Every tool and check template, each branch's script string: a template added without it fails here."""
    missing = []
    templates = sorted(p for p in NEXTFLOW_TEMPLATES.glob("*.nf.j2") if p.name != "_macros.nf.j2")
    assert len(templates) > 100
    for path in templates:
        strings = _script_strings(path.read_text(encoding="utf-8").splitlines(),
                                  "{{ script_head(proc) }}", "{{ stub_head(proc) }}")
        assert strings, path.name
        missing += [path.name for body in strings if not body or body[0] != "{{ thread_env() }}"]
    assert not missing, f"script strings not starting with {{{{ thread_env() }}}}: {missing}"


def test_emitted_processes_set_snakemakes_thread_variables_to_task_cpus(compiled_classes):
    """In a compiled pipeline every process's script exports exactly Snakemake's variables = task.cpus, and
    the line is valid shell once Nextflow has interpolated it: with 64 in the environment, the task sees 3."""
    variables = _snakemake_thread_variables()
    root = compiled_classes["single_cell", "nextflow"].output_dir
    modules = sorted(root.glob("modules/local/**/main.nf"))
    assert modules
    statements = set()
    for module in modules:
        for body in _script_strings(module.read_text(encoding="utf-8").splitlines(), "    script:", "    stub:"):
            statement = _first_statement(body)
            assert statement[0].startswith("    export "), (module, body[:2])
            statements.add(tuple(statement))
    assert len(statements) == 1, statements
    statement = list(statements.pop())
    words = " ".join(line.strip().removesuffix("\\\\") for line in statement).split()
    assert words[0] == "export"
    assert dict(w.split("=", 1) for w in words[1:]) == dict.fromkeys(variables, "${task.cpus}")
    # what Nextflow hands bash: ${task.cpus} interpolated, the Groovy string's \\ one backslash
    shell = "\n".join(statement).replace("${task.cpus}", "3").replace("\\\\", "\\")
    probe = shell + "\nfor v in " + " ".join(sorted(variables)) + '; do printf "%s=%s\\n" "$v" "${!v}"; done'
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **dict.fromkeys(variables, "64")}
    out = subprocess.run(["bash", "-euo", "pipefail", "-c", probe], env=env, capture_output=True, text=True,
                         timeout=30, check=True).stdout
    assert dict(line.split("=", 1) for line in out.splitlines()) == dict.fromkeys(variables, "3")


def test_no_template_calls_the_thread_limits_inside_a_raw_block():
    """Inside {% raw %} the call is text, not a macro: the task's shell would run '{{ thread_env() }}' (the
    GFF3-to-GTF and RSEM reference templates wrote it so, and their modules failed on every run)."""
    import re

    raw = re.compile(r"\{%-? raw -?%\}(.*?)\{%-? endraw -?%\}", re.S)
    inside = [p.name for p in sorted(NEXTFLOW_TEMPLATES.glob("*.nf.j2"))
              if any("thread_env()" in m.group(1) for m in raw.finditer(p.read_text(encoding="utf-8")))]
    assert not inside, f"thread_env() inside a raw block: {inside}"

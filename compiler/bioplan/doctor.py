"""What is installed, and what each missing part blocks (`bioplan doctor`, `bioplan --version`).

bioplan itself only needs its Python dependencies to plan and compile. Running what it compiles
needs more: Snakemake (a dependency), the tools each rule calls (on PATH, or through the rules'
conda envs and containers), the Python tools of the `tools` extra, Nextflow and Java for the
Nextflow target, the SLURM executor plugin (`slurm` extra) and SLURM's client tools for the
cluster profiles. Everything here is looked up, never run, except one `Rscript` call that checks
the R packages the knowledge base names (and only when Rscript is on PATH).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bioplan import __version__
from bioplan.errors import one_line

# What a tool's `software.version_command` runs tells what the tool needs on this machine.
_PYTHON_VERSION_OF = re.compile(r"""^python3? -c .*version\(['"]([\w-]+)['"]\)""")
_PYTHON_IMPORT = re.compile(r"""^python3? -c ["']import (\w+)""")
# a Python tool run as an executable: its version from the env's Python metadata (fast), else from the
# executable (`python -c "...m.version('multiqc'))" 2>/dev/null || multiqc --version | ...`): the step
# runs the executable, so that is what the tool needs
_METADATA_OR_EXECUTABLE = re.compile(r"""^python3? -c "[^"]*" 2>/dev/null \|\| (.+)$""", re.S)
_R_PACKAGE = re.compile(r"""^Rscript -e .*packageVersion\(["']([\w.]+)["']\)""")
# a launcher found under one of several names: `$(command -v picard || command -v PicardCommandLine) ...`
_LAUNCHER_CHOICE = re.compile(r"^\$\(\s*(command -v [\w.+-]+(?:\s*\|\|\s*command -v [\w.+-]+)*)\s*\)")
SLURM_CLIENT = ("sbatch", "squeue", "sacct", "scancel")
_EXTRA_HINT = {"tools": "pip install 'bioplan[tools]'", "slurm": "pip install 'bioplan[slurm]'"}


@dataclass(frozen=True)
class Check:
    """One thing bioplan can use: found or not, its version, and what its absence blocks."""

    group: str
    name: str
    ok: bool
    version: str | None = None
    where: str | None = None
    blocks: str = ""
    install: str = ""


@dataclass
class Doctor:
    checks: list[Check] = field(default_factory=list)

    @property
    def missing(self) -> list[Check]:
        return [c for c in self.checks if not c.ok]

    def to_json(self) -> dict:
        return {"bioplan": __version__, "python": sys.version.split()[0], "checks": [asdict(c) for c in self.checks]}


def dist_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def extra_requirements(extra: str) -> list[tuple[str, str]]:
    """(distribution, pinned version) of one extra of the installed bioplan, from its metadata."""
    try:
        requires = importlib.metadata.requires("bioplan") or []
    except importlib.metadata.PackageNotFoundError:  # a bare checkout on PYTHONPATH: no metadata
        return []
    out = []
    for req in requires:
        spec, _, marker = req.partition(";")
        if re.search(rf"""extra\s*==\s*["']{re.escape(extra)}["']""", marker):
            name, _, pin = spec.strip().partition("==")
            out.append((re.sub(r"\[.*\]", "", name).strip(), pin.strip()))
    return out


def tool_requirement(version_command: str) -> tuple[str, str]:
    """(kind, name) a tool needs, from its version command: ('python', distribution or module), ('r', package)
    or ('exe', executable)."""
    cmd = version_command.strip()
    m = _METADATA_OR_EXECUTABLE.match(cmd)
    if m:
        return tool_requirement(m.group(1))
    m = _PYTHON_VERSION_OF.match(cmd) or _PYTHON_IMPORT.match(cmd)
    if m:
        return "python", m.group(1).replace("-", "_")
    if re.match(r"^python3? --version", cmd):  # a standard-library script: Snakemake's own Python runs it
        return "python", "sys"
    m = _R_PACKAGE.match(cmd)
    if m:
        return "r", m.group(1)
    m = _LAUNCHER_CHOICE.match(cmd)
    if m:  # any one of the names will do: "picard|PicardCommandLine"
        return "exe", "|".join(re.findall(r"command -v ([\w.+-]+)", m.group(1)))
    return "exe", shlex.split(cmd)[0]


def installed_r_packages(packages: list[str], rscript: str) -> set[str]:
    """The R packages (of `packages`) installed for this Rscript: found, not loaded (DESeq2 takes ~10 s)."""
    code = "for (p in commandArgs(TRUE)) if (nzchar(system.file(package = p))) cat(p, '\\n')"
    try:
        proc = subprocess.run([rscript, "-e", code, *packages], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return set()
    return set(proc.stdout.split())


def core_checks() -> list[Check]:
    out = []
    for dist, blocks in (("snakemake", "compile's pre-check (snakemake -n) and running the Snakemake workflows"),
                         ("snakefmt", "formatting the emitted Snakefiles (compile)")):
        v = dist_version(dist)
        out.append(Check("core", dist, v is not None, v, blocks=blocks, install="pip install bioplan"))
    return out


def target_checks() -> list[Check]:
    nextflow, java = shutil.which("nextflow"), shutil.which("java")
    plugin = dist_version("snakemake-executor-plugin-slurm")
    client = {name: shutil.which(name) for name in SLURM_CLIENT}
    missing_client = [n for n, p in client.items() if not p]
    return [
        Check("targets", "nextflow", nextflow is not None, where=nextflow,
              blocks="running --target nextflow pipelines (compiling them works without it)",
              install="https://www.nextflow.io/docs/latest/install.html "
                      "(a checkout: bash scripts/install-nextflow.sh)"),
        Check("targets", "java", java is not None, where=java, blocks="Nextflow (it runs on Java 17 or later)",
              install="apt-get install default-jre-headless (or any Java 17+)"),
        Check("targets", "snakemake-executor-plugin-slurm", plugin is not None, plugin,
              blocks="snakemake --profile profiles/slurm (running the Snakemake workflows on SLURM)",
              install=_EXTRA_HINT["slurm"]),
        Check("targets", "SLURM client (" + ", ".join(SLURM_CLIENT) + ")", not missing_client,
              where=client["sbatch"],
              blocks="submitting jobs with the slurm profiles (missing: " + ", ".join(missing_client) + ")"
              if missing_client else "submitting jobs with the slurm profiles",
              install="run on a SLURM login node (or apt-get install slurm-client)"),
    ]


def extra_checks(tools_by_module: dict[str, list[str]]) -> list[Check]:
    out = []
    for dist, pin in extra_requirements("tools"):
        v = dist_version(dist)
        module = dist.replace("-", "_").lower()
        users = tools_by_module.get(module, [])
        blocks = ("steps of " + ", ".join(users)) if users else "steps that import it"
        out.append(Check("tools extra", dist, v is not None, v, blocks=blocks, install=_EXTRA_HINT["tools"]))
        if v is not None and pin and v != pin:
            out[-1] = Check("tools extra", dist, True, f"{v} (bioplan pins {pin})", blocks=blocks)
    return out


def bound_tool_checks(knowledge) -> list[Check]:
    """Each executable, Python module and R package the knowledge base's tools call, with the tools
    that need it."""
    needs: dict[tuple[str, str], list[str]] = {}
    for tool in sorted(knowledge.tools.values(), key=lambda t: t.id):
        needs.setdefault(tool_requirement(tool.software.version_command), []).append(
            f"{tool.id} ({tool.implements})")
    rscript = shutil.which("Rscript")
    r_packages = sorted(name for kind, name in needs if kind == "r")
    have_r = installed_r_packages(r_packages, rscript) if rscript and r_packages else set()
    extra = {d.replace("-", "_").lower() for d, _ in extra_requirements("tools")}
    out = []
    for (kind, name), tools in sorted(needs.items()):
        blocks = ", ".join(tools)
        if kind == "exe":
            where = next(filter(None, map(shutil.which, name.split("|"))), None)
            out.append(Check("bound tools", name.replace("|", " or "), where is not None, where=where, blocks=blocks,
                             install="the tool's conda env (snakemake --sdm conda) or your package manager"))
        elif kind == "python":
            # a distribution (`m.version('scvi-tools')`: module scvi) or a module (`import sklearn`)
            found = name == "sys" or dist_version(name) is not None or importlib.util.find_spec(name) is not None
            install = _EXTRA_HINT["tools"] if name.lower() in extra else "pip install " + name
            label = "python (standard library)" if name == "sys" else f"python: {name}"
            out.append(Check("bound tools", label, found, dist_version(name) if name != "sys" else None,
                             where=sys.executable if name == "sys" else None, blocks=blocks, install=install))
        else:
            out.append(Check("bound tools", f"R: {name}", name in have_r, blocks=blocks,
                             install="Bioconductor: BiocManager::install('" + name + "'), or --sdm conda"
                             if rscript else "R (Rscript) and the package, or --sdm conda"))
    return out


def diagnose(knowledge=None) -> Doctor:
    from bioplan.knowledge.load import load_knowledge

    knowledge = knowledge or load_knowledge()
    tools_by_module: dict[str, list[str]] = {}
    for tool in sorted(knowledge.tools.values(), key=lambda t: t.id):
        kind, name = tool_requirement(tool.software.version_command)
        if kind == "python":
            tools_by_module.setdefault(name.lower(), []).append(tool.id)
    return Doctor(core_checks() + target_checks() + extra_checks(tools_by_module) + bound_tool_checks(knowledge))


def text_report(doc: Doctor) -> str:
    lines = [f"bioplan {__version__} ({Path(__file__).resolve().parent}), Python {sys.version.split()[0]} "
             f"({sys.executable})"]
    group = None
    for c in doc.checks:
        if c.group != group:
            group = c.group
            lines.append(f"{group}:")
        detail = c.version or c.where or ""
        line = f"  {'ok' if c.ok else 'MISSING':8} {c.name}" + (f" {one_line(detail)}" if detail else "")
        if not c.ok:
            line += f"\n           blocks: {c.blocks}" + (f"\n           install: {c.install}" if c.install else "")
        lines.append(line)
    n_missing = len(doc.missing)
    lines.append("everything bioplan can use is installed" if not n_missing else
                 f"{n_missing} missing: bioplan plans and compiles without them; they block only what is listed")
    return "\n".join(lines)


def version_report() -> str:
    """`bioplan --version`: versions only, no subprocess and no knowledge load (fast)."""
    plugin = dist_version("snakemake-executor-plugin-slurm")
    tools = extra_requirements("tools")
    have = [d for d, _ in tools if dist_version(d)]
    lines = [
        f"bioplan {__version__} (Python {sys.version.split()[0]}, {sys.executable})",
        f"snakemake {dist_version('snakemake') or 'not installed'}",
        f"SLURM executor plugin: {plugin or 'not installed (' + _EXTRA_HINT['slurm'] + ')'}",
        f"Python tools extra: {len(have)}/{len(tools)} installed"
        + ("" if len(have) == len(tools) else f" ({_EXTRA_HINT['tools']})"),
        f"nextflow: {shutil.which('nextflow') or 'not on PATH'}; java: {shutil.which('java') or 'not on PATH'}",
        "`bioplan doctor` lists every tool the knowledge base binds and what each missing one blocks",
    ]
    return "\n".join(lines)

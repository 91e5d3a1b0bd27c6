"""Tool version commands that read a Python package's version from its installed metadata instead of
importing the package: every emitted workflow runs each one (codegen/versions_table.py), and importing
gseapy costs ~3 CPU-s, pandas ~0.7, while `importlib.metadata.version` costs ~0.1 (ontology/README.md,
`software.package`)."""

from __future__ import annotations

import importlib.util
import re

from bioplan.doctor import dist_version, tool_requirement

# the one Python form: the distribution (PyPI) name, its version off the metadata
METADATA = re.compile(r"""python3? -c "import importlib\.metadata as m; print\(m\.version\('([\w.-]+)'\)\)\"""")
PYTHON_CALL = re.compile(r"(?<![\w/.-])python3? -c ")


def _version_commands(knowledge) -> dict[str, str]:
    """ontology/tools/<id>.yaml (the loader checks the file is named after the id) -> its version command."""
    return {f"ontology/tools/{tool.id}.yaml": tool.software.version_command for tool in knowledge.tools.values()}


def test_python_version_commands_read_metadata_not_the_imported_package(knowledge):
    commands = _version_commands(knowledge)
    assert len(commands) > 150
    wrong = {name: cmd for name, cmd in commands.items()
             if "__version__" in cmd or len(PYTHON_CALL.findall(cmd)) != len(METADATA.findall(cmd))}
    assert not wrong, ("version commands importing a package (use python -c \"import importlib.metadata as m; "
                       f"print(m.version('<distribution>'))\"): {wrong}")
    assert sum(bool(METADATA.search(cmd)) for cmd in commands.values()) >= 30


def test_the_metadata_names_a_distribution_not_a_module(knowledge):
    """`m.version('sklearn')` fails where `import sklearn` works: the name is the PyPI one (scikit-learn).
    A name installed here must have metadata; one not installed must not be a module of this Python."""
    named = {(name, dist) for name, cmd in _version_commands(knowledge).items() for dist in METADATA.findall(cmd)}
    assert {"multiqc", "gseapy", "pandas", "scvi-tools"} <= {dist for _, dist in named}
    modules = {dist for _, dist in named
               if dist_version(dist) is None and importlib.util.find_spec(dist.replace("-", "_")) is not None}
    wrong = [(name, dist) for name, dist in sorted(named) if dist in modules]
    assert not wrong, f"module names where the distribution name belongs: {wrong}"


def test_a_python_tool_run_as_an_executable_falls_back_to_the_executable(knowledge):
    """MultiQC, UMI-tools, QUAST, RSeQC, HTSeq: their env's Python answers from the metadata; where that
    Python lacks it (a tool from the system's packages), the executable itself answers, and the doctor checks
    the executable the step runs."""
    fallbacks = {name: cmd for name, cmd in _version_commands(knowledge).items() if METADATA.match(cmd) and "||" in cmd}
    assert {"ontology/tools/multiqc.yaml", "ontology/tools/umitools_dedup.yaml"} <= set(fallbacks)
    for name, cmd in fallbacks.items():
        assert re.match(METADATA.pattern + r" 2>/dev/null \|\| ", cmd), name
        kind, exe = tool_requirement(cmd)
        assert kind == "exe" and exe in cmd.split("||", 1)[1], name

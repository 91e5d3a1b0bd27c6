"""What every key of the emitted `config/config.yaml` means, for `config/README.md`.

Generated from the config itself: every key path of the parsed file gets one row, its meaning read
off the Workflow IR (the input's datatype and format, the reference's provider file, the tool and
rule a parameter belongs to). A key this module cannot explain is a bug, so it raises instead of
writing a row that says nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from bioplan.codegen import yaml_text
from bioplan.codegen.ir import Workflow
from bioplan.knowledge.models import Knowledge


@dataclass(frozen=True)
class ConfigKey:
    key: str  # dotted path, e.g. params.deseq2.alpha
    default: str  # the value written into config/config.yaml, as YAML
    meaning: str


# The emitted config is read back with PyYAML's safe loader in C (libyaml) where PyYAML was built with
# it: the same values as the pure-Python one (tests/test_yaml_loaders.py), 0.3 ms instead of 2-3 ms a compile
CONFIG_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_TOP_LEVEL = {
    "request": "The request this workflow was compiled from; kept for the record, no rule reads it.",
    "samples": "The sample sheet (tab-separated, one row per sample, validated by "
               "`workflow/schemas/samples.schema.yaml`): column `sample` names the sample, the others give "
               "its files, as paths relative to the directory you run Snakemake from.",
    "condition_column": "The column of the sample metadata whose values are the conditions compared "
                        "(the replicate check counts samples per value of it).",
    "fetch": "true: download the missing references that have a pinned provider URL before any step "
             "needs them (`workflow/rules/references.smk`), checked against the provider's checksums; "
             "false: supply them yourself.",
    "keep_intermediates": "false: files only later steps read are deleted once every step reading them has "
                          "run (temp()); true keeps them.",
}


def _leaves(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """(dotted key, value) for every leaf of a parsed YAML mapping; an empty mapping is a leaf."""
    if isinstance(value, dict) and value:
        out: list[tuple[str, Any]] = []
        for key, inner in value.items():
            out += _leaves(inner, f"{prefix}.{key}" if prefix else str(key))
        return out
    return [(prefix, value)]


def _default(value: Any) -> str:
    return yaml_text.safe_dump(value, default_flow_style=True, allow_unicode=True).strip().removesuffix("...").strip()


def _meaning(knowledge: Knowledge, workflow: Workflow, key: str) -> str:
    section, _, rest = key.partition(".")
    if not rest:
        if key in _TOP_LEVEL:
            return _TOP_LEVEL[key]
        if key in ("inputs", "references"):
            return f"No {key}: the workflow reads none of this kind."
    if section == "inputs":
        given = next((c for c in workflow.config_inputs if c.section == "inputs" and c.key == rest), None)
        if given is not None:
            datatype = knowledge.datatypes.get(given.datatype)
            what = datatype.label if datatype is not None else given.datatype
            readers = sorted({s.id for s in workflow.steps for p in s.inputs
                              if p.ref.kind == "config_input" and p.ref.path == rest})
            return (f"Input file: {what} ({given.format or 'any format'}), read by {', '.join(readers)}; "
                    "a path relative to the directory you run Snakemake from.")
    if section == "references":
        ref = next((r for r in workflow.references if r.key == rest), None)
        if ref is not None:
            return (f"Reference: {ref.why} ({ref.format}), read by {', '.join(ref.read_by)}; "
                    f"where to get it: {ref.hint}.")
    if section == "params":
        tool_id, _, name = rest.partition(".")
        tool = knowledge.tools.get(tool_id)
        if tool is not None:
            rules = sorted(s.id for s in workflow.steps if s.tool == tool_id)
            if not name:
                return f"{tool.name} ({', '.join(rules)}) takes no parameters from the config."
            return f"Parameter {name} of {tool.name} (rule {', '.join(rules)}); its documentation: {tool.homepage}"
    raise ValueError(f"config/config.yaml key {key!r} has no documented meaning")


def config_keys(knowledge: Knowledge, workflow: Workflow, config_text: str) -> list[ConfigKey]:
    """One row per key of the emitted config, in the file's order."""
    config = yaml.load(config_text, Loader=CONFIG_LOADER) or {}
    return [ConfigKey(key, _default(value), _meaning(knowledge, workflow, key)) for key, value in _leaves(config)]

"""Every field a knowledge YAML file may hold is documented in ontology/README.md.

The fields are those of the pydantic models the YAML is loaded into (knowledge/models.py for
ontology/*.yaml, ontology/tools/, motifs/; knowledge/references.py for references.yaml), walked
from the model of each file through every nested model. A field counts as documented when
the README names it in backticks (`field`, `parent.field`) or shows it as a YAML key (`field:`) in an example.
"""

from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest
from pydantic import BaseModel

from bioplan.knowledge import models
from bioplan.knowledge.references import Catalog

README = Path(__file__).resolve().parents[1] / "ontology" / "README.md"

# the model each knowledge file is loaded into (one entry of datatypes.yaml is a Datatype, ...)
FILE_MODELS: tuple[type[BaseModel], ...] = (models.Datatype, models.Operation, models.Constraint, models.Format,
                                            models.Tool, models.Motif, models.Lexicon, Catalog)


def _nested_models(annotation: object) -> list[type[BaseModel]]:
    """The pydantic models an annotation holds (Port in dict[str, Port], FormatSniff in FormatSniff | None)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _nested_models(arg)]


def yaml_fields() -> dict[str, set[str]]:
    """field name -> the models that have it, over every model reachable from a knowledge file."""
    seen: set[type[BaseModel]] = set()
    todo = list(FILE_MODELS)
    fields: dict[str, set[str]] = {}
    while todo:
        model = todo.pop()
        if model in seen:
            continue
        seen.add(model)
        for name, info in model.model_fields.items():
            fields.setdefault(name, set()).add(model.__name__)
            todo += _nested_models(info.annotation)
    return fields


def documented(name: str, text: str) -> bool:
    word = re.escape(name)
    in_backticks = rf"`[^`\n]*(?<!\w){word}(?![\w])[^`\n]*`"  # `prior`, `phrases[].pattern`, `software.package`
    yaml_key = rf"(?m)^\s*(?:- )?{word}:|[{{,]\s*{word}:"  # `  checked_on_read: [...]` in an example
    return re.search(in_backticks, text) is not None or re.search(yaml_key, text) is not None


def test_the_walk_reaches_nested_models() -> None:
    fields = yaml_fields()
    # a nested model's fields count too: ToolPort (in Tool.inputs), Software, FormatSniff, Build (references)
    assert {"when_available", "version_command", "magic", "chr1_length"} <= set(fields)
    assert "content_hash" not in fields  # Knowledge is built by the loader, not written in YAML


@pytest.mark.parametrize("field", sorted(yaml_fields()))
def test_every_yaml_field_is_documented(field: str) -> None:
    text = README.read_text(encoding="utf-8")
    owners = ", ".join(sorted(yaml_fields()[field]))
    assert documented(field, text), f"field {field!r} ({owners}) is not documented in ontology/README.md"

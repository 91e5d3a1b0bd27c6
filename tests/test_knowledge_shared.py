"""The knowledge as cached on disk (knowledge/load.py `_shared`): equal frozen parts are one object, and
the copy equals the knowledge, part for part, including which fields each part had set."""

from __future__ import annotations

from pydantic import BaseModel

from bioplan.knowledge.load import _shared
from bioplan.knowledge.models import Aliases


def _parts(value, out: list) -> list:
    if isinstance(value, BaseModel):
        out.append(value)
        for field in value.__dict__.values():
            _parts(field, out)
    elif isinstance(value, (dict, list, tuple)):
        for v in value.values() if isinstance(value, dict) else value:
            _parts(v, out)
    return out


def _small(knowledge, tools: dict):
    """The knowledge with only `tools` (the whole of it takes ~0.4 s: `_shared` pickles each part once)."""
    return knowledge.model_copy(update={"tools": tools, "lexicon": type(knowledge.lexicon)(),
                                        **{name: {} for name in ("datatypes", "formats", "operations", "constraints",
                                                                 "motifs")}})


def _unshared(value):
    """`value` with every part a distinct object: the session's knowledge is the shared copy itself when this
    worker read it from the disk cache (another worker built it), and the test needs the parts apart."""
    if isinstance(value, BaseModel):
        return type(value).model_construct(_fields_set=set(value.model_fields_set),
                                           **{k: _unshared(v) for k, v in value.__dict__.items()})
    if isinstance(value, dict):
        return {k: _unshared(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_unshared(v) for v in value)
    return value


def test_the_shared_copy_equals_the_knowledge_with_fewer_objects(knowledge):
    # most repeated parts are the tools' ports, software and resources
    kb = _unshared(_small(knowledge, knowledge.tools))
    copy = _shared(kb)
    assert copy == kb and copy.model_dump() == kb.model_dump()
    before, after = _parts(kb, []), _parts(copy, [])
    assert len(after) == len(before)  # the same parts where they were ...
    assert all(a == b and a.model_fields_set == b.model_fields_set for a, b in zip(after, before))
    assert len({id(p) for p in after}) < len({id(p) for p in before}) * 0.9  # ... fewer of them distinct
    assert len({id(p) for p in before}) == len(before)


def test_parts_that_differ_only_in_the_fields_set_stay_apart(knowledge):
    tool = next(iter(knowledge.tools.values()))
    set_empty, left_empty = Aliases(en=[]), Aliases()
    assert set_empty == left_empty and set_empty.model_fields_set != left_empty.model_fields_set
    kb = _small(knowledge, {
        "a": tool.model_copy(update={"id": "a", "aliases": set_empty}),
        "b": tool.model_copy(update={"id": "b", "aliases": left_empty}),
        "c": tool.model_copy(update={"id": "c", "aliases": Aliases()})})
    copy = _shared(kb)
    assert copy.tools["a"].aliases is not copy.tools["b"].aliases
    assert copy.tools["b"].aliases is copy.tools["c"].aliases
    assert copy.tools["a"].aliases.model_fields_set == {"en"} and copy.tools["b"].aliases.model_fields_set == set()

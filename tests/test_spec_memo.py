"""The spec passes remember answers of the capability graph per knowledge (passes/shape.py `_remembered`, and
knowledge/queries.py `readers_accepting` that passes/anchors.py reads): every remembered answer is the answer its
definition gives."""

from __future__ import annotations

import itertools

from bioplan.knowledge.queries import is_subtype, made_within, readers_accepting
from bioplan.request.passes import shape


def test_remembered_graph_answers_are_their_definitions(knowledge):
    ops = sorted(knowledge.operations)[::3]
    types = sorted(knowledge.datatypes)[::2]
    for _ in range(2):  # the first round fills the memo, the second reads it
        for a, b in itertools.product(ops, ops):
            assert shape.feeds(knowledge, a, b) == shape._feeds(knowledge, a, b)
        for s, d in itertools.product(types, types):
            made = made_within(knowledge, [s], shape.SWEEP_STEPS)
            assert shape.is_downstream(knowledge, s, d) == (s == d or any(is_subtype(knowledge, m, d) for m in made))
            assert shape.leads_to(knowledge, s, d) == (shape.is_downstream(knowledge, s, d)
                                                       or is_subtype(knowledge, s, d))


def test_readers_of_a_datatype_are_the_operations_it_may_feed(knowledge):
    for d in knowledge.datatypes:
        expected = [op.id for op in knowledge.operations.values()
                    if any(is_subtype(knowledge, d, p.datatype) for p in op.inputs.values())]
        assert list(readers_accepting(knowledge, d)) == expected
        assert list(readers_accepting(knowledge, d)) == expected


def test_instruction_words_split_once_answer_as_each_word_did(knowledge):
    from bioplan.knowledge.words import has_word, is_cjk
    from bioplan.request.lexicon import lexicon_words
    from bioplan.request.passes.readings import _instruction_words

    words = lexicon_words(knowledge, "instruction_words")
    ascii_words, others = _instruction_words(words)
    assert _instruction_words(words) == (ascii_words, others)
    assert set(ascii_words) | set(others) == set(words)
    assert all(w.isascii() for w in ascii_words) and not any(w.isascii() for w in others)
    texts = ["three cell types", "then call variants", "请做差异表达", "align 并且 注释", "déjà vu annotate"]
    for text in texts + [w for w in sorted(words)[:40]]:
        ascii_text = text.isascii()
        expected = any(has_word(text, w) if not is_cjk(w) else w in text for w in words
                       if not ascii_text or w.isascii())
        found = any(has_word(text, w) for w in ascii_words) or (not ascii_text and any(
            has_word(text, w) if not is_cjk(w) else w in text for w in others))
        assert found == expected


def test_package_operations_are_what_the_tools_with_the_same_pins_do(knowledge):
    from bioplan.request.passes.tools import _package_operations

    for tool_id, tool in knowledge.tools.items():
        conda = tool.software.conda
        assert _package_operations(knowledge, tool_id) == {
            t.implements for t in knowledge.tools.values() if t.software.conda == conda}

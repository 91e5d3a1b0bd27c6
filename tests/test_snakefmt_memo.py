"""The emitted rule files are formatted by snakefmt with Black's result remembered per piece of code
(codegen/snakemake.py `_formatter_class`): the remembered result must be what snakefmt's own Formatter
writes, whatever was formatted before, and a piece Black refuses must fail every time. A formatted text
is also remembered on disk (bioplan/cache.py) under a key of the text and of what the output depends on
(snakefmt, Black, shfmt): read back by the next process, never for another text or formatter."""

from __future__ import annotations

import functools
import os
import shutil
from importlib.metadata import version
from io import StringIO

import pytest

from bioplan import cache
from bioplan.codegen import snakemake as generator
from bioplan.errors import InvalidKnowledgeError

# the same directive values at different depths (a rule, a rule inside `if`), a run: block, a shell block
RULES = [
    'rule a:\n    input: "x.txt"\n    output: "y.txt"\n    threads: 1\n    shell: "cp {input} {output}"\n',
    'if config.get("extra"):\n    rule b:\n        input: "x.txt"\n        output: "z.txt"\n        threads: 1\n'
    '        shell: "cp {input} {output}"\n',
    'rule c:\n    input: ["x.txt","y.txt"]\n    output: "w.txt"\n    threads: 1\n    run:\n'
    '        with open(output[0], "w") as fh: fh.write(str(len(input)))\n',
    'rule d:\n    input: "x.txt"\n    output: "v.txt"\n    params: extra=lambda wildcards: config["params"]'
    '["a_rather_long_tool_name_that_wraps"]["extra_arguments"]\n    threads: 1\n    shell: """\n'
    '    tool {params.extra} {input} > {output}\n    """\n',
] + [  # one long value at two depths: Black wraps it at the deeper one first (its line is shorter there)
    f'{head}rule long_{n}_{depth}:\n{pad}    output: "u{n}.txt"\n{pad}    params: v=config["{"k" * n}"]["x"]\n'
    f'{pad}    shell: "touch {{output}}"\n'
    for n in range(50, 90, 3) for depth, (head, pad) in enumerate([("", ""), ("if True:\n    ", "    ")])
]


@functools.cache  # snakefmt's own formatting of a text, the reference: the same for both orders below
def _plain(source: str) -> str:
    # snakefmt (with Black, ~0.13 CPU-s) imported here, not at collection: a worker whose compiles all hit the
    # kept formatting cache never loads it
    from snakefmt import DEFAULT_LINE_LENGTH
    from snakefmt.formatter import Formatter
    from snakefmt.parser.parser import Snakefile

    return Formatter(Snakefile(StringIO(source)), line_length=DEFAULT_LINE_LENGTH, sort_directives=True,
                     format_shell=True).get_formatted()


@pytest.fixture
def empty_cache(tmp_path, monkeypatch):
    """An on-disk cache of its own: the tests format anew, not from another test's remembered text."""
    monkeypatch.setenv(cache.CACHE_DIR_ENV, str(tmp_path))
    generator._snakefmt.cache_clear()
    yield tmp_path / "bioplan"
    generator._snakefmt.cache_clear()


@pytest.mark.parametrize("order", [RULES, RULES[::-1]])
def test_remembered_black_results_format_as_snakefmt_does(order, empty_cache):
    generator._BLACK_MEMO.clear()
    generator._snakefmt.cache_clear()
    for source in order:
        assert generator.format_snakefile(source, "rules/x.smk") == _plain(source)
    assert generator._BLACK_MEMO, "nothing was remembered"
    together = "\n\n".join(order)  # every piece now comes from the memo
    assert generator.format_snakefile(together, "rules/all.smk") == _plain(together)


def test_code_black_refuses_fails_every_time(empty_cache):
    broken = 'rule e:\n    input: "x.txt" +\n    output: "y.txt"\n'
    for _ in range(2):
        generator._snakefmt.cache_clear()
        with pytest.raises(InvalidKnowledgeError, match="rules/e.smk"):
            generator.format_snakefile(broken, "rules/e.smk")
    assert not list(empty_cache.glob("snakefmt-*")), "a text snakefmt refuses was remembered on disk"


def _formatter_must_not_run(monkeypatch):
    def refuse():
        raise AssertionError("formatted again: the on-disk cache was not read")
    monkeypatch.setattr(generator, "_formatter_class", refuse)


def test_formatted_text_is_remembered_on_disk_across_processes(empty_cache, monkeypatch):
    source = RULES[0]
    formatted = generator.format_snakefile(source, "rules/a.smk")
    assert formatted == _plain(source)
    assert len(list(empty_cache.glob("snakefmt-*.pickle"))) == 1
    generator._snakefmt.cache_clear()  # a new process: only the disk remembers
    _formatter_must_not_run(monkeypatch)
    assert generator.format_snakefile(source, "rules/a.smk") == formatted
    with pytest.raises(InvalidKnowledgeError, match="formatted again"):  # another text is formatted, not looked up
        generator.format_snakefile(RULES[1], "rules/b.smk")


def test_another_formatter_misses_the_remembered_text(empty_cache, monkeypatch):
    generator.format_snakefile(RULES[0], "rules/a.smk")
    generator._snakefmt.cache_clear()
    monkeypatch.setattr(generator, "_formatter_fingerprint", lambda: "snakefmt=another version")
    _formatter_must_not_run(monkeypatch)
    with pytest.raises(InvalidKnowledgeError, match="formatted again"):
        generator.format_snakefile(RULES[0], "rules/a.smk")


def test_the_key_names_what_the_output_depends_on():
    fingerprint = generator._formatter_fingerprint()
    for package in ("snakefmt", "black", "shfmt-py"):
        assert f"{package}={version(package)}" in fingerprint
    shfmt = shutil.which("shfmt")
    assert shfmt and os.path.realpath(shfmt) in fingerprint  # the binary snakefmt runs for shell blocks
    assert cache.source_fingerprint(("bioplan.codegen.snakemake",)) in fingerprint


def test_a_remembered_text_others_could_write_is_not_read(empty_cache, monkeypatch):
    generator.format_snakefile(RULES[0], "rules/a.smk")
    generator._snakefmt.cache_clear()
    empty_cache.chmod(0o777)  # a cache folder anyone may write: its files are formatted anew
    _formatter_must_not_run(monkeypatch)
    with pytest.raises(InvalidKnowledgeError, match="formatted again"):
        generator.format_snakefile(RULES[0], "rules/a.smk")

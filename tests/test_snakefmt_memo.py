"""The emitted rule files are formatted by snakefmt with Black's result remembered per piece of code
(codegen/snakemake.py `_formatter_class`): the remembered result must be what snakefmt's own Formatter
writes, whatever was formatted before, and a piece Black refuses must fail every time."""

from __future__ import annotations

from io import StringIO

import pytest
from snakefmt import DEFAULT_LINE_LENGTH
from snakefmt.formatter import Formatter
from snakefmt.parser.parser import Snakefile

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


def _plain(source: str) -> str:
    return Formatter(Snakefile(StringIO(source)), line_length=DEFAULT_LINE_LENGTH, sort_directives=True,
                     format_shell=True).get_formatted()


@pytest.mark.parametrize("order", [RULES, RULES[::-1]])
def test_remembered_black_results_format_as_snakefmt_does(order):
    generator._BLACK_MEMO.clear()
    generator._snakefmt.cache_clear()
    for source in order:
        assert generator.format_snakefile(source, "rules/x.smk") == _plain(source)
    assert generator._BLACK_MEMO, "nothing was remembered"
    together = "\n\n".join(order)  # every piece now comes from the memo
    assert generator.format_snakefile(together, "rules/all.smk") == _plain(together)


def test_code_black_refuses_fails_every_time():
    broken = 'rule e:\n    input: "x.txt" +\n    output: "y.txt"\n'
    for _ in range(2):
        generator._snakefmt.cache_clear()
        with pytest.raises(InvalidKnowledgeError, match="rules/e.smk"):
            generator.format_snakefile(broken, "rules/e.smk")

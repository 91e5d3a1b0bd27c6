"""Attacks round 5: classes rounds 1-4 left open.

- GFM's extended autolinks: a request holding `https://x.example` or `www.x.example` became a live link in
  the READMEs (GitHub and GitLab link such text with no Markdown syntax at all, so escaping the markup
  characters did not stop it; `\\<https://x\\>` even linked to `https://x%5C%3E`);
- ro-crate-metadata.json quoted the raw request: bidi overrides and zero-width characters the plan and the
  READMEs drop, lookalike letters the plan read as Latin, and Markdown a registry renders (links, HTML);
- sample ids that differ only in Cyrillic or Greek letters drawn like Latin ones (`ctrl_1` and `сtrl_1`):
  two folders, but one name to every reader of samples.tsv, the READMEs and the reports;
- a '%' in a sample, patient or lane id: the SLURM executor names each job's log folder after the job's
  wildcards and sbatch reads '%' there as a pattern (`%j`: the executor stops the run at its first job).

Markdown is checked with GitHub's own renderer (cmarkgfm, GitHub's fork of cmark with its extensions).
Properties: 50 examples in the fast tier, 2,000 under CI=true, BIOPLAN_PROPERTY_EXAMPLES overrides.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bioplan.codegen import escape
from bioplan.codegen.crate import crate_metadata
from bioplan.codegen.ir import synthesize
from bioplan.codegen.names import indistinguishable_names, refuse_id_syntax
from bioplan.compile import compile_request, plan_request
from bioplan.errors import UnreadableInputError
from helpers import deadline, fastq_pairs, planning_refusal, write_fastq

EXAMPLES = int(os.environ.get("BIOPLAN_PROPERTY_EXAMPLES", 2000 if os.environ.get("CI") == "true" else 50))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
TRIM = "trim the reads with fastp"


def _gfm_html(markdown: str) -> str:
    cmarkgfm = pytest.importorskip("cmarkgfm")
    return cmarkgfm.github_flavored_markdown_to_html(markdown)


def _links(html: str) -> list[tuple[str, str]]:
    return re.findall(r'<a href="([^"]*)"[^>]*>(.*?)</a>', html)


def _only_inert_links(html: str) -> bool:
    """No web, script or data link, and every link GitHub still makes (e-mail and XMPP autolinks: its renderer
    joins the text around an escape or an entity before it looks for them, so no escape breaks them) points
    where its text says. An XMPP address's resource may hold '//' ('xmpp:a@b.co//https' from the text
    'xmpp:a@b.co//https://', whose ':' ends the resource): a chat address, never a web one."""
    return all(href in (shown, "mailto:" + shown)
               and ("//" not in href or re.fullmatch(r"(?i)xmpp:[^:/]+@[^:/]+/[^:]*", href) is not None)
               and not re.match(r"(?i)(https?|ftp|javascript|data|file|vbscript):", href)
               for href, shown in _links(html))


# ----------------------------------------------------------------------------- Markdown autolinks
@pytest.mark.parametrize("text", [
    "see https://evil.example/login now", "HTTPS://EVIL.EXAMPLE", "ftp://evil.example/x", "www.evil.example",
    "(www.evil.example)", "*www.evil.example*", "<https://evil.example>", "[x](https://evil.example)",
    "![x](https://evil.example/p.png)", "[x]: https://evil.example", "javascript:alert(1)//https://x.example",
])
def test_a_web_address_in_user_text_is_no_link_in_the_readme(text):
    out = escape.md(text)
    assert not re.search(r"(?<!\\):/|(?i:(?<![A-Za-z0-9])www\.)", out), out  # the triggers, escaped
    html = _gfm_html(out)
    assert "<a " not in html and "<img" not in html, (text, out, html)
    assert re.sub(r"<[^>]+>", "", html).strip().replace("&lt;", "<").replace("&gt;", ">") == text  # shown as given


def test_bioplans_own_addresses_stay_links_and_that_filter_is_no_user_text_filter():
    """config/README.md's meanings (knowledge text: each tool's documentation, each reference's download
    address) keep their links; `md_knowledge` is never accepted for user text by the template scan."""
    html = _gfm_html(escape.md_knowledge("Parameter top_n of GSEApy; its documentation: https://gseapy.readthedocs.io"))
    assert '<a href="https://gseapy.readthedocs.io">' in html and "top_n" in html
    assert "md_knowledge" not in escape.CONTEXT_FILTERS and "md" in escape.CONTEXT_FILTERS


_PIECES = ["https://", "http:", "//", "www.", "WWW.", "ftp://x.y", "evil.example", "a@b.co", "<", ">", "\\", ":",
           "/", ".", " ", "[", "](", ")", "!", "`", "*", "_", "~", "(", "&amp;", "&#58;", "javascript:", "mailto:",
           "xmpp:", "w", "|", "#", "1.", "-", "<b>", "<!--", "-->", "[x]: ", '"', "'", "\u202e", "\u200b"]


# a placeholder character per piece: up to 12 pieces drawn as one string (a list of sampled_from draws each
# piece alone, most of an example's time)
_MARKS = "".join(chr(0xE000 + i) for i in range(len(_PIECES)))


def _pieces(marks: str) -> str:
    return "".join(_PIECES[ord(c) - 0xE000] for c in marks)


@SETTINGS
@given(text=st.text(_MARKS, max_size=12).map(_pieces))
@example(text="xmpp:a@b.co//https://")  # an XMPP link whose resource holds '//' (found by this property)
@example(text="xmpp:a@b.co/https://evil.example")  # the ':' ends the resource: no web address inside it
def test_property_markdown_text_renders_no_web_link_and_no_html(text):
    html = _gfm_html(escape.md(text))
    assert _only_inert_links(html), (text, escape.md(text), html)
    assert not re.search(r"<(?!/?p>|a href=|/a>)", html), (text, escape.md(text), html)


# ----------------------------------------------------------------------------- the RO-Crate's request
HOSTILE_REQUEST = ("Trim the reads with fastp. Notes: https://evil.example/x www.evil.example "
                   "[docs](javascript:alert(1)) <img src=x onerror=alert(1)> \u202egpj.exe\u202c S\u200bT\u0410R")


def test_the_crate_describes_the_request_as_the_readme_shows_it(knowledge, tmp_path):
    inputs = [write_fastq(tmp_path / "in" / f"S1_R{mate}.fastq.gz", mate) for mate in (1, 2)]
    result = plan_request(HOSTILE_REQUEST, inputs, knowledge, allow_partial=True)
    workflow = synthesize(knowledge, result.spec, result.plans[0], workdir=str(tmp_path / "wf"))
    assert workflow.query == HOSTILE_REQUEST  # the IR keeps the raw text (the plan report shows it)
    raw = crate_metadata(knowledge, workflow, {"workflow/Snakefile": ""}, "snakemake", "workflow/Snakefile")
    root = next(e for e in json.loads(raw)["@graph"] if e["@id"] == "./")
    shown = escape.request_text(HOSTILE_REQUEST)  # what the README quotes, through the md filter
    assert "STAR" in shown and "gpj.exe" in shown and "\u200b" not in raw and "\u202e" not in raw
    assert root["description"] == escape.md(shown)
    assert shown.startswith(root["name"].removesuffix(" ..."))
    html = _gfm_html(root["description"])
    assert "<a " not in html and "<img" not in html, html


# ----------------------------------------------------------------------------- lookalike sample ids
@pytest.mark.parametrize(("first", "second"), [
    ("ctrl_1", "\u0441trl_1"),         # Cyrillic es
    ("CAP1", "\u0421\u0410\u0420\u0031"),  # wholly Cyrillic capitals
    ("AB_2", "\u0391\u0392_2"),        # Greek capitals
], ids=["cyrillic_in_latin", "cyrillic_word", "greek"])
def test_sample_ids_that_differ_only_in_lookalike_letters_are_refused(knowledge, tmp_path, first, second):
    err = planning_refusal(knowledge, TRIM, fastq_pairs(tmp_path / "in", [first, second]), tmp_path / "out")
    assert err.code == "ambiguous_input"
    assert repr(first) in err.message and repr(second) in err.message
    assert f"U+{ord(next(c for c in second if not c.isascii())):04X}" in err.message  # the letter that differs, named


_LATIN_TO_LOOKALIKE = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441", "x": "\u0445",
                       "A": "\u0410", "B": "\u0392", "H": "\u041d", "K": "\u039a", "T": "\u0422", "M": "\u039c"}


@SETTINGS
@given(name=st.text(alphabet="aeopcxABHKTM0123456789_", min_size=1, max_size=10), swaps=st.integers(0, 1023))
def test_property_a_name_and_its_lookalike_spelling_are_one_sample(name, swaps):
    """`swaps`: a bit per position, set where a letter is spelt with its Cyrillic or Greek lookalike."""
    other = "".join(_LATIN_TO_LOOKALIKE.get(c, c) if swaps >> i & 1 else c for i, c in enumerate(name))
    assert indistinguishable_names([name, other, "zz_unrelated"]) == ([sorted({name, other})] if other != name else [])


def test_words_of_other_scripts_that_look_different_stay_distinct():
    assert indistinguishable_names(["TNF\u03b1", "TNFa", "\u0434\u043e\u043c", "S1", "S2", "\u0436_1"]) == []


# ----------------------------------------------------------------------------- '%' in ids (SLURM log paths)
@pytest.mark.parametrize("sample", ["S%j", "A%u_1", "x%%y"])
def test_a_sample_id_sbatch_would_read_as_a_log_pattern_is_refused(knowledge, tmp_path, sample):
    err = planning_refusal(knowledge, TRIM, fastq_pairs(tmp_path / "in", [sample, "S2"]), tmp_path / "out")
    assert isinstance(err, UnreadableInputError) and err.code == "unreadable_input"
    assert repr(sample) in err.message and "slurm_logs" in err.message and f"(from '{sample}_R" in err.message
    assert any("without '%'" in h for h in err.hints)


def test_patient_and_lane_ids_with_a_percent_are_refused_too():
    for key in ("patient", "lane"):
        with pytest.raises(UnreadableInputError, match=f"the {key} id 'p%x'"):
            refuse_id_syntax({"sample": ["s1"], key: ["p1", "p%x"]}, {})
    refuse_id_syntax({"sample": ["s1", "s-2.b+c", "caf\u00e9 (rep 2)", "a&b"], "patient": ["p1"], "lane": ["1"]}, {})


# ----------------------------------------------------------------------------- markup in ids (HTML reports)
@pytest.mark.parametrize("sample", ["S<img src=x onerror=alert(1)>", "S<script>x", "a>b"])
def test_a_sample_id_the_qc_reports_html_would_read_as_markup_is_refused(knowledge, tmp_path, sample):
    err = planning_refusal(knowledge, TRIM, fastq_pairs(tmp_path / "in", [sample, "S2"]), tmp_path / "out")
    assert err.code == "unreadable_input" and repr(sample) in err.message and "MultiQC" in err.message
    assert any("without '<' or '>'" in h for h in err.hints)


@pytest.mark.e2e
def test_multiqc_writes_a_sample_name_into_its_html_as_markup(tmp_path):
    """Why '<' and '>' are refused: the pinned MultiQC puts a sample name into its report unescaped (a FastQC
    report of a file named like the sample, as the workflows link the reads). If this stops holding, the
    refusal may be relaxed."""
    fastqc, multiqc = shutil.which("fastqc"), Path(sys.executable).parent / "multiqc"
    if fastqc is None or not multiqc.exists():
        pytest.skip("needs fastqc and the tools extra's multiqc")
    name = "S<img src=x onerror=alert(1)>"
    reads = write_fastq(tmp_path / f"{name}_1.fastq.gz", 1, reads=50)
    subprocess.run([fastqc, "-q", "-o", str(tmp_path), reads], check=True, capture_output=True, timeout=300)
    subprocess.run([str(multiqc), "-q", "-f", str(tmp_path), "-o", str(tmp_path / "mq")], check=True,
                   capture_output=True, timeout=300)
    html = (tmp_path / "mq" / "multiqc_report.html").read_text(encoding="utf-8")
    assert f">{name}_1</span>" in html  # the name as an element of the page, not as text


# ----------------------------------------------------------------------------- names inside addresses
@pytest.mark.parametrize(("query", "named"), [
    ("trim the reads with fastp (see https://github.com/alexdobin/STAR)", "star"),
    ("trim the reads with fastp; questions to salmon@lab.example", "salmon"),
    ("trim the reads with fastp, results in ./bwa_hisat2/ please", "bwa"),
    ("trim the reads with fastp, the index is in /data/hisat2_index/", "hisat2"),
    ("trim the reads with fastp, notes at www.kallisto.example", "kallisto"),
])
def test_a_tool_named_inside_an_address_is_no_step_and_is_said(knowledge, query, named):
    """A web address, an e-mail address or a path names something: a tool name in it planned that tool
    silently (a Salmon quantification for 'salmon@lab.example'). Now it plans nothing and is said."""
    from bioplan.request.parse import parse_request

    request = parse_request(query, knowledge)
    assert request.preferred_tools == ("fastp",), request.preferred_tools
    assert request.operations == ("read_trimming",), request.operations
    assert any(named in words for words in request.unrecognized)  # printed as not understood, in the README too


def test_words_with_a_slash_between_them_are_still_words(knowledge):
    from bioplan.request.parse import parse_request

    request = parse_request("differential expression with DESeq2/edgeR, treated / control", knowledge)
    assert {"deseq2", "edger"} <= {t.split("_")[0] for t in request.preferred_tools + tuple(
        m.id for m in request.matches if m.kind == "tool")}, request.matches


# ----------------------------------------------------------------------------- the user's environment
def test_the_users_snakemake_profile_is_not_the_pre_checks(monkeypatch, tmp_path):
    """SNAKEMAKE_PROFILE (the user's default profile: 'executor: slurm') was read by the pre-check's dry run,
    which then failed as 'a bug in bioplan's knowledge or templates'."""
    from bioplan.validate.snakemake_checks import _check_env

    monkeypatch.setenv("SNAKEMAKE_PROFILE", str(tmp_path))
    env = _check_env(tmp_path / "cache")
    assert "SNAKEMAKE_PROFILE" not in env and env["SLURM_CONF"] == os.devnull
    assert os.environ["SNAKEMAKE_PROFILE"] == str(tmp_path)  # the user's own environment is left alone


@pytest.mark.e2e
def test_a_compile_under_a_users_slurm_profile_passes_its_pre_check(knowledge, monkeypatch, tmp_path):
    profile = tmp_path / "profile"
    profile.mkdir()
    (profile / "config.yaml").write_text("executor: slurm\njobs: 10\n")
    monkeypatch.setenv("SNAKEMAKE_PROFILE", str(profile))
    inputs = [write_fastq(tmp_path / "in" / f"S1_R{mate}.fastq.gz", mate) for mate in (1, 2)]
    res = compile_request(TRIM, inputs, str(tmp_path / "wf"), knowledge=knowledge, validate=True)
    assert (res.output_dir / "workflow" / "Snakefile").is_file()


# ----------------------------------------------------------------------------- many inputs (linear, not quadratic)
def _quant_runs(folder: str, n: int) -> list:
    from bioplan.models import Fact, SniffedFile

    return [SniffedFile(path=f"{folder}/s{i}", datatype="transcript_quantification", format="salmon_quant",
                        evidence=("quant.sf",), facts=(Fact(name="quantifier", value="salmon", evidence="x"),),
                        sample=f"s{i}") for i in range(n)]


def test_a_folder_of_many_quantifier_runs_is_taken_in_linear_time(knowledge, monkeypatch):
    """A folder of 3,000 Salmon runs (one per cell of a Smart-seq2 study) spent minutes planning: each run was
    compared with every other (4.5 million pydantic comparisons) and counted again per run for its lane."""
    import bioplan.compile as compile_module
    from bioplan.models import InputProfile
    from bioplan.request.spec import _lanes

    runs = _quant_runs("/data/salmon", 5_000)
    monkeypatch.setattr(compile_module, "sniff_inputs", lambda *args, **kwargs: InputProfile(files=tuple(runs)))
    with deadline(3):  # quadratic: 25 million pydantic comparisons, a minute
        profile = compile_module.sniff_with_declarations(knowledge, ["/data/salmon"], {})
        lanes = _lanes(profile.files)
    assert list(profile.files) == runs and lanes == [None] * len(runs)


def test_lanes_are_still_numbered_where_a_sample_has_several():
    from bioplan.models import Fact, SniffedFile

    files = [SniffedFile(path=f"S1_L00{lane}_R1.fastq.gz", datatype="raw_reads", format="fastq_gz", sample="S1",
                         mate=1, facts=(Fact(name="lane", value=lane, evidence="name"),)) for lane in (1, 2)]
    files.append(SniffedFile(path="S2_L001_R1.fastq.gz", datatype="raw_reads", format="fastq_gz", sample="S2",
                             mate=1, facts=(Fact(name="lane", value=1, evidence="name"),)))
    from bioplan.request.spec import _lanes

    assert _lanes(files) == ["1", "2", None]


# ----------------------------------------------------------------------------- a comparison named by its levels
def _bulk(tmp_path: Path, levels: list[str]) -> list[str]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    samples = [f"s{i}" for i in range(len(levels))]
    counts = tmp_path / "counts.csv"
    counts.write_text("gene_id," + ",".join(samples) + "\n" + "".join(
        f"ENSMUSG{g:011d}," + ",".join(str((g * 7 + i * 3) % 50 + 1) for i in range(len(samples))) + "\n"
        for g in range(1, 60)))
    sheet = tmp_path / "samples.tsv"
    sheet.write_text("sample\tcondition\n" + "".join(f"{s}\t{lv}\n" for s, lv in zip(samples, levels)))
    return [str(counts), str(sheet)]


def test_a_comparison_named_by_levels_of_a_sheet_of_more_is_said(knowledge, tmp_path):
    """'between KO and WT' on a sheet of HET, KO and WT compiled silently, and the run compared HET against WT
    (the reference, then the first other level): the levels the request names are not read, so it is said."""
    result = plan_request("differential expression between KO and WT", _bulk(tmp_path, ["WT", "WT", "HET", "HET",
                                                                                        "KO", "KO"]), knowledge)
    said = [w for w in result.spec.warnings if "3 levels" in w]
    assert len(said) == 1 and "WT, KO" in said[0] and "reference_level" in said[0]


def test_two_levels_or_one_named_level_say_nothing():
    from types import SimpleNamespace

    from bioplan.models import Fact, SniffedFile
    from bioplan.request.passes.context import _levels_the_request_names

    def said(query: str, levels: dict) -> list[str]:
        sheet = SniffedFile(path="samples.tsv", datatype="sample_metadata", format="tsv",
                            facts=(Fact(name="replicates", value=levels, evidence="x"),))
        # no setting from the request's contrast (passes/contrast.py): the levels are left to the run
        draft = SimpleNamespace(request=SimpleNamespace(query=query), files=(sheet,), settings=())
        return _levels_the_request_names(draft)  # type: ignore[arg-type]

    assert said("DE between KO and WT", {"WT": 2, "KO": 2}) == []
    assert said("DE of KO", {"WT": 2, "KO": 2, "HET": 2}) == []
    assert said("DE between ko and wt", {"WT": 2, "KO": 2, "HET": 2})  # case does not matter


# ----------------------------------------------------------------------------- characters that draw nothing
@pytest.mark.parametrize("invisible", ["\ufe00", "\ufe0f", "\u034f", "\u3164", "\uffa0", "\U000e0100"])
def test_a_tool_name_with_a_character_that_draws_nothing_is_the_tool_it_shows(knowledge, invisible):
    """Variation selectors, the combining grapheme joiner and Hangul fillers are printable (Mn, Lo), so they
    survived the drop of format characters: 'sal\\ufe00mon' shows salmon and was read as 'sal' and 'mon'."""
    from bioplan.request.parse import parse_request

    request = parse_request(f"quantify the reads with sal{invisible}mon", knowledge)
    plain = parse_request("quantify the reads with salmon", knowledge)
    assert request.preferred_tools == plain.preferred_tools and request.operations == plain.operations
    assert any(t.startswith("salmon") for t in request.preferred_tools) and not request.unrecognized
    assert escape.request_text(f"sal{invisible}mon") == "salmon"  # as every emitted quote shows it


def test_sample_ids_that_differ_only_in_a_character_that_draws_nothing_are_refused():
    assert indistinguishable_names(["S1", "S1\ufe00", "S2"]) == [["S1", "S1\ufe00"]]


def test_bidi_controls_in_markdown_text_are_shown_not_dropped_nor_obeyed():
    """A condition column named U+202E alone was an empty cell of config/README.md (the control dropped);
    kept, it would reverse what follows. It is shown as the escape a reader can look up."""
    html = _gfm_html(escape.md("\u202e"))
    assert "\\u202E" in html and "\u202e" not in html
    assert escape.md("cond\u2066x") == "cond\\\\u2066x"
    assert escape.md("\x1b") == "\\\\u001B" and escape.md("a\nb") == "a b"  # ESC shown; a line break a space
    assert escape.md(escape.request_text("ST\u202eAR")) == "STAR"  # the request quote: as the plan read it

"""Sample and patient ids that are safe one by one (codegen/ir.py `unusable_sample_name`) but not together,
or not on the file system the workflow runs on: refused at compile time, naming them (SECURITY.md).

- two ids a reader or a file system cannot tell apart (case, composed or decomposed accents, fullwidth
  and other compatibility forms) look the same in samples.tsv and write one folder on a case-insensitive
  or normalising file system (macOS, Windows): each sample would overwrite the other's results; ids that
  differ only in Cyrillic or Greek letters drawn like Latin ones look the same to every reader;
- an id naming a file longer than the file system's name limit fails the run midway ("File name too long");
- an id holding the separator of a list param it is kept in (CNVkit's comma-separated normal_samples);
- an id holding '%', which sbatch reads as a pattern in the SLURM job logs named after it, '<' / '>',
  which the QC reports' HTML takes for markup, '$' / a backtick, commands in the shell that submits a job of
  `snakemake --executor slurm` run without the emitted profile, or ',', which a SLURM job's snakemake splits its
  target at (ID_SYNTAX).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from bioplan.codegen.ir import LANE, PATIENT, Workflow
from bioplan.errors import AmbiguousInputError, UnreadableInputError
from bioplan.request.same_names import indistinguishable_names, lookalikes_in


def refuse_indistinguishable_names(what: str, names: list[str], source: Mapping[str, str]) -> None:
    """Ids (of samples or patients) that differ only in case, Unicode form or lookalike letters are refused,
    naming each pair (and the lookalike letters) and the input each came from (`source`: id -> path)."""
    clashes = indistinguishable_names(names)
    if not clashes:
        return
    shown = "; ".join(" and ".join(f"{n!r}" + lookalikes_in(n) + (f" (from {os.path.basename(source[n])!r})"
                                                                   if n in source else "")
                                   for n in group) for group in clashes[:5])
    raise AmbiguousInputError(
        f"{what} ids that differ only in letter case, Unicode form or letters of another script drawn like Latin "
        f"ones: {shown}: a reader cannot tell them apart, and a case-insensitive or normalising file system "
        "(macOS, Windows) writes ids differing in case or form into one folder",
        [f"to resolve, rename one of each pair so that the {what} ids differ in more than case, accents' "
         f"encoding and lookalike letters (e.g. S1 and S2), or merge them if they are one {what}"],
        {f"{what}s": clashes})


NAME_MAX = 255  # bytes of one file or folder name (Linux, macOS, Windows, the cluster file systems)
# tools write their own files beside the declared ones, named after them (STAR's <prefix>Log.progress.out
# and <prefix>_STARtmp/, samtools sort's <prefix>.tmp.0000.bam, an index's .bai or .tbi): the room a
# declared name leaves them
TOOL_NAME_ROOM = 32


def _bytes(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def overlong_names(patterns: list[str], values: Mapping[str, list[str]]) -> list[tuple[str, str, str, int]]:
    """(wildcard, value, pattern, bytes) for each value that makes a file or folder name longer than
    NAME_MAX less TOOL_NAME_ROOM (its longest name): `patterns` hold `{sample}` / `{patient}`, `values`
    map each wildcard to its values."""
    found = []
    for key, names in values.items():
        parts = [(pattern, part) for pattern in patterns for part in pattern.split("/") if "{" + key + "}" in part]
        for name in dict.fromkeys(names) if parts else ():
            size, pattern = max((_bytes(part.replace("{" + key + "}", name)), pattern) for pattern, part in parts)
            if size > NAME_MAX - TOOL_NAME_ROOM:
                found.append((key, name, pattern, size))
    return found


def refuse_overlong_names(patterns: list[str], values: Mapping[str, list[str]]) -> None:
    """A sample or patient id that would name a file beyond the file system's limit is refused at compile
    time, naming the id, the file and the limit."""
    found = overlong_names(patterns, values)
    if not found:
        return
    key, name, pattern, size = found[0]
    shown = name if len(name) <= 60 else name[:40] + "..." + name[-12:]
    room = NAME_MAX - TOOL_NAME_ROOM - (size - _bytes(name))
    raise UnreadableInputError(
        f"the {key} id {shown!r} ({_bytes(name)} bytes) makes the file name {pattern.rsplit('/', 1)[-1]!r} "
        f"{size} bytes long: a file system holds names of at most {NAME_MAX} bytes, and the tools add up to "
        f"{TOOL_NAME_ROOM} more to the files they write beside it"
        + (f" ({len(found) - 1} more id(s) too long)" if len(found) > 1 else ""),
        [f"to resolve, rename the {key} to at most {room} bytes (in the input files' names or the sample sheet)"],
        {key: name, "file": pattern, "bytes": size, "limit": NAME_MAX})


# what a comma-separated list param's readers split or strip (templates/*/cnvkit_batch: `tr -d ' '`, then
# `case ",$normals," in *",$sample,"*`)
LIST_SEPARATORS = (",", " ")


def refuse_list_separators(param: str, tool: str, names: list[str], source: Mapping[str, str]) -> None:
    """Sample ids a tool param keeps as one comma-separated list (CNVkit's normal_samples): an id holding the
    separator would become two items (a normal 'n1,t1' put the tumour t1 into the normal reference) or
    none (spaces are stripped, so a normal 'n 1' matched no BAM and was called as a tumour)."""
    bad = [n for n in names if any(sep in n for sep in LIST_SEPARATORS)]
    if not bad:
        return
    shown = ", ".join(f"{n!r}" + (f" (from {os.path.basename(source[n])!r})" if n in source else "") for n in bad[:5])
    raise UnreadableInputError(
        f"{tool} reads its normal samples as the comma-separated list {param}, and the sample id(s) {shown} hold "
        "a ',' or a space, which would split the id or make it match no sample",
        ["to resolve, rename the sample(s) without ',' and spaces (e.g. p1_normal), in the sample sheet and the "
         "files' names"], {"param": param, "samples": bad})


# Characters an id is a wildcard value and a report's sample name with, that a program reading the workflow's
# files takes for syntax (and why): refused in sample, patient and lane ids at compile time.
ID_SYNTAX: dict[str, str] = {
    # sbatch reads '%' in a job's --output path as a pattern (%j the job id, %u the user, %x the job name, %%),
    # and the SLURM executor of profiles/slurm names each job's log after its wildcards' values: it refuses a
    # '%j' there ("jobid placeholder in logfile directory") and mkdirs the folder unexpanded, so another
    # pattern sends the log into a folder that does not exist
    "%": "run on SLURM (profiles/slurm), each job's log is .snakemake/slurm_logs/<rule>/{name}/%j.log and sbatch "
         "reads '%' in that path as a pattern ('%j' stops the run at its first job, '%u' or '%x' writes the log "
         "into a folder that does not exist)",
    # MultiQC 1.25 writes sample names into its HTML report unescaped (the general statistics table's
    # <span class="th-sample-name">, JSON inside <script> elements), as fastp's HTML report writes its inputs'
    # names: a name holding markup is markup there, and runs as script when the report is opened
    "<>": "the QC reports write sample names into their HTML unescaped (MultiQC's general statistics table, "
          "fastp's report), so a name holding '<' or '>' is markup there: 'S<img src=x onerror=...>' runs as "
          "script when the report is opened",
    # snakemake-executor-plugin-slurm 2.8 submits each job as `sbatch --wrap="<the job's snakemake command>"` through
    # a shell unless slurm-pass-command-as-script is set (profiles/slurm sets it; `snakemake --executor slurm` without
    # that profile does not), and the command names the job's wildcards: inside those double quotes '$(...)', '${...}'
    # and backticks are commands run on the submitting host ('S$(touch PWNED)' ran touch at the first submission)
    "$`": "run on SLURM without the workflow's profiles/slurm (`snakemake --executor slurm`), each job is submitted "
          "as sbatch --wrap=\"<its command>\" through a shell, and the command names the job's sample: inside those "
          "double quotes '$(...)', '${...}' and backticks are commands ('{name}' would run them on the submitting "
          "host)",
    # a remote job's snakemake is started with --target-jobs '<rule>:sample=<id>', which Snakemake 9 splits at every ','
    # (snakemake/target_jobs.py), the quotes the plugin puts around such an id notwithstanding: "Invalid target
    # wildcards definition", every SLURM job of the sample fails at its start
    ",": "run on SLURM, each job's snakemake is started with --target-jobs '<rule>:sample={name}', which Snakemake "
         "splits at every ',' (\"Invalid target wildcards definition\"): every job of the sample would fail",
}


# The SLURM executor (snakemake-executor-plugin-slurm 2.8, its jobstep plugin) runs each job's snakemake command
# through a shell, naming the job's wildcards as a Python repr (`--target-jobs 'rule:sample=<id>'`, an id holding a
# ',' put in '"' first): single quotes, unless the id holds a "'", then double quotes, where '$(...)', '${...}' and
# backticks are commands ("x'$(touch X)" ran touch), and an id holding both a "'" and a ',' gets both quotes, so
# repr escapes the "'" with a backslash the shell does not read inside single quotes and the rest of the id is shell
# code. profiles/slurm passes that command as a script (slurm-pass-command-as-script), never in sbatch
# --wrap="...", where '$' and backticks in any id ran on the submitting host ('S$(touch PWNED)' did).
SLURM_QUOTE, SLURM_QUOTED_SYNTAX = "'", "$`,"  # (since round 7 each of '$', '`' and ',' is refused alone: ID_SYNTAX)


def slurm_target_stripped(name: str) -> bool:
    """Whether a SLURM job would look for another sample than `name`: its snakemake reads the target
    '<rule>:sample=<id>' with the quotes around the value stripped (Snakemake 9 parse_key_value_arg strips every "'"
    and '"' at its ends), so "ctrl '2'" would be sought as "ctrl '2" and the job fail."""
    return name[:1] in "'\"" or name[-1:] in "'\""


def _syntax_in(name: str) -> str | None:
    """The ID_SYNTAX characters `name` holds, or the quote SLURM's target reading strips from its ends."""
    found = next((chars for chars in ID_SYNTAX if any(c in name for c in chars)), None)
    if found is None and slurm_target_stripped(name):
        return SLURM_QUOTE
    return found


def _syntax_reason(chars: str) -> str:
    if chars in ID_SYNTAX:
        return ID_SYNTAX[chars]
    return ("run on SLURM, each job's snakemake reads its target '<rule>:sample={name}' with the quotes at the "
            "value's ends stripped, so the job would look for another sample and fail")


def refuse_id_syntax(values: Mapping[str, list[str]], source: Mapping[str, str]) -> None:
    """An id holding a character of ID_SYNTAX, or a "'" at its start or end (a sample, patient or lane: each a
    wildcard of the jobs and a name in the reports) is refused at compile time, naming the id, the file it came
    from and why."""
    found = [(key, name, chars) for key, names in values.items() for name in names
             if (chars := _syntax_in(name)) is not None]
    if not found:
        return
    key, name, chars = found[0]
    where = f" (from {os.path.basename(source[name])!r})" if name in source else ""
    shown = " or ".join(f"'{c}'" for c in chars) if chars in ID_SYNTAX else "a \"'\" at its start or end"
    fix = f"without {shown}" if chars in ID_SYNTAX else "without the \"'\" at its start or end (ctrl_2, not 'ctrl 2')"
    raise UnreadableInputError(
        f"the {key} id {name!r}{where} holds {shown}: " + _syntax_reason(chars).replace("{name}", name)
        + (f" ({len(found) - 1} more such id(s))" if len(found) > 1 else ""),
        [f"to resolve, rename the {key} {fix} (in the input files' names, the sample sheet or an alignment's "
         "read-group SM tag)"],
        {key: name, "characters": chars})


def refuse_unsafe_id_sets(workflow: Workflow, sources: Mapping[str, str]) -> None:
    """The workflow's sample and patient ids, together: none two a reader or file system cannot tell apart,
    none naming a file beyond the file system's limit, none (lanes too) holding a character ID_SYNTAX lists.
    `sources`: sample id -> an input file it came from."""
    samples = list(dict.fromkeys(row["sample"] for row in workflow.samples))
    patients = list(dict.fromkeys(row[PATIENT] for row in workflow.samples if row.get(PATIENT)))
    lanes = list(dict.fromkeys(row[LANE] for row in workflow.samples if row.get(LANE)))
    refuse_id_syntax({"sample": samples, PATIENT: patients, LANE: lanes}, sources)
    refuse_indistinguishable_names("sample", samples, sources)
    refuse_indistinguishable_names("patient", patients, {})
    patterns = [p.ref.path for s in workflow.steps for p in s.outputs] + [s.log for s in workflow.steps]
    patterns += [s.benchmark for s in workflow.steps if s.benchmark]
    refuse_overlong_names(patterns, {"sample": samples, PATIENT: patients})

"""Thin click commands over the library (bioplan.compile); no logic lives here."""

from __future__ import annotations

import os

# bioplan's models take no pydantic plugins, and looking for them scans every installed
# distribution's entry points on the first model built (~20 ms of a ~0.4 s `bioplan plan`).
# The documented switch; a value the user set is kept.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

import atexit
import functools
import gc
import signal
import sys
import threading
from typing import Any

import click
from click.parser import _normalize_opt, _OptionParser, _ParsingState

from bioplan import DEFAULT_MAX_HOPS
from bioplan.codegen import DEFAULT_TARGET, target_names
from bioplan.errors import BioplanError, Interrupted, one_line


def _dumps(value: object, **kwargs: Any) -> str:
    """`json.dumps`, imported when a command prints JSON: a plain `bioplan plan` does not (~1.5 ms)."""
    import json

    return json.dumps(value, **kwargs)


def _echo(message: str = "", err: bool = False) -> None:
    """Every line bioplan prints goes through here: user-derived text (requests, file names) may hold
    terminal control sequences, shown escaped instead of acted on by the terminal."""
    from bioplan.request.text import terminal_safe

    click.echo(terminal_safe(message), err=err)


def _fail(exc: BioplanError, as_json: bool) -> None:
    if as_json:
        _echo(_dumps(exc.to_json(), indent=2, ensure_ascii=False))
    else:
        _echo(exc.render(), err=True)
    sys.exit(exc.exit_status)


_TERMINATING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _interruptible(command):
    """SIGINT, SIGTERM and SIGHUP raise `Interrupted` in the command, so every cleanup runs (scratch and
    stage directories removed, the child `snakemake -n` stopped); the command then exits 128 + the signal.
    Later signals are ignored while it cleans up; a signal the caller ignores (nohup) stays ignored."""

    def raise_interrupted(signum, frame):
        for sig in _TERMINATING:
            signal.signal(sig, signal.SIG_IGN)
        raise Interrupted(signum)

    @functools.wraps(command)
    def run(*args, **kwargs):
        if threading.current_thread() is not threading.main_thread():  # only the main thread gets signals
            return command(*args, **kwargs)
        previous = {sig: signal.getsignal(sig) for sig in _TERMINATING}
        for sig, handler in previous.items():
            if handler is not signal.SIG_IGN:
                signal.signal(sig, raise_interrupted)
        try:
            return command(*args, **kwargs)
        except Interrupted as exc:
            sys.exit(exc.exit_status)
        except KeyboardInterrupt:  # SIGINT before the handler was in place
            sys.exit(128 + signal.SIGINT)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler if handler is not None else signal.SIG_DFL)

    return run


# One `plan` or `compile` allocates millions of objects and frees few of them: the cyclic garbage
# collector's default thresholds (a collection every 700 new objects, a full one every 100th) ran
# ~270 collections in a compile of the bulk example, ~130 ms of its ~1.1 s of CPU, and ~25 ms of a
# plan's ~0.4 s, while finding almost nothing to free. These one-shot commands collect rarely
# instead; the thresholds are restored when the command returns (tests and `eval` run many commands
# in one process). Garbage is still collected, so memory stays bounded.
_ONE_SHOT_GC_THRESHOLDS = (100_000, 50, 100)


@functools.cache
def _no_final_collections() -> None:
    """When the process ends, the interpreter's last collections walk every object still alive (the
    knowledge, the plans, every module's): ~0.1 s of a plan's ~0.6 s of CPU. Objects frozen at exit
    are skipped. A process that is ending loses nothing by it: files are closed by their `with`
    blocks and stdout/stderr flushed by the interpreter; in a long-lived process (tests, `eval`)
    this runs only at its exit."""
    atexit.register(gc.freeze)


def _few_collections(command):
    @functools.wraps(command)
    def run(*args, **kwargs):
        _no_final_collections()
        previous = gc.get_threshold()
        gc.set_threshold(*_ONE_SHOT_GC_THRESHOLDS)
        try:
            return command(*args, **kwargs)
        finally:
            if _WHOLE_PROCESS[-1]:
                # The caller's thresholds back, over a young generation holding all the command
                # allocated (~10^5 objects), would collect it at the next allocation: ~20-30 ms of a
                # plan's ~0.3 s walking objects the exiting process keeps. Frozen instead (which also
                # empties the young generation): in-process callers (tests, eval) are not frozen.
                gc.freeze()
            gc.set_threshold(*previous)

    return run


# True while the command line's group runs as the whole process (`bioplan ...`, `python -m bioplan.cli`:
# click's `main()` reading sys.argv); False while a caller passes the arguments (CliRunner in tests)
_WHOLE_PROCESS = [False]


class _ShortOptionsFirst(_OptionParser):
    """click's parser, except that an argument no long option can match (`-i`) goes straight to the
    short options. click tries it as a long option first and catches the `NoSuchOption`, whose
    constructor imports `difflib` and looks for close matches among the long options: ~2 ms per
    plan for nothing. The same arguments reach the same options: click's long match fails first
    exactly when the name is not a long option, then tries the short ones unless the argument
    starts with a two-character prefix (`--`)."""

    def _process_opts(self, arg: str, state: _ParsingState) -> None:
        name = _normalize_opt(arg.split("=", 1)[0], self.ctx)
        if name not in self._long_opt and arg[:2] not in self._opt_prefixes:
            self._match_short_opt(arg, state)
            return
        super()._process_opts(arg, state)


class _Command(click.Command):
    def make_parser(self, ctx: click.Context) -> _OptionParser:
        parser = _ShortOptionsFirst(ctx)
        for param in self.get_params(ctx):
            param.add_to_parser(parser, ctx)
        return parser


class _CommandLine(click.Group):
    command_class = _Command

    def main(self, args=None, *rest, **kwargs):
        if args is None:  # the whole process: bioplan's patterns and dataclass methods from earlier runs' work
            from bioplan import dataclass_code, patterns

            patterns.serve()
            dataclass_code.serve()
        _WHOLE_PROCESS.append(args is None)
        try:
            return super().main(args, *rest, **kwargs)
        finally:
            _WHOLE_PROCESS.pop()


def _quiet_when_json(command):
    """With --json, no progress lines on stderr: a consumer reading both streams gets JSON only."""

    @functools.wraps(command)
    def run(*args, **kwargs):
        if not kwargs.get("as_json"):
            return command(*args, **kwargs)
        from bioplan.progress import quiet

        with quiet():
            return command(*args, **kwargs)

    return run


def _declarations(values: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for v in values:
        path, sep, datatype = v.rpartition("=")
        if not sep or not path:
            raise click.BadParameter(f"{v!r}: expected FILE=DATATYPE", param_hint="--input-type")
        out[path] = datatype
    return out


def _print_version(ctx: click.Context, _param, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from bioplan.doctor import version_report

    _echo(version_report())
    ctx.exit()


@click.group(cls=_CommandLine)
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show bioplan's version and what it runs with (snakemake, plugins, tools extra), then exit.")
def main() -> None:
    """bioplan: compile a bioinformatics request and its input files into a workflow."""


_query = click.argument("query", required=False, default="")
_inputs = click.option("-i", "--input", "inputs", multiple=True, metavar="FILE", help="An input file (repeatable).")
_declared = click.option("--input-type", "declared", multiple=True, metavar="FILE=DATATYPE",
                         help="Say what an input file is instead of letting bioplan sniff it (repeatable).")
# at least one: 0 or a negative count is a usage error (exit 2), not an empty plan list
_top = click.option("--top", "top_k", default=3, show_default=True, type=click.IntRange(min=1),
                    help="How many ranked plans to keep.")
_hops = click.option("--max-hops", default=DEFAULT_MAX_HOPS, show_default=True, type=click.IntRange(min=1),
                     help="Longest chain of operations allowed.")
_substitute = click.option("--substitute", is_flag=True,
                           help="A tool the request names that bioplan lacks: use bioplan's own tool for its "
                                "operation instead of refusing (said in the output, report and README).")
_allow_partial = click.option("--allow-partial", is_flag=True,
                              help="Plan the understood part when an analysis bioplan does not do or an "
                                   "instruction it did not understand is in the request (said as a warning).")


@main.command()
@_query
@_inputs
@_declared
@click.option("--json", "as_json", is_flag=True, help="Print the plan report as JSON.")
@click.option("--emit", type=click.Choice(["report", "spec", "plan", "workflow", "pddl", "dot"]), default="report",
              help="Dump one stage's output instead of the report (pddl: the planning problem as PDDL "
                   "domain + problem; with --json as {domain, problem, cost_scale}; dot: the best plan's "
                   "workflow as a Graphviz DOT graph).")
@_top
@_hops
@_substitute
@_allow_partial
@_interruptible
@_few_collections
@_quiet_when_json
def plan(query, inputs, declared, as_json, emit, top_k, max_hops, substitute, allow_partial):
    """Plan QUERY without writing a workflow: task spec, ranked plans, what was pruned and why."""
    from bioplan.compile import PLANNING, plan_request
    from bioplan.progress import slow_step
    from bioplan.report import report, text_report

    try:
        with slow_step(PLANNING):
            result = plan_request(query, list(inputs), top_k=top_k, max_hops=max_hops,
                                  declared=_declarations(declared), substitute=substitute,
                                  allow_partial=allow_partial)
        if emit == "spec":
            _echo(result.spec.model_dump_json(indent=2))
        elif emit == "plan":
            _echo(_dumps([p.model_dump(mode="json") for p in result.plans], indent=2))
        elif emit == "workflow":
            from bioplan.codegen.ir import synthesize
            from bioplan.knowledge.load import load_knowledge

            _echo(synthesize(load_knowledge(), result.spec, result.plans[0]).model_dump_json(indent=2))
        elif emit == "dot":
            from bioplan.codegen.dag import to_dot
            from bioplan.codegen.ir import synthesize
            from bioplan.knowledge.load import load_knowledge

            _echo(to_dot(synthesize(load_knowledge(), result.spec, result.plans[0])).rstrip("\n"))
        elif emit == "pddl":
            from bioplan.knowledge.load import load_knowledge
            from bioplan.planner.graph import build_problem
            from bioplan.planner.pddl import to_pddl

            knowledge = load_knowledge()
            export = to_pddl(build_problem(knowledge, result.spec), knowledge, result.spec)
            _echo(_dumps({"domain": export.domain, "problem": export.problem, "cost_scale": export.cost_scale},
                               indent=2) if as_json else export.domain + "\n" + export.problem)
        elif as_json:
            _echo(_dumps(report(result), indent=2, ensure_ascii=False))
        else:
            _echo(text_report(result))
    except BioplanError as exc:
        _fail(exc, as_json)


@main.command()
@_query
@_inputs
@_declared
@click.option("-o", "--output", required=True, metavar="DIR",
              help="The workflow's directory (created if missing). DIR/Snakefile or DIR/workflow/Snakefile "
                   "(Snakemake) and DIR/main.nf (Nextflow) name the same directory.")
@click.option("--target", type=click.Choice(target_names()), default=DEFAULT_TARGET, show_default=True,
              help="snakemake: DIR/workflow/Snakefile (snakemake-workflows layout); nextflow: DIR/main.nf "
                   "(nf-core layout).")
@click.option("--force", is_flag=True, help="Overwrite existing files.")
@click.option("--partition", default=None, help="SLURM partition for profiles/slurm (else a marked placeholder).")
@click.option("--account", default=None, help="SLURM account for profiles/slurm (else a marked placeholder).")
@click.option("--max-threads", default=None, metavar="N",
              help="The cluster's CPUs per node: no SLURM job asks for more (else a marked placeholder).")
@click.option("--max-mem-mb", default=None, metavar="MB",
              help="The cluster's memory per node in MB: caps every job's mem_mb, retries included.")
@click.option("--max-runtime", default=None, metavar="MINUTES",
              help="The partition's time limit in minutes: caps every job's runtime, retries included.")
@click.option("--no-sinfo", is_flag=True,
              help="With --partition: do not read the partition's nodes with SLURM's sinfo (by default, where "
                   "sinfo answers, limits above its largest node are refused and missing ones taken from it).")
@click.option("--no-validate", is_flag=True,
              help="Skip the pre-check of the emitted workflow (for Snakemake: `snakemake -n` on a scratch "
                   "copy; Nextflow output has no pre-check).")
@click.option("--fetch-references", is_flag=True,
              help="Download the missing references at run time (pinned provider URLs, provider checksums); "
                   "config `fetch: true`. Without it nothing is downloaded.")
@click.option("--reference-cache", default=None, metavar="DIR",
              help="Keep downloaded references in DIR, shared by every workflow compiled with it "
                   "(default: resources/ in the workflow).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@_top
@_hops
@_substitute
@_allow_partial
@_interruptible
@_few_collections
@_quiet_when_json
def compile(query, inputs, declared, output, target, force, partition, account, max_threads, max_mem_mb,  # noqa: A001
            max_runtime, no_sinfo, no_validate, fetch_references, reference_cache, as_json, top_k, max_hops,
            substitute, allow_partial):
    """Compile QUERY and its input files into a workflow at PATH."""
    from bioplan.codegen import start_precheck_ahead, stop_precheck_ahead

    if not no_validate:  # first: the pre-check's tool loads on another core while bioplan imports and plans
        start_precheck_ahead(target)
    from bioplan.compile import compile_request
    from bioplan.report import plan_json, reference_json

    try:
        res = compile_request(query, list(inputs), output, target=target, force=force,
                              validate=not no_validate, top_k=top_k, max_hops=max_hops,
                              declared=_declarations(declared), partition=partition, account=account,
                              substitute=substitute, allow_partial=allow_partial, max_threads=max_threads,
                              max_mem_mb=max_mem_mb, max_runtime=max_runtime,
                              fetch_references=fetch_references, reference_cache=reference_cache,
                              read_sinfo=not no_sinfo)
    except BioplanError as exc:
        _fail(exc, as_json)
        return
    finally:
        stop_precheck_ahead(target)
    if as_json:
        _echo(_dumps({"output": str(res.snakefile), "files": res.files, "plan": plan_json(res.plan),
                            "checks": {c.name: c.ok for c in res.checks}, "notes": res.notes,
                            "deviations": list(res.result.spec.deviations),
                            "references": reference_json(res.workflow),
                            "unrecognized": list(res.result.spec.unrecognized)}, indent=2))
        return
    _echo(f"wrote {one_line(str(res.snakefile))} ({len(res.files)} files)")
    for s in res.plan.steps:
        _echo(f"  {s.id:<28} {s.tool}")
    for c in res.checks:
        _echo(f"pre-check {c.name}: {'ok' if c.ok else 'FAILED'}")
    references = res.workflow.references if res.workflow else ()
    if references:
        fetching = res.workflow.fetch_references
        _echo(f"references ({len(references)}; config/config.yaml references:, checked before any job runs"
                   + (", downloaded when missing" if fetching else "") + "):")
        for r in references:
            _echo(f"  references.{r.key}: {one_line(r.path)}\n    {one_line(r.why)}; read by {', '.join(r.read_by)}"
                       f"\n    get it: {one_line(r.hint)}" + ("" if r.downloads else " (not downloadable by bioplan)"))
    for n in res.notes:
        _echo(f"note: {one_line(n)}")
    for w in res.result.warnings:
        _echo(f"warning: {one_line(w)}", err=True)
    for d in res.result.spec.deviations:
        _echo(f"warning: {one_line(d)}", err=True)
    if res.result.spec.unrecognized:
        _echo("not understood: " + one_line(", ".join(res.result.spec.unrecognized)), err=True)


@main.command("check-knowledge")
def check_knowledge():
    """Validate the knowledge base (JSON Schema + semantic checks) and summarise it."""
    from bioplan.knowledge.load import load_knowledge

    try:
        k = load_knowledge(use_cache=False)
    except BioplanError as exc:
        _fail(exc, False)
        return
    _echo(f"ok: {len(k.datatypes)} datatypes, {len(k.operations)} operations, {len(k.constraints)} constraints, "
               f"{len(k.tools)} tools, {len(k.motifs)} motifs, {len(k.formats)} formats")


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON.")
def doctor(as_json):
    """Say what is installed (snakemake, Nextflow and Java, SLURM, the Python tools extra, every tool the
    knowledge base binds) and what each missing part blocks. Exit status 0: nothing missing is an error."""
    from bioplan.doctor import diagnose, text_report

    try:
        doc = diagnose()
    except BioplanError as exc:
        _fail(exc, as_json)
        return
    _echo(_dumps(doc.to_json(), indent=2) if as_json else text_report(doc))


@main.command("eval")
@click.argument("cases", required=False, type=click.Path(dir_okay=False))
@click.option("--compile", "do_compile", is_flag=True,
              help="Also compile every planned case and run `snakemake -n` on it (slow).")
@click.option("--json", "as_json", is_flag=True, help="Print the results and metrics as JSON.")
@click.option("--baseline", type=click.Path(dir_okay=False),
              help="JSON of metric -> minimum (maximum for latency); exit 3 naming each metric that fell below.")
@click.option("--write-baseline", type=click.Path(dir_okay=False), help="Write this run's metrics as a baseline.")
@click.option("--data", "data_dir", type=click.Path(file_okay=False),
              help="Keep the generated example data here (generated when missing) instead of a temp dir.")
@click.option("-k", "select_ids", multiple=True, metavar="PATTERN", help="Only cases whose id matches (repeatable).")
@click.option("--jobs", default=4, show_default=True, help="Parallel compiles with --compile.")
@_top
@_quiet_when_json
def eval_cmd(cases, do_compile, as_json, baseline, write_baseline, data_dir, select_ids, jobs, top_k):
    """Measure bioplan on CASES (default: the shipped development set); see compiler/bioplan/evaluate/README.md."""
    from bioplan.evaluate import baseline_from, evaluate, text_report

    try:
        rep = evaluate(cases, compile=do_compile, baseline=baseline, top_k=top_k, data_dir=data_dir,
                       select_ids=select_ids, jobs=jobs)
    except BioplanError as exc:
        _fail(exc, as_json)
        return
    if write_baseline:
        with open(write_baseline, "w", encoding="utf-8") as fh:
            fh.write(_dumps(baseline_from(rep), indent=2, ensure_ascii=False) + "\n")
    _echo(_dumps(rep.to_json(), indent=2, ensure_ascii=False) if as_json else text_report(rep))
    if cases is None and not as_json:
        # the hand-written set is ours; beside it, the pass rate on requests written by others
        from bioplan.evaluate.cases import FROM_OTHERS, CaseFileError

        try:
            others = evaluate(str(FROM_OTHERS), compile=do_compile, top_k=top_k, data_dir=data_dir,
                              select_ids=select_ids, jobs=jobs)
        except CaseFileError:
            if not select_ids:
                raise
            others = None  # -k picked cases of the hand-written set only
        if others is not None:
            _echo(f"\nhand-written set ({rep.metrics['cases']} cases): pass_rate "
                       f"{rep.metrics['pass_rate']:.3f}\nfrom-others set ({others.metrics['cases']} cases, "
                       f"{FROM_OTHERS.name}): pass_rate {others.metrics['pass_rate']:.3f}")
    if rep.baseline is not None and not rep.baseline["ok"]:
        if as_json:
            _echo("\n".join(["baseline regression:"] + rep.baseline["regressions"]), err=True)
        sys.exit(3)


if __name__ == "__main__":  # pragma: no cover
    main()

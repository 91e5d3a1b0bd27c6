"""Code generation: the Workflow IR (ir.py) and one Generator per target language (generator.py)."""

# target name -> "module:class" of its Generator (generator.py); the first is the default target. Here rather
# than in generator.py: the CLI's --target choice and compile's default name the targets, and `bioplan plan`
# then imports no generator code.
REGISTRY: dict[str, str] = {
    "snakemake": "bioplan.codegen.snakemake:SnakemakeGenerator",
    "nextflow": "bioplan.codegen.nextflow:NextflowGenerator",
}


# target name -> ("module:function" that begins its pre-check's slow start (Snakemake's import, in a child
# on another core) while bioplan plans, "module:function" that ends it if no pre-check used it). Named here,
# apart from the generator: the CLI starts it first thing, and importing the generator itself (Jinja, its
# templates: ~0.25 s) would hold that start back. A target without a pre-check that runs here has no entry.
PRECHECK_AHEAD: dict[str, tuple[str, str]] = {
    "snakemake": ("bioplan.validate.snakemake_checks:start_dry_run_ahead",
                  "bioplan.validate.snakemake_checks:stop_dry_run_ahead"),
}


DEFAULT_TARGET = next(iter(REGISTRY))


def target_names() -> tuple[str, ...]:
    return tuple(REGISTRY)


def _call(where: str) -> None:
    import importlib

    module, _, name = where.partition(":")
    getattr(importlib.import_module(module), name)()


def start_precheck_ahead(target: str) -> None:
    """Start the pre-check of `target` ahead of planning (none for a target without one)."""
    if target in PRECHECK_AHEAD:
        _call(PRECHECK_AHEAD[target][0])


def stop_precheck_ahead(target: str) -> None:
    """Stop what `start_precheck_ahead` started if no pre-check used it."""
    if target in PRECHECK_AHEAD:
        _call(PRECHECK_AHEAD[target][1])

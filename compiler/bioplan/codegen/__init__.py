"""Code generation: the Workflow IR (ir.py) and one Generator per target language (generator.py)."""

# target name -> "module:class" of its Generator (generator.py); the first is the default target. Here rather
# than in generator.py: the CLI's --target choice and compile's default name the targets, and `bioplan plan`
# then imports no generator code.
REGISTRY: dict[str, str] = {
    "snakemake": "bioplan.codegen.snakemake:SnakemakeGenerator",
    "nextflow": "bioplan.codegen.nextflow:NextflowGenerator",
}


DEFAULT_TARGET = next(iter(REGISTRY))


def target_names() -> tuple[str, ...]:
    return tuple(REGISTRY)

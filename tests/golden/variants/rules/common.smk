from snakemake.utils import validate

validate(config, schema="../schemas/config.schema.yaml")


def get_final_outputs():
    """The requested results, built by the default target."""
    return [
        "results/variant_summary/variant_summary.tsv",
    ]

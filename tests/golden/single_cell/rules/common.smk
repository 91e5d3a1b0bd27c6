from snakemake.utils import validate

validate(config, schema="../schemas/config.schema.yaml")


def get_final_outputs():
    """The requested results, built by the default target."""
    return [
        "results/marker_enrichment/marker_enrichment.tsv",
        "results/embedding_visualization/umap.png",
    ]

from snakemake.utils import validate

validate(config, schema="../schemas/config.schema.yaml")


def intermediate(path):
    """A file only later steps read: temp() (deleted once they have) unless keep_intermediates."""
    return path if config.get("keep_intermediates", False) else temp(path)


def get_final_outputs():
    """The requested results, built by the default target."""
    return [
        "results/variant_summary/variant_summary.tsv",
        "results/variant_annotation_bgzip/annotated.vcf.gz",
        "results/variant_annotation_bgzip/annotated.vcf.gz.tbi",
        "results/variant_annotation/snpeff_summary.csv",
        "results/qc_report_aggregation/multiqc_report.html",
        "results/qc_report_aggregation/multiqc_data",
        "results/pipeline_info/software_versions.yml",
    ]


def slurm_guard():
    """scripts/slurm_guard.py: the checks of a SLURM run, loaded into this Snakemake process."""
    import importlib.util
    import sys

    path = f"{workflow.basedir}/scripts/slurm_guard.py"
    spec = importlib.util.spec_from_file_location("bioplan_slurm_guard", path)
    guard = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = guard  # dataclasses look their module up there
    spec.loader.exec_module(guard)
    return guard


onstart:
    # with the SLURM executor only (--profile profiles/slurm): stop before submitting if a rule
    # asks for more than the partition's nodes offer, and stop the run if SLURM keeps a job
    # pending for a reason that never clears
    slurm_guard().start(workflow, logger)

import os

import pandas as pd
from snakemake.utils import validate

validate(config, schema="../schemas/config.schema.yaml")

samples = (
    pd.read_csv(config["samples"], sep="\t", dtype=str, keep_default_na=False)
    .set_index("sample", drop=False)
    .sort_index()
)
validate(samples, schema="../schemas/samples.schema.yaml")
if not samples.index.is_unique:
    duplicated = sorted(set(samples.index[samples.index.duplicated()]))
    raise ValueError(
        f"{config['samples']}: sample names must be unique; repeated: {duplicated}"
    )
SAMPLES = samples["sample"].tolist()
missing_files = [
    f"sample '{name}', column '{column}': {path}"
    for name in SAMPLES
    for column in ["fastq_1", "fastq_2"]
    for path in [samples.loc[name, column]]
    if path and not os.path.exists(path)
]
if missing_files:
    raise ValueError(
        f"{config['samples']}: input files not found:\n  "
        + "\n  ".join(missing_files)
        + "\nTo resolve, correct the paths in the sample sheet or add the missing files."
    )


def sample_file(column):
    """Input function: the file of one sample from the sample sheet."""

    def get(wildcards):
        return samples.loc[wildcards.sample, column]

    return get


def all_sample_files(column):
    """The files of all samples from the sample sheet, in sample order."""
    return samples.loc[SAMPLES, column].tolist()


def intermediate(path):
    """A file only later steps read: temp() (deleted once they have) unless keep_intermediates."""
    return path if config.get("keep_intermediates", False) else temp(path)


def get_final_outputs():
    """The requested results, built by the default target."""
    return [
        expand("results/read_qc/{sample}/fastqc", sample=SAMPLES),
        "results/read_counting/counts.tsv",
        expand("results/read_trimming/{sample}/fastp.json", sample=SAMPLES),
        expand(
            "results/read_alignment/{sample}/{sample}.Log.final.out", sample=SAMPLES
        ),
        "results/read_counting/featurecounts.txt.summary",
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

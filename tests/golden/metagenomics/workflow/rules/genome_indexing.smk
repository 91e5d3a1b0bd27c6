rule check_reference_genome:
    input:
        genome=config["inputs"]["reference_genome"],
    output:
        ok="results/checks/check_reference_genome.ok",
    log:
        "logs/checks/check_reference_genome.log",
    retries: 0
    group:
        "checks_genome_indexing"
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 12 * attempt,
    params:
        constraint="requires_reference_genome",
        guarded_step="genome_indexing",
        datatypes={"genome": "reference_genome"},
        condition_column=config["condition_column"],
    script:
        "../scripts/check_reference_genome.py"


rule genome_indexing:
    input:
        genome=config["inputs"]["reference_genome"],
        check_reference_genome="results/checks/check_reference_genome.ok",
    output:
        index=directory("results/genome_indexing/bowtie2_index"),
    log:
        "logs/genome_indexing.log",
    benchmark:
        "benchmarks/genome_indexing.tsv"
    conda:
        "../envs/bowtie2_build.yaml"
    container:
        "docker://quay.io/biocontainers/bowtie2:2.4.4--py39hbb4e92a_0"
    threads: 8
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 240 * attempt,
    params:
        extra=config["params"]["bowtie2_build"]["extra"],
    shell:
        "mkdir -p {output.index:q}"
        " && bowtie2-build --threads {threads} {params.extra} {input.genome:q}"
        " {output.index:q}/genome > {log:q} 2>&1"

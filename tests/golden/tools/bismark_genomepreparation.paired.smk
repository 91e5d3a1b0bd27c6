rule check_reference_genome:
    input:
        genome=config["inputs"]["reference_genome"],
    output:
        ok="results/checks/check_reference_genome.ok",
    log:
        "logs/checks/check_reference_genome.log",
    retries: 0
    group:
        "checks_bisulfite_genome_indexing"
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
        guarded_step="bisulfite_genome_indexing",
        datatypes={"genome": "reference_genome"},
    script:
        "../scripts/check_reference_genome.py"


rule bisulfite_genome_indexing:
    input:
        genome=config["inputs"]["reference_genome"],
        check_reference_genome="results/checks/check_reference_genome.ok",
    output:
        index=directory("results/bisulfite_genome_indexing/bismark_index"),
    log:
        "logs/bisulfite_genome_indexing.log",
    benchmark:
        "benchmarks/bisulfite_genome_indexing.tsv"
    conda:
        "../envs/bismark_genomepreparation.yaml"
    container:
        "docker://quay.io/biocontainers/bismark:0.24.2--hdfd78af_0"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 16000 * attempt,
        runtime=lambda wildcards, attempt: 480 * attempt,
    params:
        extra=config["params"]["bismark_genomepreparation"]["extra"],
    shell:
        # Bismark indexes every FASTA of the folder it is given: the folder holds the genome alone
        "mkdir -p {output.index:q}"
        ' && cp "$(readlink -f {input.genome:q})" {output.index:q}/genome.fa'
        " && bismark_genome_preparation --bowtie2 --parallel {threads} {params.extra}"
        " {output.index:q} > {log:q} 2>&1"

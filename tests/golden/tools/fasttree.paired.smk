rule check_four_sequences:
    input:
        alignment="results/multiple_sequence_alignment/alignment.afa",
    output:
        ok="results/checks/check_four_sequences.ok",
    log:
        "logs/checks/check_four_sequences.log",
    retries: 0
    group:
        "checks_phylogenetic_tree_inference"
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        constraint="requires_four_sequences",
        guarded_step="phylogenetic_tree_inference",
        datatypes={"alignment": "multiple_sequence_alignment"},
    script:
        "../scripts/check_sequence_set.py"


rule phylogenetic_tree_inference:
    input:
        alignment="results/multiple_sequence_alignment/alignment.afa",
        check_four_sequences="results/checks/check_four_sequences.ok",
    output:
        tree="results/phylogenetic_tree_inference/tree.nwk",
    log:
        "logs/phylogenetic_tree_inference.log",
    benchmark:
        "benchmarks/phylogenetic_tree_inference.tsv"
    conda:
        "../envs/fasttree.yaml"
    container:
        "docker://quay.io/biocontainers/fasttree:2.1.10--h516909a_4"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        alphabet=config["params"]["fasttree"]["alphabet"],
        model=config["params"]["fasttree"]["model"],
        extra=config["params"]["fasttree"]["extra"],
    shell:
        "fasttree {params.alphabet} {params.model} {params.extra} -log {log:q} {input.alignment:q} > {output.tree:q}"

rule asv_taxonomy_assignment:
    input:
        table="results/chimera_removal/asv_table_nochim.tsv",
        reference=config["references"]["taxonomy_training_set"],
    output:
        taxonomy="results/asv_taxonomy_assignment/asv_taxonomy.tsv",
    log:
        "logs/asv_taxonomy_assignment.log",
    benchmark:
        "benchmarks/asv_taxonomy_assignment.tsv"
    conda:
        "../envs/dada2_assigntaxonomy.yaml"
    container:
        "docker://quay.io/biocontainers/bioconductor-dada2:1.30.0--r43hf17093f_0"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 16000 * attempt,
        runtime=lambda wildcards, attempt: 240 * attempt,
    params:
        min_boot=config["params"]["dada2_assigntaxonomy"]["min_boot"],
        try_rc=config["params"]["dada2_assigntaxonomy"]["try_rc"],
        seed=config["params"]["dada2_assigntaxonomy"]["seed"],
        tax_levels=config["params"]["dada2_assigntaxonomy"]["tax_levels"],
    script:
        "../scripts/dada2_assigntaxonomy.R"

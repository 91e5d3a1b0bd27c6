rule check_paired_end_reads:
    input:
        reads_1=all_sample_files("fastq_1"),
        reads_2=all_sample_files("fastq_2"),
    output:
        ok="results/checks/check_paired_end_reads.ok",
    log:
        "logs/checks/check_paired_end_reads.log",
    retries: 0
    group:
        "checks_single_cell_quantification"
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 12 * attempt,
    params:
        constraint="paired_end_reads",
        guarded_step="single_cell_quantification",
        datatypes={"reads_1": "raw_reads", "reads_2": "raw_reads"},
    script:
        "../scripts/check_paired_mates.py"


rule check_reference_genome:
    input:
        genome=config["inputs"]["reference_genome"],
    output:
        ok="results/checks/check_reference_genome.ok",
    log:
        "logs/checks/check_reference_genome.log",
    retries: 0
    group:
        "checks_single_cell_quantification"
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
        guarded_step="single_cell_quantification",
        datatypes={"genome": "reference_genome"},
    script:
        "../scripts/check_reference_genome.py"


rule check_gene_annotation:
    input:
        genome=config["inputs"]["reference_genome"],
        annotation=config["inputs"]["gene_annotation"],
    output:
        ok="results/checks/check_gene_annotation.ok",
    log:
        "logs/checks/check_gene_annotation.log",
    retries: 0
    group:
        "checks_single_cell_quantification"
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 12 * attempt,
    params:
        constraint="requires_gene_annotation",
        guarded_step="single_cell_quantification",
        datatypes={"annotation": "gene_annotation", "genome": "reference_genome"},
    script:
        "../scripts/check_gene_annotation.py"


rule single_cell_quantification:
    input:
        reads_1=all_sample_files("fastq_1"),
        reads_2=all_sample_files("fastq_2"),
        genome=config["inputs"]["reference_genome"],
        annotation=config["inputs"]["gene_annotation"],
        check_paired_end_reads="results/checks/check_paired_end_reads.ok",
        check_reference_genome="results/checks/check_reference_genome.ok",
        check_gene_annotation="results/checks/check_gene_annotation.ok",
    output:
        adata=intermediate("results/single_cell_quantification/counts_unfiltered.h5ad"),
    log:
        "logs/single_cell_quantification.log",
    benchmark:
        "benchmarks/single_cell_quantification.tsv"
    conda:
        "../envs/kallistobustools_count.yaml"
    container:
        "docker://quay.io/biocontainers/kb-python:0.28.2--pyhdfd78af_2"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 16000 * attempt,
        runtime=lambda wildcards, attempt: 240 * attempt,
    params:
        technology=config["params"]["kallistobustools_count"]["technology"],
        workflow=config["params"]["kallistobustools_count"]["workflow"],
        extra=config["params"]["kallistobustools_count"]["extra"],
        samples=SAMPLES,
    shell:
        # kb ref: kallisto index + transcript-to-gene map; kb count: every R1 (barcode + UMI) / R2
        # (cDNA) pair of the library, in sample order, into one unfiltered cells x genes .h5ad
        'kb_dir=$(dirname {output.adata:q})/kb_count.work; rm -rf "$kb_dir"; mkdir -p "$kb_dir";'
        ' kb ref -i "$kb_dir/index.idx" -g "$kb_dir/t2g.txt" -f1 "$kb_dir/cdna.fa"'
        " {input.genome:q} {input.annotation:q} > {log:q} 2>&1"
        " && r1=({input.reads_1:q}) && r2=({input.reads_2:q}) && pairs=()"
        ' && for i in "${{!r1[@]}}"; do pairs+=("${{r1[$i]}}" "${{r2[$i]}}"); done'
        ' && kb count -t {threads} -m {resources.mem_mb}M -i "$kb_dir/index.idx" -g "$kb_dir/t2g.txt"'
        " -x {params.technology:q} --workflow {params.workflow:q} --h5ad {params.extra}"
        ' -o "$kb_dir/count" "${{pairs[@]}}" >> {log:q} 2>&1'
        ' && mv "$kb_dir/count/counts_unfiltered/adata.h5ad" {output.adata:q} && rm -rf "$kb_dir"'

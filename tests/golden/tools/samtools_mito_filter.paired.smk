rule mitochondrial_read_removal:
    input:
        bam="results/duplicate_marking/{sample}/{sample}.markdup.bam",
    output:
        bam="results/mitochondrial_read_removal/{sample}/{sample}.nomito.bam",
        bai="results/mitochondrial_read_removal/{sample}/{sample}.nomito.bam.bai",
    log:
        "logs/mitochondrial_read_removal/{sample}.log",
    benchmark:
        "benchmarks/mitochondrial_read_removal/{sample}.tsv"
    conda:
        "../envs/samtools_mito_filter.yaml"
    container:
        "docker://quay.io/biocontainers/samtools:1.16.1--h6899075_1"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        mito_contigs=config["params"]["samtools_mito_filter"]["mito_contigs"],
        extra=config["params"]["samtools_mito_filter"]["extra"],
        program=workflow.source_path("../scripts/mito_filter.sh"),
    shell:
        "exec >{log:q} 2>&1; "
        "sh {params.program:q} --contigs {params.mito_contigs:q} --threads {threads}"
        " {input.bam:q} {output.bam:q} {output.bai:q} -- {params.extra}"

rule check_gene_annotation:
    input:
        annotation=config["inputs"]["gene_annotation"],
    output:
        ok="results/checks/check_gene_annotation.ok",
    log:
        "logs/checks/check_gene_annotation.log",
    retries: 0
    group:
        "checks_rnaseq_alignment_qc"
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
        guarded_step="rnaseq_alignment_qc",
        datatypes={"annotation": "gene_annotation"},
    script:
        "../scripts/check_gene_annotation.py"


rule rnaseq_alignment_qc:
    input:
        bam="results/read_alignment/{sample}/{sample}.bam",
        annotation=config["inputs"]["gene_annotation"],
        check_gene_annotation="results/checks/check_gene_annotation.ok",
    output:
        report="results/rnaseq_alignment_qc/{sample}/{sample}.read_distribution.txt",
    log:
        "logs/rnaseq_alignment_qc/{sample}.log",
    benchmark:
        "benchmarks/rnaseq_alignment_qc/{sample}.tsv"
    conda:
        "../envs/rseqc_readdistribution.yaml"
    container:
        "docker://community.wave.seqera.io/library/rseqc_r-base:2e29d2dfda9cef15"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        extra=config["params"]["rseqc_readdistribution"]["extra"],
        gtf_to_bed12=workflow.source_path("../scripts/gtf_to_bed12.sh"),
    shell:
        """
        exec 2>{log:q}
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        sh {params.gtf_to_bed12:q} {input.annotation:q} >"$tmp/genes.bed"
        read_distribution.py -i {input.bam:q} -r "$tmp/genes.bed" {params.extra} >{output.report:q}
        """

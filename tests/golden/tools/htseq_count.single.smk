rule check_gene_annotation_read_counting:
    input:
        annotation=config["inputs"]["gene_annotation"],
    output:
        ok="results/checks/check_gene_annotation_read_counting.ok",
    log:
        "logs/checks/check_gene_annotation_read_counting.log",
    retries: 0
    group:
        "checks_read_counting"
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
        guarded_step="read_counting",
        datatypes={"annotation": "gene_annotation"},
        condition_column=config["condition_column"],
    script:
        "../scripts/check_gene_annotation.py"


rule read_counting:
    input:
        bams=expand("results/read_alignment/{sample}/{sample}.bam", sample=SAMPLES),
        annotation=config["inputs"]["gene_annotation"],
        check_gene_annotation_read_counting="results/checks/check_gene_annotation_read_counting.ok",
    output:
        counts="results/read_counting/counts.tsv",
        raw="results/read_counting/htseq_counts.tsv",
    log:
        "logs/read_counting.log",
    benchmark:
        "benchmarks/read_counting.tsv"
    conda:
        "../envs/htseq_count.yaml"
    container:
        "docker://quay.io/biocontainers/htseq:2.1.2--py311h483b626_2"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 120 * attempt,
    params:
        stranded=config["params"]["htseq_count"]["stranded"],
        feature_type=config["params"]["htseq_count"]["feature_type"],
        attribute=config["params"]["htseq_count"]["attribute"],
        mode=config["params"]["htseq_count"]["mode"],
        extra=config["params"]["htseq_count"]["extra"],
        samples=SAMPLES,
    shell:
        "htseq-count --nprocesses {threads} -f bam -r pos -s {params.stranded:q}"
        " -t {params.feature_type:q} -i {params.attribute:q} -m {params.mode:q}"
        " {params.extra} -c {output.raw:q} {input.bams:q} {input.annotation:q} > {log:q} 2>&1"
        " && {{ printf 'gene_id'; printf '\\t%s' {params.samples:q}; printf '\\n';"
        " grep -v '^__' {output.raw:q}; }} > {output.counts:q}"

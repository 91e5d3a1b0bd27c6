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
        raw="results/read_counting/featurecounts.txt",
        summary="results/read_counting/featurecounts.txt.summary",
    log:
        "logs/read_counting.log",
    benchmark:
        "benchmarks/read_counting.tsv"
    conda:
        "../envs/featurecounts.yaml"
    container:
        "docker://quay.io/biocontainers/subread:2.0.6--he4a0461_0"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        strandedness=config["params"]["featurecounts"]["strandedness"],
        feature_type=config["params"]["featurecounts"]["feature_type"],
        attribute=config["params"]["featurecounts"]["attribute"],
        extra=config["params"]["featurecounts"]["extra"],
        samples=SAMPLES,
    shell:
        "featureCounts -T {threads} -a {input.annotation:q} -o {output.raw:q}"
        " -t {params.feature_type:q} -g {params.attribute:q} -s {params.strandedness}"
        " -p --countReadPairs"
        " {params.extra} {input.bams:q} > {log:q} 2>&1"
        " && {{ printf 'gene_id'; printf '\\t%s' {params.samples:q}; printf '\\n';"
        " tail -n +3 {output.raw:q} | cut -f 1,7-; }} > {output.counts:q}"

rule check_gene_annotation:
    input:
        annotation=config["inputs"]["gene_annotation"],
    output:
        ok="results/checks/check_gene_annotation.ok",
    log:
        "logs/checks/check_gene_annotation.log",
    retries: 0
    group:
        "checks_transcript_assembly"
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
        guarded_step="transcript_assembly",
        datatypes={"annotation": "gene_annotation"},
    script:
        "../scripts/check_gene_annotation.py"


rule transcript_assembly:
    input:
        bam="results/read_alignment/{sample}/{sample}.bam",
        annotation=config["inputs"]["gene_annotation"],
        check_gene_annotation="results/checks/check_gene_annotation.ok",
    output:
        transcripts="results/transcript_assembly/{sample}/transcripts.gtf",
        gene_abundance="results/transcript_assembly/{sample}/gene_abundance.tsv",
    log:
        "logs/transcript_assembly/{sample}.log",
    benchmark:
        "benchmarks/transcript_assembly/{sample}.tsv"
    conda:
        "../envs/stringtie.yaml"
    container:
        "docker://quay.io/biocontainers/stringtie:2.2.1--hecb563c_2"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 120 * attempt,
    params:
        min_isoform_fraction=config["params"]["stringtie"]["min_isoform_fraction"],
        strandedness=config["params"]["stringtie"]["strandedness"],
        extra=config["params"]["stringtie"]["extra"],
    shell:
        # strandedness: unstranded, rf (--rf) or fr (--fr); the sample name prefixes the new ids
        "case {params.strandedness:q} in rf) strand=--rf ;; fr) strand=--fr ;; *) strand= ;; esac;"
        " stringtie {input.bam:q} -p {threads} -l {wildcards.sample:q} -f {params.min_isoform_fraction} $strand"
        " -G {input.annotation:q}"
        " -o {output.transcripts:q} -A {output.gene_abundance:q} {params.extra} > {log:q} 2>&1"

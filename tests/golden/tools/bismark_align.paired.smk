rule check_paired_end_reads:
    input:
        reads_1=sample_file("fastq_1"),
        reads_2=sample_file("fastq_2"),
    output:
        ok="results/checks/check_paired_end_reads/{sample}.ok",
    log:
        "logs/checks/check_paired_end_reads/{sample}.log",
    retries: 0
    group:
        "checks_bisulfite_alignment"
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
        guarded_step="bisulfite_alignment",
        datatypes={"reads_1": "raw_reads", "reads_2": "raw_reads"},
    script:
        "../scripts/check_paired_mates.py"


rule bisulfite_alignment:
    input:
        reads_1=sample_file("fastq_1"),
        reads_2=sample_file("fastq_2"),
        index="results/bisulfite_genome_indexing/bismark_index",
        check_paired_end_reads="results/checks/check_paired_end_reads/{sample}.ok",
    output:
        bam="results/bisulfite_alignment/{sample}/{sample}.bismark.bam",
        report="results/bisulfite_alignment/{sample}/{sample}.bismark_report.txt",
    log:
        "logs/bisulfite_alignment/{sample}.log",
    benchmark:
        "benchmarks/bisulfite_alignment/{sample}.tsv"
    conda:
        "../envs/bismark_align.yaml"
    container:
        "docker://quay.io/biocontainers/bismark:0.24.2--hdfd78af_0"
    threads: 8
    resources:
        mem_mb=lambda wildcards, attempt: 32000 * attempt,
        runtime=lambda wildcards, attempt: 1500 * attempt,
    params:
        extra=config["params"]["bismark_align"]["extra"],
    shell:
        # Bismark names its outputs after --basename (the sample) in --output_dir: a scratch folder,
        # then the BAM and report move to their places. Bowtie2 runs two instances (directional).
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT;"
        " bismark --genome {input.index:q} --bam -p $(( ({threads} + 1) / 2 ))"
        ' --temp_dir "$tmp" -o "$tmp/out" --basename {wildcards.sample:q} {params.extra}'
        " -1 {input.reads_1:q} -2 {input.reads_2:q} > {log:q} 2>&1"
        ' && mv "$tmp/out/"{wildcards.sample:q}_pe.bam {output.bam:q}'
        ' && mv "$tmp/out/"{wildcards.sample:q}_PE_report.txt {output.report:q}'

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
        "checks_genome_assembly"
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
        guarded_step="genome_assembly",
        datatypes={"reads_1": "raw_reads", "reads_2": "raw_reads"},
    script:
        "../scripts/check_paired_mates.py"


rule genome_assembly:
    input:
        reads_1=sample_file("fastq_1"),
        reads_2=sample_file("fastq_2"),
        check_paired_end_reads="results/checks/check_paired_end_reads/{sample}.ok",
    output:
        contigs="results/genome_assembly/{sample}/contigs.fa",
    log:
        "logs/genome_assembly/{sample}.log",
    benchmark:
        "benchmarks/genome_assembly/{sample}.tsv"
    conda:
        "../envs/megahit.yaml"
    container:
        "docker://quay.io/biocontainers/megahit:1.2.9--h2e03b76_1"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 16000 * attempt,
        runtime=lambda wildcards, attempt: 720 * attempt,
    params:
        min_contig_len=config["params"]["megahit"]["min_contig_len"],
        presets=config["params"]["megahit"]["presets"],
        extra=config["params"]["megahit"]["extra"],
    shell:
        # MEGAHIT refuses an existing output folder: assemble in a scratch one, keep final.contigs.fa
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT;"
        " presets={params.presets:q};"
        " megahit -t {threads} -m $(({resources.mem_mb} * 1048576))"
        " --min-contig-len {params.min_contig_len} ${{presets:+--presets $presets}}"
        " -1 {input.reads_1:q} -2 {input.reads_2:q}"
        ' {params.extra} -o "$tmp/megahit" > {log:q} 2>&1'
        ' && cp "$tmp/megahit/final.contigs.fa" {output.contigs:q}'

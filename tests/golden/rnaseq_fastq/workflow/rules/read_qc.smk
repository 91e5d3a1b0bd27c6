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
        "checks_read_qc"
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
        guarded_step="read_qc",
        datatypes={"reads_1": "raw_reads", "reads_2": "raw_reads"},
        condition_column=config["condition_column"],
    script:
        "../scripts/check_paired_mates.py"


rule read_qc:
    input:
        reads_1=sample_file("fastq_1"),
        reads_2=sample_file("fastq_2"),
        check_paired_end_reads="results/checks/check_paired_end_reads/{sample}.ok",
    output:
        report=directory("results/read_qc/{sample}/fastqc"),
    log:
        "logs/read_qc/{sample}.log",
    benchmark:
        "benchmarks/read_qc/{sample}.tsv"
    conda:
        "../envs/fastqc.yaml"
    container:
        "docker://quay.io/biocontainers/fastqc:0.12.1--hdfd78af_0"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 65 * attempt,
    params:
        extra=config["params"]["fastqc"]["extra"],
    shell:
        # Link the mates under the sample name: FastQC and MultiQC label reports by file name.
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT; mkdir -p {output.report:q}"
        # FastQC decompresses by the file's name: each link keeps its input's .gz (or its absence).
        " && case {input.reads_1:q} in *.gz) e1=fastq.gz ;; *) e1=fastq ;; esac"
        " && case {input.reads_2:q} in *.gz) e2=fastq.gz ;; *) e2=fastq ;; esac"
        ' && ln -s "$(readlink -f {input.reads_1:q})" "$tmp/"{wildcards.sample:q}_1."$e1"'
        ' && ln -s "$(readlink -f {input.reads_2:q})" "$tmp/"{wildcards.sample:q}_2."$e2"'
        ' && fastqc --threads {threads} --dir "$tmp" --outdir {output.report:q} {params.extra}'
        ' "$tmp/"{wildcards.sample:q}_1."$e1" "$tmp/"{wildcards.sample:q}_2."$e2"'
        " > {log:q} 2>&1"

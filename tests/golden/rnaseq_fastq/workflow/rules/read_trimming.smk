rule read_trimming:
    input:
        reads_1=sample_file("fastq_1"),
        reads_2=sample_file("fastq_2"),
        check_paired_end_reads="results/checks/check_paired_end_reads/{sample}.ok",
    output:
        trimmed_1=intermediate("results/read_trimming/{sample}/trimmed_1.fastq.gz"),
        trimmed_2=intermediate("results/read_trimming/{sample}/trimmed_2.fastq.gz"),
        report="results/read_trimming/{sample}/fastp.json",
        html="results/read_trimming/{sample}/fastp.html",
    log:
        "logs/read_trimming/{sample}.log",
    benchmark:
        "benchmarks/read_trimming/{sample}.tsv"
    conda:
        "../envs/fastp.yaml"
    container:
        "docker://quay.io/biocontainers/fastp:0.23.4--h5f740d0_0"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 65 * attempt,
    params:
        extra=config["params"]["fastp"]["extra"],
    shell:
        # Link the mates under the sample name: MultiQC names the sample after `-i`.
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT"
        ' && ln -s "$(readlink -f {input.reads_1:q})" "$tmp/"{wildcards.sample:q}_1.fastq.gz'
        ' && ln -s "$(readlink -f {input.reads_2:q})" "$tmp/"{wildcards.sample:q}_2.fastq.gz'
        " && fastp --thread {threads} --detect_adapter_for_pe"
        ' -i "$tmp/"{wildcards.sample:q}_1.fastq.gz -I "$tmp/"{wildcards.sample:q}_2.fastq.gz'
        " -o {output.trimmed_1:q} -O {output.trimmed_2:q}"
        " --json {output.report:q} --html {output.html:q} {params.extra} > {log:q} 2>&1"

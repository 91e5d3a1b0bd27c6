rule mirna_alignment:
    input:
        reads_1="results/read_trimming/{sample}/trimmed_1.fastq.gz",
        reads_2="results/read_trimming/{sample}/trimmed_2.fastq.gz",
        index="results/mirna_indexing/mirna_bowtie_index",
    output:
        bam="results/mirna_alignment/{sample}/{sample}.bam",
        bai="results/mirna_alignment/{sample}/{sample}.bam.bai",
    log:
        "logs/mirna_alignment/{sample}.log",
    benchmark:
        "benchmarks/mirna_alignment/{sample}.tsv"
    conda:
        "../envs/bowtie_mirna.yaml"
    container:
        "docker://quay.io/biocontainers/mulled-v2-ffbf83a6b0ab6ec567a336cf349b80637135bca3:c84c7c55c45af231883d9ff4fe706ac44c479c36-0"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 80 * attempt,
    params:
        extra=config["params"]["bowtie_mirna"]["extra"],
    shell:
        # paired-end small RNA reads: mate 1 holds the whole insert (nf-core/smrnaseq maps R1 only)
        "(bowtie --threads {threads} --sam {params.extra} -x {input.index:q}/mature -q {input.reads_1:q}"
        " | samtools addreplacerg -r ID:{wildcards.sample:q} -r SM:{wildcards.sample:q} -u -o - -"
        " | samtools sort -@ {threads} -o {output.bam:q} -) > {log:q} 2>&1"
        " && samtools index {output.bam:q} {output.bai:q} 2>> {log:q}"

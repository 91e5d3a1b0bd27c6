rule read_alignment:
    input:
        reads_1="results/read_trimming/{sample}/trimmed_1.fastq.gz",
        reads_2="results/read_trimming/{sample}/trimmed_2.fastq.gz",
        index="results/genome_indexing/star_index",
    output:
        bam="results/read_alignment/{sample}/{sample}.bam",
        bai="results/read_alignment/{sample}/{sample}.bam.bai",
        log="results/read_alignment/{sample}/{sample}.Log.final.out",
    log:
        "logs/read_alignment/{sample}.log",
    benchmark:
        "benchmarks/read_alignment/{sample}.tsv"
    conda:
        "../envs/star.yaml"
    container:
        "docker://quay.io/biocontainers/mulled-v2-1fa26d1ce03c295fe2fdcf85831a92fbcbd7e8c2:1df389393721fc66f3fd8778ad938ac711951107-0"
    threads: 8
    resources:
        mem_mb=lambda wildcards, attempt: 5000 * attempt,
        runtime=lambda wildcards, attempt: 250 * attempt,
    params:
        extra=config["params"]["star"]["extra"],
    shell:
        # STAR passes --readFilesIn through a shell (`ls`, the readFilesCommand): give it
        # links with fixed names, never the user's file names.
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT;"
        ' ln -s "$(readlink -f {input.reads_1:q})" "$tmp/reads_1.fastq.gz"'
        ' && ln -s "$(readlink -f {input.reads_2:q})" "$tmp/reads_2.fastq.gz"'
        " && STAR --runThreadN {threads} --genomeDir {input.index:q}"
        ' --readFilesIn "$tmp/reads_1.fastq.gz" "$tmp/reads_2.fastq.gz" --readFilesCommand gunzip -c'
        " --outSAMtype BAM SortedByCoordinate"
        " --outSAMattrRGline ID:{wildcards.sample:q} SM:{wildcards.sample:q}"
        ' --outFileNamePrefix "$tmp/" --outTmpDir "$tmp/star_tmp" {params.extra}'
        " > {log:q} 2>&1"
        ' && cat "$tmp/Log.final.out" >> {log:q}'
        ' && cp "$tmp/Log.final.out" {output.log:q}'
        ' && mv "$tmp/Aligned.sortedByCoord.out.bam" {output.bam:q}'
        " && samtools index {output.bam:q} {output.bai:q} 2>> {log:q}"

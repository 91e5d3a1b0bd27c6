rule contig_read_mapping:
    input:
        reads=sample_file("fastq"),
        contigs="results/genome_assembly/{sample}/contigs.fa",
    output:
        bam="results/contig_read_mapping/{sample}/{sample}.contigs.bam",
        bai="results/contig_read_mapping/{sample}/{sample}.contigs.bam.bai",
    log:
        "logs/contig_read_mapping/{sample}.log",
    benchmark:
        "benchmarks/contig_read_mapping/{sample}.tsv"
    conda:
        "../envs/bowtie2_assembly_align.yaml"
    container:
        "docker://quay.io/biocontainers/mulled-v2-ac74a7f02cebcfcc07d8e8d1d750af9c83b4d45a:a0ffedb52808e102887f6ce600d092675bf3528a-0"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 240 * attempt,
    params:
        extra=config["params"]["bowtie2_assembly_align"]["extra"],
    shell:
        # The index is per sample and scratch; the bowtie2 wrapper runs `gzip -dc "<reads>"`
        # through a shell, so it reads links with fixed names, never the user's paths.
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT;"
        ' case {input.contigs:q} in *.gz) gzip -cd {input.contigs:q} > "$tmp/contigs.fa" ;;'
        ' *) ln -s "$(readlink -f {input.contigs:q})" "$tmp/contigs.fa" ;; esac'
        ' && bowtie2-build --threads {threads} "$tmp/contigs.fa" "$tmp/contigs" > {log:q} 2>&1'
        ' && ln -s "$(readlink -f {input.reads:q})" "$tmp/reads.fastq.gz"'
        ' && (bowtie2 --threads {threads} -x "$tmp/contigs"'
        ' -U "$tmp/reads.fastq.gz" {params.extra}'
        " | samtools sort -@ {threads} -o {output.bam:q} -) >> {log:q} 2>&1"
        " && samtools index {output.bam:q} {output.bai:q} 2>> {log:q}"

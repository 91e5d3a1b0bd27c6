rule bisulfite_alignment:
    input:
        reads=sample_file("fastq"),
        index="results/bisulfite_genome_indexing/bismark_index",
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
        " {input.reads:q} > {log:q} 2>&1"
        ' && mv "$tmp/out/"{wildcards.sample:q}.bam {output.bam:q}'
        ' && mv "$tmp/out/"{wildcards.sample:q}_SE_report.txt {output.report:q}'

rule tn5_shift:
    input:
        bam="results/duplicate_marking/{sample}/{sample}.markdup.bam",
    output:
        bam="results/tn5_shift/{sample}/{sample}.shifted.bam",
        bai="results/tn5_shift/{sample}/{sample}.shifted.bam.bai",
    log:
        "logs/tn5_shift/{sample}.log",
    benchmark:
        "benchmarks/tn5_shift/{sample}.tsv"
    conda:
        "../envs/deeptools_alignmentsieve.yaml"
    container:
        "docker://quay.io/biocontainers/deeptools:3.5.6--pyhdfd78af_0"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        extra=config["params"]["deeptools_alignmentsieve"]["extra"],
    shell:
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT;"
        ' alignmentSieve --bam {input.bam:q} --outFile "$tmp/shifted.bam" --ATACshift'
        " --numberOfProcessors {threads} {params.extra} > {log:q} 2>&1"
        " && if command -v samtools > /dev/null; then"
        ' samtools sort -@ {threads} -T "$tmp/sort" -o {output.bam:q} "$tmp/shifted.bam" >> {log:q} 2>&1'
        " && samtools index {output.bam:q} {output.bai:q} >> {log:q} 2>&1;"
        ' else python3 -c \'import sys, pysam; pysam.sort("-o", sys.argv[1], sys.argv[2]);'
        ' pysam.index(sys.argv[1], sys.argv[3])\' {output.bam:q} "$tmp/shifted.bam" {output.bai:q} >> {log:q} 2>&1; fi'

rule chimeric_read_alignment:
    input:
        reads=sample_file("fastq"),
        index="results/genome_indexing/star_index",
    output:
        chimeric=directory("results/chimeric_read_alignment/{sample}/star_chimeric"),
    log:
        "logs/chimeric_read_alignment/{sample}.log",
    benchmark:
        "benchmarks/chimeric_read_alignment/{sample}.tsv"
    conda:
        "../envs/star_align_chimeric.yaml"
    container:
        "docker://quay.io/biocontainers/mulled-v2-1fa26d1ce03c295fe2fdcf85831a92fbcbd7e8c2:1df389393721fc66f3fd8778ad938ac711951107-0"
    threads: 8
    resources:
        mem_mb=lambda wildcards, attempt: 33000 * attempt,
        runtime=lambda wildcards, attempt: 250 * attempt,
    params:
        extra=config["params"]["star_align_chimeric"]["extra"],
    shell:
        """
        exec 2>{log:q}
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        ln -s "$(readlink -f {input.reads:q})" "$tmp/reads.fastq.gz"
        set -- "$tmp/reads.fastq.gz"
        mkdir -p {output.chimeric:q}
        STAR --runThreadN {threads} --genomeDir {input.index:q} --readFilesIn "$@" --readFilesCommand gunzip -c \\
        --outSAMtype BAM Unsorted --outSAMunmapped Within --outSAMstrandField intronMotif \\
        --outSAMattrRGline ID:{wildcards.sample:q} SM:{wildcards.sample:q} \\
        --outFilterMultimapNmax 50 --peOverlapNbasesMin 10 --alignSplicedMateMapLminOverLmate 0.5 \\
        --alignSJstitchMismatchNmax 5 -1 5 5 --chimSegmentMin 10 --chimOutType Junctions WithinBAM SoftClip \\
        --chimJunctionOverhangMin 10 --chimScoreDropMax 30 --chimScoreJunctionNonGTAG 0 \\
        --chimScoreSeparation 1 --chimSegmentReadGapMax 3 --chimMultimapNmax 50 \\
        --outFileNamePrefix {output.chimeric:q}/ --outTmpDir "$tmp/star_tmp" {params.extra}
        """

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
        "checks_chimeric_read_alignment"
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
        guarded_step="chimeric_read_alignment",
        datatypes={"reads_1": "raw_reads", "reads_2": "raw_reads"},
    script:
        "../scripts/check_paired_mates.py"


rule chimeric_read_alignment:
    input:
        reads_1=sample_file("fastq_1"),
        reads_2=sample_file("fastq_2"),
        index="results/genome_indexing/star_index",
        check_paired_end_reads="results/checks/check_paired_end_reads/{sample}.ok",
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
        ln -s "$(readlink -f {input.reads_1:q})" "$tmp/reads_1.fastq.gz"
        ln -s "$(readlink -f {input.reads_2:q})" "$tmp/reads_2.fastq.gz"
        set -- "$tmp/reads_1.fastq.gz" "$tmp/reads_2.fastq.gz"
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

rule mirna_quantification:
    input:
        bams=expand("results/mirna_alignment/{sample}/{sample}.bam", sample=SAMPLES),
    output:
        counts="results/mirna_quantification/mirna_counts.tsv",
    log:
        "logs/mirna_quantification.log",
    benchmark:
        "benchmarks/mirna_quantification.tsv"
    conda:
        "../envs/mirna_counts.yaml"
    container:
        "docker://quay.io/biocontainers/samtools:1.16.1--h6899075_1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 15 * attempt,
    params:
        samples=SAMPLES,
        program=workflow.source_path("../scripts/mirna_tables.awk"),
    shell:
        """
        exec 2>{log:q}
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        tables=()
        i=0
        for bam in {input.bams:q}; do
            i=$((i + 1))
            tables+=("$tmp/$i.idxstats")
            samtools idxstats "$bam" >"$tmp/$i.idxstats"
        done
        printf 'mirna' >{output.counts:q}
        printf '\\t%s' {params.samples:q} >>{output.counts:q}
        printf '\\n' >>{output.counts:q}
        awk -f {params.program:q} mode=counts "${{tables[@]}}" >>{output.counts:q}
        """

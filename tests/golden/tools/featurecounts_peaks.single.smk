rule peak_counting:
    input:
        peaks="results/consensus_peak_calling/consensus_peaks.bed",
        bams=expand(
            "results/duplicate_marking/{sample}/{sample}.markdup.bam", sample=SAMPLES
        ),
    output:
        counts="results/peak_counting/peak_counts.tsv",
        saf="results/peak_counting/peaks.saf",
        raw="results/peak_counting/peak_featurecounts.txt",
        summary="results/peak_counting/peak_featurecounts.txt.summary",
    log:
        "logs/peak_counting.log",
    benchmark:
        "benchmarks/peak_counting.tsv"
    conda:
        "../envs/featurecounts_peaks.yaml"
    container:
        "docker://quay.io/biocontainers/subread:2.0.6--he4a0461_0"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        extra=config["params"]["featurecounts_peaks"]["extra"],
        samples=SAMPLES,
    shell:
        'awk \'BEGIN {{ OFS = "\\t"; print "GeneID", "Chr", "Start", "End", "Strand" }}'
        ' !/^(#|track|browser)/ {{ id = ($4 != "" && $4 != ".") ? $4 : $1 ":" ($2 + 1) "-" $3;'
        ' print id, $1, $2 + 1, $3, "+" }}\' {input.peaks:q} > {output.saf:q}'
        " && featureCounts -T {threads} -F SAF -a {output.saf:q} -o {output.raw:q}"
        " {params.extra} {input.bams:q} > {log:q} 2>&1"
        " && {{ printf 'peak_id'; printf '\\t%s' {params.samples:q}; printf '\\n';"
        " tail -n +3 {output.raw:q} | cut -f 1,7-; }} > {output.counts:q}"

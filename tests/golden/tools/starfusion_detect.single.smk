rule fusion_detection:
    input:
        chimeric="results/chimeric_read_alignment/{sample}/star_chimeric",
        ctat_lib=config["references"]["ctat_genome_lib"],
    output:
        fusions="results/fusion_detection/{sample}/{sample}.starfusion.abridged.tsv",
        predictions="results/fusion_detection/{sample}/{sample}.starfusion.fusion_predictions.tsv",
    log:
        "logs/fusion_detection/{sample}.log",
    benchmark:
        "benchmarks/fusion_detection/{sample}.tsv"
    conda:
        "../envs/starfusion_detect.yaml"
    container:
        "docker://community.wave.seqera.io/library/dfam_hmmer_minimap2_star-fusion:e285bb3eb373b9a7"
    threads: 8
    resources:
        mem_mb=lambda wildcards, attempt: 32000 * attempt,
        runtime=lambda wildcards, attempt: 240 * attempt,
    params:
        extra=config["params"]["starfusion_detect"]["extra"],
    shell:
        """
        exec 2>{log:q}
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        STAR-Fusion --genome_lib_dir {input.ctat_lib:q} -J {input.chimeric:q}/Chimeric.out.junction \\
        --CPU {threads} --output_dir "$tmp" {params.extra}
        mv "$tmp/star-fusion.fusion_predictions.abridged.tsv" {output.fusions:q}
        mv "$tmp/star-fusion.fusion_predictions.tsv" {output.predictions:q}
        """

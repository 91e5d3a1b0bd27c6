rule strandedness_inference:
    input:
        bam="results/read_alignment/{sample}/{sample}.bam",
        annotation=config["inputs"]["gene_annotation"],
        check_gene_annotation="results/checks/check_gene_annotation.ok",
    output:
        report="results/strandedness_inference/{sample}/{sample}.infer_experiment.txt",
    log:
        "logs/strandedness_inference/{sample}.log",
    benchmark:
        "benchmarks/strandedness_inference/{sample}.tsv"
    conda:
        "../envs/rseqc_inferexperiment.yaml"
    container:
        "docker://community.wave.seqera.io/library/rseqc_r-base:2e29d2dfda9cef15"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        sample_size=config["params"]["rseqc_inferexperiment"]["sample_size"],
        extra=config["params"]["rseqc_inferexperiment"]["extra"],
        gtf_to_bed12=workflow.source_path("../scripts/gtf_to_bed12.sh"),
    shell:
        """
        exec 2>{log:q}
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        sh {params.gtf_to_bed12:q} {input.annotation:q} >"$tmp/genes.bed"
        infer_experiment.py -i {input.bam:q} -r "$tmp/genes.bed" -s {params.sample_size} {params.extra} \\
        >{output.report:q}
        """

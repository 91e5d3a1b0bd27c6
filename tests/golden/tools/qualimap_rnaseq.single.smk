rule check_gene_annotation_rnaseq_alignment_qc:
    input:
        annotation=config["inputs"]["gene_annotation"],
    output:
        ok="results/checks/check_gene_annotation_rnaseq_alignment_qc.ok",
    log:
        "logs/checks/check_gene_annotation_rnaseq_alignment_qc.log",
    retries: 0
    group:
        "checks_rnaseq_alignment_qc"
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 12 * attempt,
    params:
        constraint="requires_gene_annotation",
        guarded_step="rnaseq_alignment_qc",
        datatypes={"annotation": "gene_annotation"},
    script:
        "../scripts/check_gene_annotation.py"


rule rnaseq_alignment_qc:
    input:
        bam="results/read_alignment/{sample}/{sample}.bam",
        annotation=config["inputs"]["gene_annotation"],
        check_gene_annotation_rnaseq_alignment_qc="results/checks/check_gene_annotation_rnaseq_alignment_qc.ok",
    output:
        report="results/rnaseq_alignment_qc/{sample}/{sample}.rnaseq_qc_results.txt",
    log:
        "logs/rnaseq_alignment_qc/{sample}.log",
    benchmark:
        "benchmarks/rnaseq_alignment_qc/{sample}.tsv"
    conda:
        "../envs/qualimap_rnaseq.yaml"
    container:
        "docker://quay.io/biocontainers/qualimap:2.3--hdfd78af_0"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 120 * attempt,
    params:
        strandedness=config["params"]["qualimap_rnaseq"]["strandedness"],
        extra=config["params"]["qualimap_rnaseq"]["extra"],
    shell:
        """
        exec 2>{log:q}
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        case {params.strandedness:q} in
            non-strand-specific | strand-specific-forward | strand-specific-reverse) ;;
            *)
                echo "strandedness must be non-strand-specific, strand-specific-forward or strand-specific-reverse" >&2
                exit 1
                ;;
        esac
        JAVA_OPTS="-Djava.io.tmpdir=$tmp" qualimap --java-mem-size=$(({resources.mem_mb} * 8 / 10))M rnaseq \\
        -bam {input.bam:q} -gtf {input.annotation:q} -p {params.strandedness:q} \\
        -outdir "$tmp/qualimap" {params.extra}
        cp "$tmp/qualimap/rnaseq_qc_results.txt" {output.report:q}
        """

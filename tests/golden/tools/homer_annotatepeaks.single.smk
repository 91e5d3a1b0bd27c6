rule check_gene_annotation:
    input:
        genome=config["inputs"]["reference_genome"],
        annotation=config["inputs"]["gene_annotation"],
    output:
        ok="results/checks/check_gene_annotation.ok",
    log:
        "logs/checks/check_gene_annotation.log",
    retries: 0
    group:
        "checks_peak_annotation"
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
        guarded_step="peak_annotation",
        datatypes={"annotation": "gene_annotation", "genome": "reference_genome"},
    script:
        "../scripts/check_gene_annotation.py"


rule peak_annotation:
    input:
        peaks="results/peak_calling/peaks.narrowPeak",
        genome=config["inputs"]["reference_genome"],
        annotation=config["inputs"]["gene_annotation"],
        check_reference_genome="results/checks/check_reference_genome.ok",
        check_gene_annotation="results/checks/check_gene_annotation.ok",
    output:
        table="results/peak_annotation/annotated_peaks.tsv",
        stats="results/peak_annotation/annotation_stats.txt",
    log:
        "logs/peak_annotation.log",
    benchmark:
        "benchmarks/peak_annotation.tsv"
    conda:
        "../envs/homer_annotatepeaks.yaml"
    container:
        "docker://quay.io/biocontainers/homer:4.11--pl526hc9558a2_3"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 120 * attempt,
    params:
        extra=config["params"]["homer_annotatepeaks"]["extra"],
    shell:
        """
        exec 2>{log:q}
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        case {input.genome:q} in
            *.gz) gzip -cd {input.genome:q} >"$tmp/genome.fa" ;;
            *) ln -s "$(readlink -f {input.genome:q})" "$tmp/genome.fa" ;;
        esac
        case {input.annotation:q} in
            *.gz) gzip -cd {input.annotation:q} >"$tmp/genes.gtf" ;;
            *) ln -s "$(readlink -f {input.annotation:q})" "$tmp/genes.gtf" ;;
        esac
        annotatePeaks.pl {input.peaks:q} "$tmp/genome.fa" -gtf "$tmp/genes.gtf" -cpu {threads} \\
        -annStats {output.stats:q} {params.extra} >{output.table:q}
        """

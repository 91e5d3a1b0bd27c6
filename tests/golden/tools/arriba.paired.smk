rule fusion_detection:
    input:
        chimeric="results/chimeric_read_alignment/{sample}/star_chimeric",
        genome=config["inputs"]["reference_genome"],
        annotation=config["inputs"]["gene_annotation"],
        check_reference_genome="results/checks/check_reference_genome.ok",
        check_gene_annotation="results/checks/check_gene_annotation.ok",
    output:
        fusions="results/fusion_detection/{sample}/{sample}.arriba.fusions.tsv",
        discarded="results/fusion_detection/{sample}/{sample}.arriba.fusions.discarded.tsv",
    log:
        "logs/fusion_detection/{sample}.log",
    benchmark:
        "benchmarks/fusion_detection/{sample}.tsv"
    conda:
        "../envs/arriba.yaml"
    container:
        "docker://community.wave.seqera.io/library/arriba_wget:a3e48cf793a0b654"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 16000 * attempt,
        runtime=lambda wildcards, attempt: 120 * attempt,
    params:
        extra=config["params"]["arriba"]["extra"],
    shell:
        """
        exec 2>{log:q}
        case " "{params.extra:q}" " in
            *" -b "*) filters= ;;
            *) filters="-f blacklist" ;;
        esac
        arriba -x {input.chimeric:q}/Aligned.out.bam -a {input.genome:q} -g {input.annotation:q} \\
        -o {output.fusions:q} -O {output.discarded:q} $filters {params.extra}
        """

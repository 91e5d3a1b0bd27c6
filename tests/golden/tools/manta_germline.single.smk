rule structural_variant_calling:
    input:
        bams=expand(
            "results/duplicate_marking/{sample}/{sample}.markdup.bam", sample=SAMPLES
        ),
        genome=config["inputs"]["reference_genome"],
        check_reference_genome="results/checks/check_reference_genome.ok",
    output:
        vcf="results/structural_variant_calling/manta_diploid_sv.vcf.gz",
        tbi="results/structural_variant_calling/manta_diploid_sv.vcf.gz.tbi",
        small_indels="results/structural_variant_calling/manta_candidate_small_indels.vcf.gz",
    log:
        "logs/structural_variant_calling.log",
    benchmark:
        "benchmarks/structural_variant_calling.tsv"
    conda:
        "../envs/manta_germline.yaml"
    container:
        "docker://quay.io/biocontainers/manta:1.6.0--h9ee0642_1"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 720 * attempt,
    params:
        extra=config["params"]["manta_germline"]["extra"],
        samples=SAMPLES,
        program=workflow.source_path("../scripts/fasta_for_gatk.awk"),
    shell:
        """
        exec 2>{log:q}
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        case {input.genome:q} in
            *.gz) gzip -cd {input.genome:q} >"$tmp/genome.in.fa" ;;
            *) ln -s "$(readlink -f {input.genome:q})" "$tmp/genome.in.fa" ;;
        esac
        awk -f {params.program:q} fai="$tmp/genome.fa.fai" "$tmp/genome.in.fa" >"$tmp/genome.fa"
        set --
        for bam in {input.bams:q}; do
            set -- "$@" --bam "$bam"
        done
        configManta.py "$@" --referenceFasta "$tmp/genome.fa" --runDir "$tmp/run" {params.extra}
        python "$tmp/run/runWorkflow.py" -m local -j {threads} -g $(({resources.mem_mb} / 1024))
        variants="$tmp/run/results/variants"
        cp "$variants/diploidSV.vcf.gz" {output.vcf:q}
        cp "$variants/diploidSV.vcf.gz.tbi" {output.tbi:q}
        cp "$variants/candidateSmallIndels.vcf.gz" {output.small_indels:q}
        """

rule variant_calling:
    input:
        bams=expand(
            "results/duplicate_marking/{sample}/{sample}.markdup.bam", sample=SAMPLES
        ),
        genome=config["inputs"]["reference_genome"],
        check_reference_genome="results/checks/check_reference_genome.ok",
    output:
        vcf="results/variant_calling/strelka_germline.vcf.gz",
        tbi="results/variant_calling/strelka_germline.vcf.gz.tbi",
    log:
        "logs/variant_calling.log",
    benchmark:
        "benchmarks/variant_calling.tsv"
    conda:
        "../envs/strelka2_germline.yaml"
    container:
        "docker://quay.io/biocontainers/strelka:2.9.10--h9ee0642_1"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 720 * attempt,
    params:
        extra=config["params"]["strelka2_germline"]["extra"],
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
        configureStrelkaGermlineWorkflow.py "$@" --referenceFasta "$tmp/genome.fa" --runDir "$tmp/run" {params.extra}
        python "$tmp/run/runWorkflow.py" -m local -j {threads}
        cp "$tmp/run/results/variants/variants.vcf.gz" {output.vcf:q}
        cp "$tmp/run/results/variants/variants.vcf.gz.tbi" {output.tbi:q}
        """

rule gvcf_calling:
    input:
        bam="results/duplicate_marking/{sample}/{sample}.markdup.bam",
        genome=config["inputs"]["reference_genome"],
        check_reference_genome="results/checks/check_reference_genome.ok",
    output:
        gvcf="results/gvcf_calling/{sample}/{sample}.deepvariant.g.vcf.gz",
        tbi="results/gvcf_calling/{sample}/{sample}.deepvariant.g.vcf.gz.tbi",
        vcf="results/gvcf_calling/{sample}/{sample}.deepvariant.vcf.gz",
        vcf_tbi="results/gvcf_calling/{sample}/{sample}.deepvariant.vcf.gz.tbi",
    log:
        "logs/gvcf_calling/{sample}.log",
    benchmark:
        "benchmarks/gvcf_calling/{sample}.tsv"
    conda:
        "../envs/deepvariant.yaml"
    container:
        "docker://docker.io/google/deepvariant:1.5.0"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 16000 * attempt,
        runtime=lambda wildcards, attempt: 1440 * attempt,
    params:
        model_type=config["params"]["deepvariant"]["model_type"],
        extra=config["params"]["deepvariant"]["extra"],
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
        run_deepvariant --model_type={params.model_type:q} --ref="$tmp/genome.fa" --reads={input.bam:q} \\
        --output_vcf={output.vcf:q} --output_gvcf={output.gvcf:q} --num_shards={threads} \\
        --intermediate_results_dir="$tmp/intermediate" {params.extra}
        """

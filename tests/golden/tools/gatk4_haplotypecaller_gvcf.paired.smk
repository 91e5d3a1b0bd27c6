rule gvcf_calling:
    input:
        bam="results/duplicate_marking/{sample}/{sample}.markdup.bam",
        genome=config["inputs"]["reference_genome"],
        check_reference_genome="results/checks/check_reference_genome.ok",
    output:
        gvcf="results/gvcf_calling/{sample}/{sample}.g.vcf.gz",
        tbi="results/gvcf_calling/{sample}/{sample}.g.vcf.gz.tbi",
    log:
        "logs/gvcf_calling/{sample}.log",
    benchmark:
        "benchmarks/gvcf_calling/{sample}.tsv"
    conda:
        "../envs/gatk4_haplotypecaller_gvcf.yaml"
    container:
        "docker://quay.io/biocontainers/gatk4:4.5.0.0--py36hdfd78af_0"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 1440 * attempt,
    params:
        extra=config["params"]["gatk4_haplotypecaller_gvcf"]["extra"],
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
        gatk CreateSequenceDictionary -R "$tmp/genome.fa" -O "$tmp/genome.dict"
        gatk --java-options "-Xmx$(({resources.mem_mb} * 4 / 5))m" HaplotypeCaller -I {input.bam:q} \\
        -R "$tmp/genome.fa" -O {output.gvcf:q} -ERC GVCF --native-pair-hmm-threads {threads} \\
        --tmp-dir "$tmp" {params.extra}
        """

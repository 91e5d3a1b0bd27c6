rule base_recalibration:
    input:
        bam="results/duplicate_marking/{sample}/{sample}.markdup.bam",
        genome=config["inputs"]["reference_genome"],
        known_sites=config["references"]["known_variant_sites"],
        check_reference_genome="results/checks/check_reference_genome.ok",
    output:
        bam="results/base_recalibration/{sample}/{sample}.recal.bam",
        bai="results/base_recalibration/{sample}/{sample}.recal.bam.bai",
        table="results/base_recalibration/{sample}/{sample}.recal.table",
    log:
        "logs/base_recalibration/{sample}.log",
    benchmark:
        "benchmarks/base_recalibration/{sample}.tsv"
    conda:
        "../envs/gatk4_bqsr.yaml"
    container:
        "docker://quay.io/biocontainers/gatk4:4.5.0.0--py36hdfd78af_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 360 * attempt,
    params:
        extra=config["params"]["gatk4_bqsr"]["extra"],
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
        ln -s "$(readlink -f {input.known_sites:q})" "$tmp/known_sites.vcf.gz"
        if [ -e {input.known_sites:q}.tbi ]; then
            ln -s "$(readlink -f {input.known_sites:q}.tbi)" "$tmp/known_sites.vcf.gz.tbi"
        else
            gatk IndexFeatureFile -I "$tmp/known_sites.vcf.gz"
        fi
        java_mem="-Xmx$(({resources.mem_mb} * 4 / 5))m"
        gatk --java-options "$java_mem" BaseRecalibrator -I {input.bam:q} -R "$tmp/genome.fa" \\
        --known-sites "$tmp/known_sites.vcf.gz" -O {output.table:q} --tmp-dir "$tmp" {params.extra}
        gatk --java-options "$java_mem" ApplyBQSR -I {input.bam:q} -R "$tmp/genome.fa" \\
        --bqsr-recal-file {output.table:q} -O {output.bam:q} --tmp-dir "$tmp"
        bam={output.bam:q}
        mv "${{bam%.bam}}.bai" {output.bai:q}
        """

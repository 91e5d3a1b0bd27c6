rule variant_calling:
    input:
        bams=expand(
            "results/base_recalibration/{sample}/{sample}.recal.bam", sample=SAMPLES
        ),
        genome=config["inputs"]["reference_genome"],
        check_reference_genome="results/checks/check_reference_genome.ok",
    output:
        vcf="results/variant_calling/calls.vcf.gz",
        tbi="results/variant_calling/calls.vcf.gz.tbi",
    log:
        "logs/variant_calling.log",
    benchmark:
        "benchmarks/variant_calling.tsv"
    conda:
        "../envs/gatk4_haplotypecaller.yaml"
    container:
        "docker://quay.io/biocontainers/gatk4:4.5.0.0--py36hdfd78af_0"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 1500 * attempt,
    params:
        extra=config["params"]["gatk4_haplotypecaller"]["extra"],
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
        gatk CreateSequenceDictionary -R "$tmp/genome.fa" -O "$tmp/genome.dict"
        inputs=()
        for bam in {input.bams:q}; do
            inputs+=(-I "$bam")
        done
        gatk --java-options "-Xmx$(({resources.mem_mb} * 4 / 5))m" HaplotypeCaller "${{inputs[@]}}" \\
        -R "$tmp/genome.fa" -O {output.vcf:q} --native-pair-hmm-threads {threads} --tmp-dir "$tmp" \\
        {params.extra}
        """

rule somatic_variant_calling:
    input:
        bams=expand(
            "results/duplicate_marking/{sample}/{sample}.markdup.bam", sample=SAMPLES
        ),
        genome=config["inputs"]["reference_genome"],
        check_reference_genome="results/checks/check_reference_genome.ok",
    output:
        vcf="results/somatic_variant_calling/somatic.vcf.gz",
        tbi="results/somatic_variant_calling/somatic.vcf.gz.tbi",
        unfiltered="results/somatic_variant_calling/somatic.unfiltered.vcf.gz",
        filtering_stats="results/somatic_variant_calling/somatic.vcf.gz.filteringStats.tsv",
    log:
        "logs/somatic_variant_calling.log",
    benchmark:
        "benchmarks/somatic_variant_calling.tsv"
    conda:
        "../envs/gatk4_mutect2.yaml"
    container:
        "docker://quay.io/biocontainers/gatk4:4.5.0.0--py36hdfd78af_0"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 1440 * attempt,
    params:
        normal_sample=config["params"]["gatk4_mutect2"]["normal_sample"],
        extra=config["params"]["gatk4_mutect2"]["extra"],
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
        normal={params.normal_sample:q}
        if [ -n "$normal" ]; then
            inputs+=(-normal "$normal")
        else
            echo "normal_sample is empty: Mutect2 runs in tumour-only mode"
        fi
        java_mem="-Xmx$(({resources.mem_mb} * 4 / 5))m"
        gatk --java-options "$java_mem" Mutect2 "${{inputs[@]}}" -R "$tmp/genome.fa" \\
        -O {output.unfiltered:q} --native-pair-hmm-threads {threads} --tmp-dir "$tmp" {params.extra}
        gatk --java-options "$java_mem" FilterMutectCalls -V {output.unfiltered:q} -R "$tmp/genome.fa" \\
        -O {output.vcf:q} --filtering-stats {output.filtering_stats:q} --tmp-dir "$tmp"
        """

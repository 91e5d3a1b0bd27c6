rule taxonomic_classification:
    input:
        reads_1="results/host_read_removal/{sample}/depleted_1.fastq.gz",
        reads_2="results/host_read_removal/{sample}/depleted_2.fastq.gz",
        database="results/taxonomic_database_build/kraken2_db",
    output:
        classification="results/taxonomic_classification/{sample}/{sample}.kreport",
        assignments="results/taxonomic_classification/{sample}/assignments.kraken2",
    log:
        "logs/taxonomic_classification/{sample}.log",
    benchmark:
        "benchmarks/taxonomic_classification/{sample}.tsv"
    conda:
        "../envs/kraken2.yaml"
    container:
        "docker://quay.io/biocontainers/kraken2:2.1.3--pl5321hdcf5f25_0"
    threads: 8
    resources:
        mem_mb=lambda wildcards, attempt: 16000 * attempt,
        runtime=lambda wildcards, attempt: 130 * attempt,
    params:
        confidence=config["params"]["kraken2"]["confidence"],
        minimum_base_quality=config["params"]["kraken2"]["minimum_base_quality"],
        memory_mapping=config["params"]["kraken2"]["memory_mapping"],
        extra=config["params"]["kraken2"]["extra"],
    shell:
        """
        mm=""
        case "{params.memory_mapping}" in
            True | true | yes | 1) mm=--memory-mapping ;;
        esac
        kraken2 --db {input.database:q} --threads {threads} $mm \
            --confidence {params.confidence} \
            --minimum-base-quality {params.minimum_base_quality} \
            --report {output.classification:q} \
            --output {output.assignments:q} {params.extra} \
            --paired {input.reads_1:q} {input.reads_2:q} \
            >{log:q} 2>&1
        """

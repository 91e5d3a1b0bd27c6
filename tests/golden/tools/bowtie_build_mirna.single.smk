rule mirna_indexing:
    input:
        mature=config["references"]["mirna_reference"],
    output:
        index=directory("results/mirna_indexing/mirna_bowtie_index"),
    log:
        "logs/mirna_indexing.log",
    benchmark:
        "benchmarks/mirna_indexing.tsv"
    conda:
        "../envs/bowtie_build_mirna.yaml"
    container:
        "docker://quay.io/biocontainers/bowtie:1.3.0--py38hed8969a_1"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    params:
        species=config["params"]["bowtie_build_mirna"]["species"],
        extra=config["params"]["bowtie_build_mirna"]["extra"],
        program=workflow.source_path("../scripts/mirna_tables.awk"),
    shell:
        """
        exec 2>{log:q}
        mkdir -p {output.index:q}
        case {input.mature:q} in
            *.gz) gzip -dc {input.mature:q} ;;
            *) cat {input.mature:q} ;;
        esac | awk -f {params.program:q} mode=mature species={params.species:q} - >{output.index:q}/mature.fa
        bowtie-build --threads {threads} {params.extra} {output.index:q}/mature.fa {output.index:q}/mature >&2
        """

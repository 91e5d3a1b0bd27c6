rule protein_database_build:
    input:
        proteins=config["inputs"]["protein_reference_sequences"],
    output:
        database="results/protein_database_build/proteins.dmnd",
    log:
        "logs/protein_database_build.log",
    benchmark:
        "benchmarks/protein_database_build.tsv"
    conda:
        "../envs/diamond_makedb.yaml"
    container:
        "docker://quay.io/biocontainers/diamond:2.1.16--h13889ed_0"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 10000 * attempt,
        runtime=lambda wildcards, attempt: 150 * attempt,
    params:
        extra=config["params"]["diamond_makedb"]["extra"],
    shell:
        # makedb appends .dmnd to the name it is given: build under a scratch name, then move
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT;"
        " diamond makedb --threads {threads} --in {input.proteins:q} {params.extra}"
        ' -d "$tmp/proteins" > {log:q} 2>&1'
        ' && mv "$tmp/proteins.dmnd" {output.database:q}'

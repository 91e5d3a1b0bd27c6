rule taxonomic_database_build:
    input:
        genomes=config["inputs"]["reference_sequences"],
        taxonomy=config["inputs"]["taxonomy_dump"],
    output:
        database=directory("results/taxonomic_database_build/kraken2_db"),
    log:
        "logs/taxonomic_database_build.log",
    benchmark:
        "benchmarks/taxonomic_database_build.tsv"
    conda:
        "../envs/kraken2_build_custom.yaml"
    container:
        "docker://quay.io/biocontainers/kraken2:2.1.3--pl5321hdcf5f25_0"
    threads: 8
    resources:
        mem_mb=lambda wildcards, attempt: 12000 * attempt,
        runtime=lambda wildcards, attempt: 300 * attempt,
    params:
        kmer_len=config["params"]["kraken2_build_custom"]["kmer_len"],
        minimizer_len=config["params"]["kraken2_build_custom"]["minimizer_len"],
        minimizer_spaces=config["params"]["kraken2_build_custom"]["minimizer_spaces"],
        masking=config["params"]["kraken2_build_custom"]["masking"],
        clean=config["params"]["kraken2_build_custom"]["clean"],
        extra=config["params"]["kraken2_build_custom"]["extra"],
        build=workflow.source_path("../scripts/kraken2_build_db.sh"),
    shell:
        "exec >{log:q} 2>&1; "
        "sh {params.build:q} --db {output.database:q} --taxonomy {input.taxonomy:q}"
        " --masking {params.masking:q} --clean {params.clean:q} --threads {threads}"
        " --kmer-len {params.kmer_len:q} --minimizer-len {params.minimizer_len:q}"
        " --minimizer-spaces {params.minimizer_spaces:q} {input.genomes:q} -- {params.extra}"

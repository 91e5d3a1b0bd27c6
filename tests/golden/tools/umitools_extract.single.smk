rule umi_extraction:
    input:
        reads=sample_file("fastq"),
    output:
        extracted=intermediate("results/umi_extraction/{sample}/extracted.fastq.gz"),
        log="results/umi_extraction/{sample}/{sample}.umi_extract.log",
    log:
        "logs/umi_extraction/{sample}.log",
    benchmark:
        "benchmarks/umi_extraction/{sample}.tsv"
    conda:
        "../envs/umitools_extract.yaml"
    container:
        "docker://community.wave.seqera.io/library/umi_tools_future_matplotlib_numpy_pruned:1ee668bafc8c9f81"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 120 * attempt,
    params:
        bc_pattern=config["params"]["umitools_extract"]["bc_pattern"],
        extract_method=config["params"]["umitools_extract"]["extract_method"],
        extra=config["params"]["umitools_extract"]["extra"],
    shell:
        "umi_tools extract --extract-method={params.extract_method:q} --bc-pattern={params.bc_pattern:q}"
        " -I {input.reads:q} -S {output.extracted:q}"
        " {params.extra} -L {output.log:q} > {log:q} 2>&1"

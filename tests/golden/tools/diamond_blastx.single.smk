rule protein_similarity_search:
    input:
        contigs="results/genome_assembly/{sample}/contigs.fa",
        database="results/protein_database_build/proteins.dmnd",
    output:
        hits="results/protein_similarity_search/{sample}/diamond_blastx.tsv",
    log:
        "logs/protein_similarity_search/{sample}.log",
    benchmark:
        "benchmarks/protein_similarity_search/{sample}.tsv"
    conda:
        "../envs/diamond_blastx.yaml"
    container:
        "docker://quay.io/biocontainers/diamond:2.1.16--h13889ed_0"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 240 * attempt,
    params:
        evalue=config["params"]["diamond_blastx"]["evalue"],
        max_target_seqs=config["params"]["diamond_blastx"]["max_target_seqs"],
        sensitivity=config["params"]["diamond_blastx"]["sensitivity"],
        extra=config["params"]["diamond_blastx"]["extra"],
    shell:
        "sensitivity={params.sensitivity:q};"
        " diamond blastx --threads {threads} -d {input.database:q} -q {input.contigs:q}"
        " --outfmt 6 --evalue {params.evalue} --max-target-seqs {params.max_target_seqs}"
        " ${{sensitivity:+--$sensitivity}} {params.extra} -o {output.hits:q} > {log:q} 2>&1"

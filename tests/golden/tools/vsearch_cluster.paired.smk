rule otu_clustering:
    input:
        table="results/chimera_removal/asv_table_nochim.tsv",
    output:
        table="results/otu_clustering/otu_table.tsv",
        members="results/otu_clustering/otu_members.tsv",
    log:
        "logs/otu_clustering.log",
    benchmark:
        "benchmarks/otu_clustering.tsv"
    conda:
        "../envs/vsearch_cluster.yaml"
    container:
        "docker://quay.io/biocontainers/vsearch:2.21.1--h95f258a_0"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    params:
        identity=config["params"]["vsearch_cluster"]["identity"],
        extra=config["params"]["vsearch_cluster"]["extra"],
        program=workflow.source_path("../scripts/otu_table.awk"),
    shell:
        """
        exec 2>{log:q}
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        awk -f {params.program:q} mode=fasta {input.table:q} >"$tmp/asvs.fa"
        vsearch --cluster_size "$tmp/asvs.fa" --id {params.identity:q} --sizein --sizeout --qmask none \\
        --uc "$tmp/clusters.uc" --centroids "$tmp/centroids.fa" --threads {threads} {params.extra}
        awk -f {params.program:q} mode=table members={output.members:q} "$tmp/clusters.uc" {input.table:q} \\
        >{output.table:q}
        """

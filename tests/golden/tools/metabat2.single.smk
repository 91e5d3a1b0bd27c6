rule contig_binning:
    input:
        contigs="results/genome_assembly/{sample}/contigs.fa",
        depth="results/contig_depth/{sample}/contig_depths.tsv",
    output:
        bins=directory("results/contig_binning/{sample}/bins"),
    log:
        "logs/contig_binning/{sample}.log",
    benchmark:
        "benchmarks/contig_binning/{sample}.tsv"
    conda:
        "../envs/metabat2.yaml"
    container:
        "docker://quay.io/biocontainers/metabat2:2.15--h986a166_1"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 240 * attempt,
    params:
        min_contig=config["params"]["metabat2"]["min_contig"],
        min_bin_size=config["params"]["metabat2"]["min_bin_size"],
        seed=config["params"]["metabat2"]["seed"],
        extra=config["params"]["metabat2"]["extra"],
    shell:
        # The bins land in a scratch folder first: a failed run leaves no half-filled output
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT;"
        ' mkdir "$tmp/bins"'
        " && metabat2 -t {threads} -i {input.contigs:q} -a {input.depth:q}"
        " -m {params.min_contig} -s {params.min_bin_size} --seed {params.seed} {params.extra}"
        ' -o "$tmp/bins/bin" > {log:q} 2>&1'
        ' && rm -rf {output.bins:q} && mv "$tmp/bins" {output.bins:q}'

rule taxonomy_barplot_plotting:
    input:
        table="results/taxonomy_abundance_summary/taxonomy_abundance_table.tsv",
    output:
        plot="results/taxonomy_barplot_plotting/taxonomy_barplot.png",
    log:
        "logs/taxonomy_barplot_plotting.log",
    benchmark:
        "benchmarks/taxonomy_barplot_plotting.tsv"
    conda:
        "../envs/taxonomy_barplot.yaml"
    container:
        "docker://community.wave.seqera.io/library/matplotlib_pandas:76f3c63ec67531f0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        top=config["params"]["taxonomy_barplot"]["top"],
        title=config["params"]["taxonomy_barplot"]["title"],
    script:
        "../scripts/taxonomy_barplot.py"

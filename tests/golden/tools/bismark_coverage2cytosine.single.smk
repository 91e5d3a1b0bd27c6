rule cytosine_report_generation:
    input:
        calls="results/methylation_calling/{sample}/{sample}.bismark.cov.gz",
        genome=config["inputs"]["reference_genome"],
        check_reference_genome="results/checks/check_reference_genome.ok",
    output:
        report="results/cytosine_report_generation/{sample}/{sample}.CpG_report.txt.gz",
    log:
        "logs/cytosine_report_generation/{sample}.log",
    benchmark:
        "benchmarks/cytosine_report_generation/{sample}.tsv"
    conda:
        "../envs/bismark_coverage2cytosine.yaml"
    container:
        "docker://quay.io/biocontainers/bismark:0.24.2--hdfd78af_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 16000 * attempt,
        runtime=lambda wildcards, attempt: 240 * attempt,
    params:
        extra=config["params"]["bismark_coverage2cytosine"]["extra"],
    shell:
        # coverage2cytosine reads every FASTA of --genome_folder: a folder holding the genome alone
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT;"
        ' mkdir "$tmp/genome" && ln -s "$(readlink -f {input.genome:q})" "$tmp/genome/genome.fa"'
        ' && coverage2cytosine --gzip --genome_folder "$tmp/genome" --dir "$tmp/out"'
        " -o {wildcards.sample:q} {params.extra} {input.calls:q} > {log:q} 2>&1"
        ' && mv "$tmp/out/"{wildcards.sample:q}.CpG_report.txt.gz {output.report:q}'

rule assembly_qc:
    input:
        contigs="results/genome_assembly/{sample}/contigs.fa",
    output:
        report="results/assembly_qc/{sample}/quast_report.tsv",
        html="results/assembly_qc/{sample}/quast_report.html",
    log:
        "logs/assembly_qc/{sample}.log",
    benchmark:
        "benchmarks/assembly_qc/{sample}.tsv"
    conda:
        "../envs/quast.yaml"
    container:
        "docker://quay.io/biocontainers/quast:5.2.0--py39pl5321heaaa4ec_4"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        min_contig=config["params"]["quast"]["min_contig"],
        extra=config["params"]["quast"]["extra"],
    shell:
        # QUAST names the assembly after its file: a link named after the sample labels the column
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT;"
        " case {input.contigs:q} in *.gz) ext=.fa.gz ;; *) ext=.fa ;; esac;"
        ' ln -s "$(readlink -f {input.contigs:q})" "$tmp/"{wildcards.sample:q}"$ext";'
        " quast.py --threads {threads} --min-contig {params.min_contig}"
        ' {params.extra} -o "$tmp/quast" "$tmp/"{wildcards.sample:q}"$ext" > {log:q} 2>&1'
        ' && cp "$tmp/quast/report.tsv" {output.report:q} && cp "$tmp/quast/report.html" {output.html:q}'

rule gene_prediction:
    input:
        contigs="results/genome_assembly/{sample}/contigs.fa",
    output:
        genes="results/gene_prediction/{sample}/genes.gff",
        proteins="results/gene_prediction/{sample}/proteins.faa",
        cds="results/gene_prediction/{sample}/genes.fna",
    log:
        "logs/gene_prediction/{sample}.log",
    benchmark:
        "benchmarks/gene_prediction/{sample}.tsv"
    conda:
        "../envs/prodigal.yaml"
    container:
        "docker://quay.io/biocontainers/prodigal:2.6.3--h516909a_2"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 120 * attempt,
    params:
        mode=config["params"]["prodigal"]["mode"],
        translation_table=config["params"]["prodigal"]["translation_table"],
        extra=config["params"]["prodigal"]["extra"],
    shell:
        # Prodigal reads plain FASTA only: gzipped contigs are decompressed into a scratch file
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT;"
        ' case {input.contigs:q} in *.gz) gzip -cd {input.contigs:q} > "$tmp/contigs.fa" ;;'
        ' *) ln -s "$(readlink -f {input.contigs:q})" "$tmp/contigs.fa" ;; esac;'
        ' prodigal -i "$tmp/contigs.fa" -p {params.mode} -g {params.translation_table} -f gff'
        " -o {output.genes:q} -a {output.proteins:q} -d {output.cds:q} {params.extra} > {log:q} 2>&1"

rule check_reference_genome:
    input:
        genome=config["inputs"]["reference_genome"],
    output:
        ok="results/checks/check_reference_genome.ok",
    log:
        "logs/checks/check_reference_genome.log",
    retries: 0
    group:
        "checks_genome_indexing"
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 12 * attempt,
    params:
        constraint="requires_reference_genome",
        guarded_step="genome_indexing",
        datatypes={"genome": "reference_genome"},
        condition_column=config["condition_column"],
    script:
        "../scripts/check_reference_genome.py"


rule check_gene_annotation:
    input:
        genome=config["inputs"]["reference_genome"],
        annotation=config["inputs"]["gene_annotation"],
    output:
        ok="results/checks/check_gene_annotation.ok",
    log:
        "logs/checks/check_gene_annotation.log",
    retries: 0
    group:
        "checks_genome_indexing"
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 12 * attempt,
    params:
        constraint="requires_gene_annotation",
        guarded_step="genome_indexing",
        datatypes={"annotation": "gene_annotation", "genome": "reference_genome"},
        condition_column=config["condition_column"],
    script:
        "../scripts/check_gene_annotation.py"


rule genome_indexing:
    input:
        genome=config["inputs"]["reference_genome"],
        annotation=config["inputs"]["gene_annotation"],
        check_reference_genome="results/checks/check_reference_genome.ok",
        check_gene_annotation="results/checks/check_gene_annotation.ok",
    output:
        index=directory("results/genome_indexing/star_index"),
    log:
        "logs/genome_indexing.log",
    benchmark:
        "benchmarks/genome_indexing.tsv"
    conda:
        "../envs/star_genome_generate.yaml"
    container:
        "docker://quay.io/biocontainers/star:2.7.10a--h9ee0642_0"
    threads: 8
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 180 * attempt,
    params:
        sa_index_nbases=config["params"]["star_genome_generate"]["sa_index_nbases"],
        sjdb_overhang=config["params"]["star_genome_generate"]["sjdb_overhang"],
        extra=config["params"]["star_genome_generate"]["extra"],
    shell:
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT; n={params.sa_index_nbases:q};"
        ' if [ "$n" = auto ]; then n=$(awk'
        " '!/^>/ {{ s += length($0) }} END {{ n = int(log(s) / log(2) / 2 - 1);"
        " print (n > 14 ? 14 : (n < 4 ? 4 : n)) }}' {input.genome:q}); fi;"
        # the GTF's splice junctions go into the index; STAR reads the GTF uncompressed
        ' gtf={input.annotation:q}; case "$gtf" in *.gz) gunzip -c "$gtf" > "$tmp/annotation.gtf";'
        ' gtf="$tmp/annotation.gtf";; esac;'
        " mkdir -p {output.index:q}"
        " && STAR --runMode genomeGenerate --runThreadN {threads}"
        " --genomeDir {output.index:q} --genomeFastaFiles {input.genome:q}"
        ' --genomeSAindexNbases "$n"'
        ' --sjdbGTFfile "$gtf" --sjdbOverhang {params.sjdb_overhang:q}'
        " --limitGenomeGenerateRAM $(({resources.mem_mb} * 1048576))"
        ' --outTmpDir "$tmp/star_tmp" --outFileNamePrefix "$tmp/" {params.extra}'
        " > {log:q} 2>&1"

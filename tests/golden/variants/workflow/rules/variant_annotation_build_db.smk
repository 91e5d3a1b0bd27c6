rule check_reference_genome:
    input:
        genome=config["inputs"]["reference_genome"],
    output:
        ok="results/checks/check_reference_genome.ok",
    log:
        "logs/checks/check_reference_genome.log",
    retries: 0
    group:
        "checks_variant_annotation_build_db"
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
        guarded_step="variant_annotation",
        datatypes={"genome": "reference_genome"},
    script:
        "../scripts/check_reference_genome.py"


rule check_gene_annotation:
    input:
        genome=config["inputs"]["reference_genome"],
        annotation="results/annotation_format_conversion/annotation.gtf",
    output:
        ok="results/checks/check_gene_annotation.ok",
    log:
        "logs/checks/check_gene_annotation.log",
    retries: 0
    group:
        "checks_variant_annotation_build_db"
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
        guarded_step="variant_annotation",
        datatypes={"annotation": "gene_annotation", "genome": "reference_genome"},
    script:
        "../scripts/check_gene_annotation.py"


rule variant_annotation_build_db:
    input:
        genome=config["inputs"]["reference_genome"],
        annotation="results/annotation_format_conversion/annotation.gtf",
        check_reference_genome="results/checks/check_reference_genome.ok",
        check_gene_annotation="results/checks/check_gene_annotation.ok",
    output:
        database=directory("results/variant_annotation_build_db/snpeff_db"),
    log:
        "logs/variant_annotation_build_db.log",
    benchmark:
        "benchmarks/variant_annotation_build_db.tsv"
    conda:
        "../envs/snpeff_build.yaml"
    container:
        "docker://quay.io/biocontainers/snpeff:5.1--hdfd78af_2"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 240 * attempt,
    params:
        genome_name=config["params"]["snpeff_build"]["genome_name"],
    shell:
        'db={output.database:q}/data/{params.genome_name:q}; mkdir -p "$db"'
        " && case {input.genome:q} in *.gz) gzip -cd {input.genome:q} ;;"
        ' *) cat {input.genome:q} ;; esac > "$db/sequences.fa"'
        " && case {input.annotation:q} in *.gz) gzip -cd {input.annotation:q} ;;"
        ' *) cat {input.annotation:q} ;; esac > "$db/genes.gtf"'
        " && printf 'data.dir = ./data/\\n%s.genome : %s\\n'"
        " {params.genome_name:q} {params.genome_name:q} > {output.database:q}/snpEff.config"
        " && snpEff -Xmx$(({resources.mem_mb} * 4 / 5))m build -gtf22 -noCheckCds"
        " -noCheckProtein -v -c {output.database:q}/snpEff.config {params.genome_name:q}"
        " > {log:q} 2>&1"

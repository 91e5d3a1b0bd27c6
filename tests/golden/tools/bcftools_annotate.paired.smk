rule variant_database_annotation:
    input:
        vcf=config["inputs"]["variant_calls"],
        database=config["references"]["variant_database"],
    output:
        vcf="results/variant_database_annotation/database_annotated.vcf.gz",
        tbi="results/variant_database_annotation/database_annotated.vcf.gz.tbi",
    log:
        "logs/variant_database_annotation.log",
    benchmark:
        "benchmarks/variant_database_annotation.tsv"
    conda:
        "../envs/bcftools_annotate.yaml"
    container:
        "docker://quay.io/biocontainers/bcftools:1.16--hfe4b78e_1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        columns=config["params"]["bcftools_annotate"]["columns"],
        extra=config["params"]["bcftools_annotate"]["extra"],
    shell:
        """
        exec 2>{log:q}
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        ln -s "$(readlink -f {input.database:q})" "$tmp/database.vcf.gz"
        if [ -e {input.database:q}.tbi ]; then
            ln -s "$(readlink -f {input.database:q}.tbi)" "$tmp/database.vcf.gz.tbi"
        else
            tabix -p vcf "$tmp/database.vcf.gz"
        fi
        # bcftools annotate -a reads a bgzipped, indexed target only: recompress the calls here
        bcftools view -Oz -o "$tmp/calls.vcf.gz" {input.vcf:q}
        bcftools index --tbi "$tmp/calls.vcf.gz"
        bcftools annotate -a "$tmp/database.vcf.gz" -c {params.columns:q} {params.extra} \\
        -Oz -o {output.vcf:q} "$tmp/calls.vcf.gz"
        bcftools index --tbi -o {output.tbi:q} {output.vcf:q}
        """

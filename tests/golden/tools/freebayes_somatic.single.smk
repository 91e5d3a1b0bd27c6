rule somatic_variant_calling:
    input:
        bams=expand(
            "results/duplicate_marking/{sample}/{sample}.markdup.bam", sample=SAMPLES
        ),
        genome=config["inputs"]["reference_genome"],
        check_reference_genome="results/checks/check_reference_genome.ok",
    output:
        vcf=intermediate("results/somatic_variant_calling/somatic.vcf"),
    log:
        "logs/somatic_variant_calling.log",
    benchmark:
        "benchmarks/somatic_variant_calling.tsv"
    conda:
        "../envs/freebayes_somatic.yaml"
    container:
        "docker://quay.io/biocontainers/freebayes:1.3.6--hb089aa1_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 1440 * attempt,
    params:
        normal_sample=config["params"]["freebayes_somatic"]["normal_sample"],
        min_alt=config["params"]["freebayes_somatic"]["min_alt"],
        min_vaf=config["params"]["freebayes_somatic"]["min_vaf"],
        max_normal_alt=config["params"]["freebayes_somatic"]["max_normal_alt"],
        min_normal_depth=config["params"]["freebayes_somatic"]["min_normal_depth"],
        extra=config["params"]["freebayes_somatic"]["extra"],
        samples=SAMPLES,
        program=workflow.source_path("../scripts/freebayes_somatic_filter.awk"),
    shell:
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT;"
        ' ref="$tmp/genome.fa";'
        ' case {input.genome:q} in *.gz) gzip -cd {input.genome:q} > "$ref" ;;'
        ' *) ln -s "$(readlink -f {input.genome:q})" "$ref" ;; esac;'
        ' freebayes -f "$ref" --pooled-continuous --min-alternate-fraction {params.min_vaf}'
        ' {params.extra} {input.bams:q} > "$tmp/joint.vcf" 2> {log:q} &&'
        " awk -f {params.program:q} normal={params.normal_sample:q} min_alt={params.min_alt}"
        " min_vaf={params.min_vaf} max_normal_alt={params.max_normal_alt}"
        ' min_normal_depth={params.min_normal_depth} "$tmp/joint.vcf" > {output.vcf:q} 2>> {log:q}'

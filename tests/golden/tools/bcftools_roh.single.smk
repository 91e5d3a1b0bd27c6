rule homozygosity_mapping:
    input:
        vcf=config["inputs"]["variant_calls"],
    output:
        table="results/homozygosity_mapping/roh.tsv",
        regions="results/homozygosity_mapping/roh.txt",
    log:
        "logs/homozygosity_mapping.log",
    benchmark:
        "benchmarks/homozygosity_mapping.tsv"
    conda:
        "../envs/bcftools_roh.yaml"
    container:
        "docker://quay.io/biocontainers/bcftools:1.16--hfe4b78e_1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        gts_only=config["params"]["bcftools_roh"]["gts_only"],
        af_dflt=config["params"]["bcftools_roh"]["af_dflt"],
        extra=config["params"]["bcftools_roh"]["extra"],
    shell:
        "set -o pipefail; bcftools roh -G {params.gts_only} --AF-dflt {params.af_dflt} -I -O r {params.extra}"
        " -o {output.regions:q} {input.vcf:q} 2> {log:q} &&"
        ' awk \'BEGIN {{ OFS = "\\t"; print "sample", "chrom", "start", "end", "length_bp", "n_markers", "quality" }}'
        ' $1 == "RG" {{ print $2, $3, $4, $5, $6, $7, $8 }}\' {output.regions:q} > {output.table:q}'

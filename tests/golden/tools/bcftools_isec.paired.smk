rule call_set_comparison:
    input:
        vcf="results/variant_database_annotation_bgzip/snpsift_annotated.vcf.gz",
        reference_calls=config["references"]["reference_call_set"],
    output:
        report="results/call_set_comparison/isec_counts.tsv",
        private_calls="results/call_set_comparison/isec_private.vcf.gz",
        missed="results/call_set_comparison/isec_missed.vcf.gz",
        shared="results/call_set_comparison/isec_shared.vcf.gz",
    log:
        "logs/call_set_comparison.log",
    benchmark:
        "benchmarks/call_set_comparison.tsv"
    conda:
        "../envs/bcftools_isec.yaml"
    container:
        "docker://quay.io/biocontainers/bcftools:1.16--hfe4b78e_1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        collapse=config["params"]["bcftools_isec"]["collapse"],
        extra=config["params"]["bcftools_isec"]["extra"],
    shell:
        """
        exec 2>{log:q}
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        bcftools view -Oz -o "$tmp/calls.vcf.gz" {input.vcf:q}
        bcftools index --tbi "$tmp/calls.vcf.gz"
        ln -s "$(readlink -f {input.reference_calls:q})" "$tmp/other.vcf.gz"
        if [ -e {input.reference_calls:q}.tbi ]; then
            ln -s "$(readlink -f {input.reference_calls:q}.tbi)" "$tmp/other.vcf.gz.tbi"
        else
            bcftools index --tbi "$tmp/other.vcf.gz"
        fi
        bcftools isec -c {params.collapse:q} -p "$tmp/isec" -Oz {params.extra} \\
        "$tmp/calls.vcf.gz" "$tmp/other.vcf.gz"
        cp "$tmp/isec/0000.vcf.gz" {output.private_calls:q}
        cp "$tmp/isec/0001.vcf.gz" {output.missed:q}
        cp "$tmp/isec/0002.vcf.gz" {output.shared:q}
        printf 'set\\trecords\\n' >{output.report:q}
        for part in private missed shared; do
            case "$part" in private) n=0000 ;; missed) n=0001 ;; *) n=0002 ;; esac
            printf '%s\\t%s\\n' "$part" "$(bcftools view -H "$tmp/isec/$n.vcf.gz" | wc -l)"
        done >>{output.report:q}
        """

rule variant_merging:
    input:
        vcfs=all_sample_files("sample_variant_calls"),
    output:
        vcf="results/variant_merging/merged.vcf.gz",
        tbi="results/variant_merging/merged.vcf.gz.tbi",
    log:
        "logs/variant_merging.log",
    benchmark:
        "benchmarks/variant_merging.tsv"
    conda:
        "../envs/bcftools_merge.yaml"
    container:
        "docker://quay.io/biocontainers/bcftools:1.16--hfe4b78e_1"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 120 * attempt,
    params:
        missing_to_ref=config["params"]["bcftools_merge"]["missing_to_ref"],
        extra=config["params"]["bcftools_merge"]["extra"],
        samples=SAMPLES,
    shell:
        """
        exec 2>{log:q}
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        set --
        n=0
        for vcf in {input.vcfs:q}; do
            n=$((n + 1))
            bcftools view -Oz -o "$tmp/part$n.vcf.gz" "$vcf"
            bcftools index --tbi "$tmp/part$n.vcf.gz"
            set -- "$@" "$tmp/part$n.vcf.gz"
        done
        missing=
        case {params.missing_to_ref:q} in True | true | 1) missing=--missing-to-ref ;; esac
        bcftools merge $missing --threads {threads} {params.extra} -Oz -o {output.vcf:q} "$@"
        bcftools index --tbi -f -o {output.tbi:q} {output.vcf:q}
        """

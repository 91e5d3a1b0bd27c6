rule variant_concatenation:
    input:
        vcfs=all_sample_files("region_variant_calls"),
    output:
        vcf="results/variant_concatenation/concatenated.vcf.gz",
        tbi="results/variant_concatenation/concatenated.vcf.gz.tbi",
    log:
        "logs/variant_concatenation.log",
    benchmark:
        "benchmarks/variant_concatenation.tsv"
    conda:
        "../envs/bcftools_concat.yaml"
    container:
        "docker://quay.io/biocontainers/bcftools:1.16--hfe4b78e_1"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 120 * attempt,
    params:
        remove_duplicates=config["params"]["bcftools_concat"]["remove_duplicates"],
        extra=config["params"]["bcftools_concat"]["extra"],
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
        duplicates=
        case {params.remove_duplicates:q} in True | true | 1) duplicates=--remove-duplicates ;; esac
        bcftools concat --allow-overlaps $duplicates --threads {threads} {params.extra} \\
        -Oz -o {output.vcf:q} "$@"
        bcftools index --tbi -f -o {output.tbi:q} {output.vcf:q}
        """

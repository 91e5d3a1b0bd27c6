rule check_vcf_filter_fields:
    input:
        vcf=config["inputs"]["variant_calls"],
    output:
        ok="results/checks/check_vcf_filter_fields.ok",
    log:
        "logs/checks/check_vcf_filter_fields.log",
    retries: 0
    group:
        "checks_variant_filtering"
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 12 * attempt,
    params:
        constraint="requires_vcf_filter_fields",
        guarded_step="variant_filtering",
        datatypes={"vcf": "variant_calls"},
    script:
        "../scripts/check_vcf_fields.py"


rule variant_filtering:
    input:
        vcf=config["inputs"]["variant_calls"],
        check_vcf_filter_fields="results/checks/check_vcf_filter_fields.ok",
    output:
        vcf="results/variant_filtering/filtered.vcf.gz",
        tbi="results/variant_filtering/filtered.vcf.gz.tbi",
    log:
        "logs/variant_filtering.log",
    benchmark:
        "benchmarks/variant_filtering.tsv"
    conda:
        "../envs/bcftools_filter.yaml"
    container:
        "docker://quay.io/biocontainers/bcftools:1.16--hfe4b78e_1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    params:
        min_qual=config["params"]["bcftools_filter"]["min_qual"],
        min_depth=config["params"]["bcftools_filter"]["min_depth"],
        extra=config["params"]["bcftools_filter"]["extra"],
    # the expression tests only what the VCF has: QUAL (min_qual > 0), DP when the header declares
    # it (INFO/DP, else FORMAT/DP), each left out at a threshold of 0
    shell:
        "hdr=$(bcftools view -h {input.vcf:q}); expr=();"
        " if [ {params.min_qual} != 0 ]; then expr+=('QUAL>={params.min_qual}'); fi;"
        " if [ {params.min_depth} != 0 ]; then"
        "   if grep -q '^##INFO=<ID=DP,' <<<\"$hdr\"; then expr+=('INFO/DP>={params.min_depth}');"
        "   elif grep -q '^##FORMAT=<ID=DP,' <<<\"$hdr\"; then expr+=('FMT/DP>={params.min_depth}');"
        "   else echo 'bcftools_filter: no DP in the header: the depth filter is left out' > {log:q}; fi;"
        " fi;"
        ' joined=$(printf \'%s && \' "${{expr[@]}}"); joined="${{joined% && }}";'
        " echo \"bcftools_filter: -i '${{joined:-all records}}'\" >> {log:q};"
        " if [ ${{#expr[@]}} -gt 0 ]; then"
        '   bcftools filter -i "$joined" {params.extra} -Oz -o {output.vcf:q} {input.vcf:q} >> {log:q} 2>&1;'
        " else bcftools view {params.extra} -Oz -o {output.vcf:q} {input.vcf:q} >> {log:q} 2>&1; fi"
        " && bcftools index --tbi -o {output.tbi:q} {output.vcf:q} 2>> {log:q}"

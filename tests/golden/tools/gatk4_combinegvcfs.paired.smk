rule gvcf_consolidation:
    input:
        gvcfs=expand(
            "results/gvcf_calling/{sample}/{sample}.deepvariant.g.vcf.gz",
            sample=SAMPLES,
        ),
        genome=config["inputs"]["reference_genome"],
        check_reference_genome="results/checks/check_reference_genome.ok",
    output:
        combined="results/gvcf_consolidation/combined.g.vcf.gz",
        tbi="results/gvcf_consolidation/combined.g.vcf.gz.tbi",
    log:
        "logs/gvcf_consolidation.log",
    benchmark:
        "benchmarks/gvcf_consolidation.tsv"
    conda:
        "../envs/gatk4_combinegvcfs.yaml"
    container:
        "docker://quay.io/biocontainers/gatk4:4.5.0.0--py36hdfd78af_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 720 * attempt,
    params:
        extra=config["params"]["gatk4_combinegvcfs"]["extra"],
        samples=SAMPLES,
        program=workflow.source_path("../scripts/fasta_for_gatk.awk"),
    shell:
        """
        exec 2>{log:q}
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        case {input.genome:q} in
            *.gz) gzip -cd {input.genome:q} >"$tmp/genome.in.fa" ;;
            *) ln -s "$(readlink -f {input.genome:q})" "$tmp/genome.in.fa" ;;
        esac
        awk -f {params.program:q} fai="$tmp/genome.fa.fai" "$tmp/genome.in.fa" >"$tmp/genome.fa"
        gatk CreateSequenceDictionary -R "$tmp/genome.fa" -O "$tmp/genome.dict"
        set --
        for gvcf in {input.gvcfs:q}; do
            set -- "$@" -V "$gvcf"
        done
        gatk --java-options "-Xmx$(({resources.mem_mb} * 4 / 5))m" CombineGVCFs "$@" \\
        -R "$tmp/genome.fa" -O {output.combined:q} --tmp-dir "$tmp" {params.extra}
        """

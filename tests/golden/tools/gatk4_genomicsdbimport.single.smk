rule gvcf_consolidation:
    input:
        gvcfs=expand("results/gvcf_calling/{sample}/{sample}.g.vcf.gz", sample=SAMPLES),
        genome=config["inputs"]["reference_genome"],
        check_reference_genome="results/checks/check_reference_genome.ok",
    output:
        combined=directory("results/gvcf_consolidation/genomicsdb"),
    log:
        "logs/gvcf_consolidation.log",
    benchmark:
        "benchmarks/gvcf_consolidation.tsv"
    conda:
        "../envs/gatk4_genomicsdbimport.yaml"
    container:
        "docker://quay.io/biocontainers/gatk4:4.5.0.0--py36hdfd78af_0"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 720 * attempt,
    params:
        batch_size=config["params"]["gatk4_genomicsdbimport"]["batch_size"],
        extra=config["params"]["gatk4_genomicsdbimport"]["extra"],
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
        set --
        for gvcf in {input.gvcfs:q}; do
            set -- "$@" -V "$gvcf"
        done
        while read -r contig rest; do
            set -- "$@" -L "$contig"
        done <"$tmp/genome.fa.fai"
        rm -rf {output.combined:q}
        gatk --java-options "-Xmx$(({resources.mem_mb} * 4 / 5))m" GenomicsDBImport "$@" \\
        --genomicsdb-workspace-path {output.combined:q} \\
        --batch-size {params.batch_size} --reader-threads {threads} --tmp-dir "$tmp" {params.extra}
        """

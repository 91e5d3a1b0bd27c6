rule joint_genotyping:
    input:
        combined="results/gvcf_consolidation/genomicsdb",
        genome=config["inputs"]["reference_genome"],
        check_reference_genome="results/checks/check_reference_genome.ok",
    output:
        vcf="results/joint_genotyping/joint_genotyped.vcf.gz",
        tbi="results/joint_genotyping/joint_genotyped.vcf.gz.tbi",
    log:
        "logs/joint_genotyping.log",
    benchmark:
        "benchmarks/joint_genotyping.tsv"
    conda:
        "../envs/gatk4_genotypegvcfs.yaml"
    container:
        "docker://quay.io/biocontainers/gatk4:4.5.0.0--py36hdfd78af_0"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 1440 * attempt,
    params:
        extra=config["params"]["gatk4_genotypegvcfs"]["extra"],
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
        combined={input.combined:q}
        if [ -d "$combined" ]; then
            combined="gendb://$combined"
        fi
        gatk --java-options "-Xmx$(({resources.mem_mb} * 4 / 5))m" GenotypeGVCFs -V "$combined" \\
        -R "$tmp/genome.fa" -O {output.vcf:q} --tmp-dir "$tmp" {params.extra}
        """

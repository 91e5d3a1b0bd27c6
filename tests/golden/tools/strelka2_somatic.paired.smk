rule somatic_variant_calling:
    input:
        bams=expand(
            "results/duplicate_marking/{sample}/{sample}.markdup.bam", sample=SAMPLES
        ),
        genome=config["inputs"]["reference_genome"],
        check_reference_genome="results/checks/check_reference_genome.ok",
    output:
        vcf="results/somatic_variant_calling/strelka_somatic.vcf.gz",
        tbi="results/somatic_variant_calling/strelka_somatic.vcf.gz.tbi",
        indels="results/somatic_variant_calling/strelka_somatic.indels.vcf.gz",
    log:
        "logs/somatic_variant_calling.log",
    benchmark:
        "benchmarks/somatic_variant_calling.tsv"
    conda:
        "../envs/strelka2_somatic.yaml"
    container:
        "docker://quay.io/biocontainers/strelka:2.9.10--h9ee0642_1"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 720 * attempt,
    params:
        normal_sample=config["params"]["strelka2_somatic"]["normal_sample"],
        extra=config["params"]["strelka2_somatic"]["extra"],
        samples=SAMPLES,
        program=workflow.source_path("../scripts/fasta_for_gatk.awk"),
        bam_sample=workflow.source_path("../scripts/bam_sample_name.sh"),
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
        normal_name={params.normal_sample:q}
        normal=""
        tumour=""
        n=0
        for bam in {input.bams:q}; do
            n=$((n + 1))
            if [ "$(sh {params.bam_sample:q} "$bam")" = "$normal_name" ]; then
                normal=$bam
            else
                tumour=$bam
            fi
        done
        if [ "$n" -ne 2 ] || [ -z "$normal" ] || [ -z "$tumour" ]; then
            echo "Strelka2 somatic needs exactly two BAMs, one of them the normal_sample '$normal_name'" >&2
            exit 1
        fi
        configureStrelkaSomaticWorkflow.py --normalBam "$normal" --tumorBam "$tumour" \\
        --referenceFasta "$tmp/genome.fa" --runDir "$tmp/run" {params.extra}
        python "$tmp/run/runWorkflow.py" -m local -j {threads}
        variants="$tmp/run/results/variants"
        zcat "$variants/somatic.snvs.vcf.gz" | grep '^##' >"$tmp/header.snvs"
        zcat "$variants/somatic.indels.vcf.gz" | grep '^##' | grep -v -x -F -f "$tmp/header.snvs" >"$tmp/header.indels" || true
        (
            cat "$tmp/header.snvs" "$tmp/header.indels"
            zcat "$variants/somatic.snvs.vcf.gz" | grep '^#CHROM'
            zcat "$variants/somatic.snvs.vcf.gz" "$variants/somatic.indels.vcf.gz" | grep -v '^#' | sort -k1,1V -k2,2n || true
        ) | bgzip -c >{output.vcf:q}
        tabix -p vcf {output.vcf:q}
        cp "$variants/somatic.indels.vcf.gz" {output.indels:q}
        """

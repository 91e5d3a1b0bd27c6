rule contamination_estimation:
    input:
        bams=expand(
            "results/duplicate_marking/{sample}/{sample}.markdup.bam", sample=SAMPLES
        ),
        genome=config["inputs"]["reference_genome"],
        common_sites=config["references"]["known_variant_sites"],
        check_reference_genome="results/checks/check_reference_genome.ok",
    output:
        table="results/contamination_estimation/contamination.tsv",
        segments="results/contamination_estimation/contamination_segments.tsv",
    log:
        "logs/contamination_estimation.log",
    benchmark:
        "benchmarks/contamination_estimation.tsv"
    conda:
        "../envs/gatk4_calculatecontamination.yaml"
    container:
        "docker://quay.io/biocontainers/gatk4:4.5.0.0--py36hdfd78af_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 240 * attempt,
    params:
        normal_sample=config["params"]["gatk4_calculatecontamination"]["normal_sample"],
        extra=config["params"]["gatk4_calculatecontamination"]["extra"],
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
        gatk CreateSequenceDictionary -R "$tmp/genome.fa" -O "$tmp/genome.dict"
        ln -s "$(readlink -f {input.common_sites:q})" "$tmp/common.vcf.gz"
        if [ -e {input.common_sites:q}.tbi ]; then
            ln -s "$(readlink -f {input.common_sites:q}.tbi)" "$tmp/common.vcf.gz.tbi"
        else
            gatk IndexFeatureFile -I "$tmp/common.vcf.gz"
        fi
        java_mem="-Xmx$(({resources.mem_mb} * 4 / 5))m"
        normal={params.normal_sample:q}
        mkdir "$tmp/pileups"
        for bam in {input.bams:q}; do
            sample=$(sh {params.bam_sample:q} "$bam")
            gatk --java-options "$java_mem" GetPileupSummaries -I "$bam" -V "$tmp/common.vcf.gz" \\
            -L "$tmp/common.vcf.gz" -R "$tmp/genome.fa" -O "$tmp/pileups/$sample.table" {params.extra}
        done
        if [ -n "$normal" ] && [ ! -e "$tmp/pileups/$normal.table" ]; then
            echo "normal_sample '$normal' is none of the BAMs' samples: $(ls "$tmp/pileups")" >&2
            exit 1
        fi
        printf 'sample\\tcontamination\\terror\\n' >{output.table:q}
        printf 'sample\\tcontig\\tstart\\tend\\tminor_allele_fraction\\n' >{output.segments:q}
        for table in "$tmp"/pileups/*.table; do
            sample=$(basename "$table" .table)
            [ "$sample" = "$normal" ] && continue
            set -- -I "$table"
            if [ -n "$normal" ]; then
                set -- "$@" -matched "$tmp/pileups/$normal.table"
            fi
            gatk --java-options "$java_mem" CalculateContamination "$@" \\
            -O "$tmp/$sample.contamination" --tumor-segmentation "$tmp/$sample.segments"
            grep -v -e '^#' -e '^sample' "$tmp/$sample.contamination" >>{output.table:q}
            grep -v -e '^#' -e '^contig' "$tmp/$sample.segments" | S="$sample" awk 'BEGIN {{ OFS = "\\t"; s = ENVIRON["S"] }} {{ print s, $0 }}' >>{output.segments:q}
        done
        """

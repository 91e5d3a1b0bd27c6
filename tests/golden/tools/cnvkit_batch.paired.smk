rule copy_number_calling:
    input:
        bams=expand(
            "results/duplicate_marking/{sample}/{sample}.markdup.bam", sample=SAMPLES
        ),
        genome=config["inputs"]["reference_genome"],
        check_reference_genome="results/checks/check_reference_genome.ok",
    output:
        segments="results/copy_number_calling/copy_number_segments.tsv",
    log:
        "logs/copy_number_calling.log",
    benchmark:
        "benchmarks/copy_number_calling.tsv"
    conda:
        "../envs/cnvkit_batch.yaml"
    container:
        "docker://quay.io/biocontainers/cnvkit:0.9.9--pyhdfd78af_0"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 720 * attempt,
    params:
        normal_samples=config["params"]["cnvkit_batch"]["normal_samples"],
        segment_method=config["params"]["cnvkit_batch"]["segment_method"],
        extra=config["params"]["cnvkit_batch"]["extra"],
        samples=SAMPLES,
        bam_sample=workflow.source_path("../scripts/bam_sample_name.sh"),
    shell:
        """
        exec 2>{log:q}
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        case {input.genome:q} in
            *.gz) gzip -cd {input.genome:q} >"$tmp/genome.fa" ;;
            *) ln -s "$(readlink -f {input.genome:q})" "$tmp/genome.fa" ;;
        esac
        normals=,$(printf '%s' {params.normal_samples:q} | tr -d ' '),
        set --
        for bam in {input.bams:q}; do
            sample=$(sh {params.bam_sample:q} "$bam")
            case "$normals" in
                *",$sample,"*) ;;
                *)
                    set -- "$@" "$bam"
                    printf '%s\\t%s\\n' "$sample" "$(basename "$bam" .bam)" >>"$tmp/tumours.tsv"
                    ;;
            esac
        done
        if [ "$#" -eq 0 ]; then
            echo "CNVkit: every BAM is one of the normal_samples: no tumour to call" >&2
            exit 1
        fi
        set -- "$@" --normal
        for bam in {input.bams:q}; do
            case "$normals" in
                *",$(sh {params.bam_sample:q} "$bam"),"*) set -- "$@" "$bam" ;;
            esac
        done
        cnvkit=$(command -v cnvkit.py || command -v cnvkit)
        "$cnvkit" batch "$@" --method wgs --fasta "$tmp/genome.fa" --segment-method {params.segment_method:q} \\
        --output-dir "$tmp/cnvkit" --output-reference "$tmp/cnvkit/reference.cnn" -p {threads} {params.extra}
        first=1
        while IFS="$(printf '\\t')" read -r sample name; do
            if [ "$first" = 1 ]; then
                printf 'sample\\t%s\\n' "$(head -n 1 "$tmp/cnvkit/$name.call.cns")" >{output.segments:q}
                first=0
            fi
            tail -n +2 "$tmp/cnvkit/$name.call.cns" | S="$sample" awk 'BEGIN {{ OFS = "\\t"; s = ENVIRON["S"] }} {{ print s, $0 }}' >>{output.segments:q}
        done <"$tmp/tumours.tsv"
        """

rule annotation_format_conversion:
    input:
        annotation=config["inputs"]["gene_annotation"],
    output:
        annotation="results/annotation_format_conversion/annotation.gtf",
    log:
        "logs/annotation_format_conversion.log",
    benchmark:
        "benchmarks/annotation_format_conversion.tsv"
    conda:
        "../envs/gffread_gtf.yaml"
    container:
        "docker://quay.io/biocontainers/gffread:0.12.7--hdcf5f25_4"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    params:
        extra=config["params"]["gffread_gtf"]["extra"],
        program=workflow.source_path("../scripts/gff3_plain_ids.awk"),
    shell:
        """
        exec 2>{log:q}
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        case {input.annotation:q} in
            *.gz) gzip -cd {input.annotation:q} >"$tmp/in.gff3" ;;
            *) ln -s "$(readlink -f {input.annotation:q})" "$tmp/in.gff3" ;;
        esac
        gffread "$tmp/in.gff3" -T {params.extra} -o "$tmp/raw.gtf"
        awk -f {params.program:q} "$tmp/in.gff3" "$tmp/raw.gtf" >{output.annotation:q}
        """

rule abundance_table_merge:
    input:
        profiles=expand(
            "results/abundance_estimation/{sample}/abundance.bracken", sample=SAMPLES
        ),
    output:
        table="results/abundance_table_merge/taxpasta_table.tsv",
    log:
        "logs/abundance_table_merge.log",
    benchmark:
        "benchmarks/abundance_table_merge.tsv"
    conda:
        "../envs/taxpasta_merge.yaml"
    container:
        "docker://quay.io/biocontainers/taxpasta:0.7.0--pyhdfd78af_1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        extra=config["params"]["taxpasta_merge"]["extra"],
        samples=SAMPLES,
    shell:
        """
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        profiles=({input.profiles:q})
        samples=({params.samples:q})
        # Bracken's table starts with its header; a Kraken2 report has none
        profiler=kraken2
        case "$(head -n 1 "${{profiles[0]}}")" in name*taxonomy_id*) profiler=bracken ;; esac
        links=()
        for i in "${{!profiles[@]}}"; do
            ln -s "$(readlink -f "${{profiles[$i]}}")" "$tmp/${{samples[$i]}}.$profiler"
            links+=("$tmp/${{samples[$i]}}.$profiler")
        done
        taxpasta merge --profiler "$profiler" --output-format TSV --wide {params.extra} \
            --output {output.table:q} "${{links[@]}}" >{log:q} 2>&1
        """

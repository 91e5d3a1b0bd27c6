rule taxonomy_visualisation:
    input:
        classification="results/taxonomic_classification/{sample}/{sample}.kreport",
    output:
        chart="results/taxonomy_visualisation/{sample}/krona.html",
    log:
        "logs/taxonomy_visualisation/{sample}.log",
    benchmark:
        "benchmarks/taxonomy_visualisation/{sample}.tsv"
    conda:
        "../envs/krona_ktimporttext.yaml"
    container:
        "docker://quay.io/biocontainers/krona:2.8.1--pl5321hdfd78af_1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        extra=config["params"]["krona_ktimporttext"]["extra"],
    shell:
        """
        # Kraken2 report -> Krona text (kreport2krona's role): a taxon's own reads with its
        # lineage from the name's indentation (two spaces a level), so levels without rank codes
        # stay; the root's own reads go to the chart's centre, unclassified reads to "Unclassified"
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        awk -F '\\t' 'BEGIN {{ OFS = "\\t" }}
            {{
                name = $NF; depth = int((match(name, /[^ ]/) - 1) / 2); sub(/^ +/, "", name)
                if ($4 == "U" || name == "unclassified") {{ if ($3 > 0) print $3, "Unclassified"; next }}
                if (depth == 0) {{ if ($3 > 0) print $3; next }}
                lineage[depth] = depth == 1 ? name : lineage[depth - 1] OFS name
                if ($3 > 0) print $3, lineage[depth]
            }}' {input.classification:q} >"$tmp/krona.txt" 2>{log:q}
        ktImportText {params.extra} -o {output.chart:q} "$tmp/krona.txt,"{wildcards.sample:q} >>{log:q} 2>&1
        """

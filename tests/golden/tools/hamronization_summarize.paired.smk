rule amr_report_harmonisation:
    input:
        reports=expand("results/amr_detection/{sample}/rgi.txt", sample=SAMPLES),
    output:
        table="results/amr_report_harmonisation/hamronization_summary.tsv",
    log:
        "logs/amr_report_harmonisation.log",
    benchmark:
        "benchmarks/amr_report_harmonisation.tsv"
    conda:
        "../envs/hamronization_summarize.yaml"
    container:
        "docker://quay.io/biocontainers/hamronization:1.1.9--pyhdfd78af_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 20 * attempt,
    params:
        amrfinderplus_version=config["params"]["hamronization_summarize"][
            "amrfinderplus_version"
        ],
        rgi_version=config["params"]["hamronization_summarize"]["rgi_version"],
        database_version=config["params"]["hamronization_summarize"]["database_version"],
        samples=SAMPLES,
    shell:
        """
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        reports=({input.reports:q})
        samples=({params.samples:q})
        : >{log:q}
        for i in "${{!reports[@]}}"; do
            report=${{reports[$i]}}
            header=$(head -n 1 "$report")
            case "$header" in
                *ORF_ID*)
                    tool=rgi
                    version={params.rgi_version:q}
                    ;;
                *"Protein identifier"* | *"Protein id"*)
                    tool=amrfinderplus
                    version={params.amrfinderplus_version:q}
                    ;;
                *)
                    echo "hAMRonization: $report is neither an AMRFinderPlus nor an RGI report (header: $header)" >>{log:q}
                    exit 1
                    ;;
            esac
            hamronize "$tool" --input_file_name "${{samples[$i]}}" \
                --analysis_software_version "$version" \
                --reference_database_version {params.database_version:q} \
                --format json --output "$tmp/$i.json" "$report" >>{log:q} 2>&1
        done
        hamronize summarize -t tsv -o {output.table:q} "$tmp"/*.json >>{log:q} 2>&1
        """

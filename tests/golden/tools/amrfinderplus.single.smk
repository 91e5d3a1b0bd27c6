rule amr_detection:
    input:
        contigs="results/genome_assembly/{sample}/contigs.fa",
        database=config["references"]["amr_database"],
    output:
        report="results/amr_detection/{sample}/amrfinderplus.tsv",
    log:
        "logs/amr_detection/{sample}.log",
    benchmark:
        "benchmarks/amr_detection/{sample}.tsv"
    conda:
        "../envs/amrfinderplus.yaml"
    container:
        "docker://quay.io/biocontainers/ncbi-amrfinderplus:3.12.8--h283d18e_0"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 120 * attempt,
    params:
        plus=config["params"]["amrfinderplus"]["plus"],
        organism=config["params"]["amrfinderplus"]["organism"],
        extra=config["params"]["amrfinderplus"]["extra"],
    shell:
        # AMRFinderPlus reads plain FASTA: gzipped contigs are decompressed into a scratch file
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT;"
        ' case {input.contigs:q} in *.gz) gzip -cd {input.contigs:q} > "$tmp/contigs.fa" ;;'
        ' *) ln -s "$(readlink -f {input.contigs:q})" "$tmp/contigs.fa" ;; esac;'
        " opts=(); case {params.plus:q} in True|true|1) opts+=(--plus) ;; esac;"
        ' organism={params.organism:q}; [ -n "$organism" ] && opts+=(--organism "$organism");'
        ' amrfinder --nucleotide "$tmp/contigs.fa" --database {input.database:q} --threads {threads}'
        ' --name {wildcards.sample:q} "${{opts[@]}}" {params.extra} -o {output.report:q} > {log:q} 2>&1'

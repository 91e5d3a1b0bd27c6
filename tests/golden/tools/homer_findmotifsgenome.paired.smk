rule motif_discovery:
    input:
        peaks="results/peak_calling/peaks.narrowPeak",
        genome=config["inputs"]["reference_genome"],
        check_reference_genome="results/checks/check_reference_genome.ok",
    output:
        table="results/motif_discovery/known_motifs.tsv",
        de_novo="results/motif_discovery/de_novo.motifs",
    log:
        "logs/motif_discovery.log",
    benchmark:
        "benchmarks/motif_discovery.tsv"
    conda:
        "../envs/homer_findmotifsgenome.yaml"
    container:
        "docker://quay.io/biocontainers/homer:4.11--pl526hc9558a2_3"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 480 * attempt,
    params:
        size=config["params"]["homer_findmotifsgenome"]["size"],
        extra=config["params"]["homer_findmotifsgenome"]["extra"],
    shell:
        """
        exec 2>{log:q}
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        case {input.genome:q} in
            *.gz) gzip -cd {input.genome:q} >"$tmp/genome.fa" ;;
            *) ln -s "$(readlink -f {input.genome:q})" "$tmp/genome.fa" ;;
        esac
        mkdir "$tmp/preparsed"
        findMotifsGenome.pl {input.peaks:q} "$tmp/genome.fa" "$tmp/out" -size {params.size} -p {threads} \\
        -preparsedDir "$tmp/preparsed" {params.extra}
        cp "$tmp/out/knownResults.txt" {output.table:q}
        cp "$tmp/out/homerMotifs.all.motifs" {output.de_novo:q}
        """

rule check_three_sequences:
    input:
        sequences=config["inputs"]["sequence_set"],
    output:
        ok="results/checks/check_three_sequences.ok",
    log:
        "logs/checks/check_three_sequences.log",
    retries: 0
    group:
        "checks_multiple_sequence_alignment"
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 12 * attempt,
    params:
        constraint="requires_three_sequences",
        guarded_step="multiple_sequence_alignment",
        datatypes={"sequences": "sequence_set"},
    script:
        "../scripts/check_sequence_set.py"


rule multiple_sequence_alignment:
    input:
        sequences=config["inputs"]["sequence_set"],
        check_three_sequences="results/checks/check_three_sequences.ok",
    output:
        alignment=intermediate("results/multiple_sequence_alignment/alignment.afa"),
    log:
        "logs/multiple_sequence_alignment.log",
    benchmark:
        "benchmarks/multiple_sequence_alignment.tsv"
    conda:
        "../envs/mafft_align.yaml"
    container:
        "docker://quay.io/biocontainers/mafft:7.525--h031d066_1"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        strategy=config["params"]["mafft_align"]["strategy"],
        extra=config["params"]["mafft_align"]["extra"],
    shell:
        """
        exec 2>{log:q}
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        case {input.sequences:q} in
            *.gz) gzip -cd {input.sequences:q} >"$tmp/sequences.fa" ;;
            *) ln -s "$(readlink -f {input.sequences:q})" "$tmp/sequences.fa" ;;
        esac
        mafft --thread {threads} {params.strategy} {params.extra} "$tmp/sequences.fa" >"$tmp/alignment.afa"
        mv -- "$tmp/alignment.afa" {output.alignment:q}
        """

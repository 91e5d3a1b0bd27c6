rule ambient_rna_removal:
    input:
        adata=config["inputs"]["single_cell_matrix"],
    output:
        adata=intermediate("results/ambient_rna_removal/cellbender_filtered.h5"),
    log:
        "logs/ambient_rna_removal.log",
    benchmark:
        "benchmarks/ambient_rna_removal.tsv"
    conda:
        "../envs/cellbender_removebackground.yaml"
    container:
        "docker://community.wave.seqera.io/library/cellbender_webcolors:9cfb55914fc5dcea"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 24000 * attempt,
        runtime=lambda wildcards, attempt: 720 * attempt,
    params:
        epochs=config["params"]["cellbender_removebackground"]["epochs"],
        fpr=config["params"]["cellbender_removebackground"]["fpr"],
        extra=config["params"]["cellbender_removebackground"]["extra"],
    shell:
        # CellBender names its outputs after --output: X.h5 (all droplets) and X_filtered.h5 (cells),
        # the one this step keeps; it writes checkpoints into the working directory and TMPDIR.
        "work=$(mktemp -d); trap 'rm -rf -- \"$work\"' EXIT; out=$(realpath {output.adata:q});"
        " in=$(realpath {input.adata:q}); log=$(realpath {log:q});"
        ' (cd "$work" && TMPDIR="$work" cellbender remove-background --cpu-threads {threads}'
        ' --input "$in" --output "$work/cellbender.h5" --epochs {params.epochs} --fpr {params.fpr} {params.extra})'
        ' > "$log" 2>&1'
        ' && mv "$work/cellbender_filtered.h5" "$out"'

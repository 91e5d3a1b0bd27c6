rule check_four_sequences:
    input:
        alignment="results/multiple_sequence_alignment/alignment.afa",
    output:
        ok="results/checks/check_four_sequences.ok",
    log:
        "logs/checks/check_four_sequences.log",
    retries: 0
    group:
        "checks_phylogenetic_tree_inference"
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        constraint="requires_four_sequences",
        guarded_step="phylogenetic_tree_inference",
        datatypes={"alignment": "multiple_sequence_alignment"},
    script:
        "../scripts/check_sequence_set.py"


rule phylogenetic_tree_inference:
    input:
        alignment="results/multiple_sequence_alignment/alignment.afa",
        check_four_sequences="results/checks/check_four_sequences.ok",
    output:
        tree="results/phylogenetic_tree_inference/tree.treefile",
        report="results/phylogenetic_tree_inference/tree.iqtree",
    log:
        "logs/phylogenetic_tree_inference.log",
    benchmark:
        "benchmarks/phylogenetic_tree_inference.tsv"
    conda:
        "../envs/iqtree.yaml"
    container:
        "docker://quay.io/biocontainers/iqtree:2.4.0--h503566f_0"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 120 * attempt,
    params:
        model=config["params"]["iqtree"]["model"],
        bootstrap=config["params"]["iqtree"]["bootstrap"],
        seed=config["params"]["iqtree"]["seed"],
        extra=config["params"]["iqtree"]["extra"],
    shell:
        """
        exec >{log:q} 2>&1
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        iqtree=$(command -v iqtree2 || command -v iqtree)
        export OMP_WAIT_POLICY=PASSIVE
        boot=""
        if [ {params.bootstrap:q} != 0 ]; then boot="-B {params.bootstrap}"; fi
        "$iqtree" -s {input.alignment:q} -m {params.model:q} $boot -seed {params.seed:q} -T {threads} \\
        --prefix "$tmp/tree" {params.extra}
        mv -- "$tmp/tree.treefile" {output.tree:q}
        mv -- "$tmp/tree.iqtree" {output.report:q}
        """

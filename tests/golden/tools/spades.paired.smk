rule check_paired_end_reads:
    input:
        reads_1=sample_file("fastq_1"),
        reads_2=sample_file("fastq_2"),
    output:
        ok="results/checks/check_paired_end_reads/{sample}.ok",
    log:
        "logs/checks/check_paired_end_reads/{sample}.log",
    retries: 0
    group:
        "checks_genome_assembly"
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 12 * attempt,
    params:
        constraint="paired_end_reads",
        guarded_step="genome_assembly",
        datatypes={"reads_1": "raw_reads", "reads_2": "raw_reads"},
    script:
        "../scripts/check_paired_mates.py"


rule genome_assembly:
    input:
        reads_1=sample_file("fastq_1"),
        reads_2=sample_file("fastq_2"),
        check_paired_end_reads="results/checks/check_paired_end_reads/{sample}.ok",
    output:
        contigs="results/genome_assembly/{sample}/contigs.fa",
        scaffolds="results/genome_assembly/{sample}/scaffolds.fa",
    log:
        "logs/genome_assembly/{sample}.log",
    benchmark:
        "benchmarks/genome_assembly/{sample}.tsv"
    conda:
        "../envs/spades.yaml"
    container:
        "docker://quay.io/biocontainers/spades:3.15.5--h95f258a_1"
    threads: 8
    resources:
        mem_mb=lambda wildcards, attempt: 32000 * attempt,
        runtime=lambda wildcards, attempt: 1440 * attempt,
    params:
        mode=config["params"]["spades"]["mode"],
        kmers=config["params"]["spades"]["kmers"],
        extra=config["params"]["spades"]["extra"],
    shell:
        # SPAdes writes a folder of intermediates: assemble in a scratch one, keep the FASTA files
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT;"
        " opts=(); case {params.mode:q} in meta) opts+=(--meta) ;; isolate) opts+=(--isolate) ;;"
        " '') ;; *) echo 'spades: mode must be meta, isolate or empty' > {log:q}; exit 1 ;; esac;"
        ' kmers={params.kmers:q}; [ -n "$kmers" ] && opts+=(-k "$kmers");'
        ' mem=$(( {resources.mem_mb} / 1024 )); [ "$mem" -ge 1 ] || mem=1;'
        " reads=(-1 {input.reads_1:q} -2 {input.reads_2:q});"
        ' spades.py -t {threads} -m "$mem" "${{opts[@]}}" "${{reads[@]}}" {params.extra} -o "$tmp/spades" > {log:q} 2>&1'
        ' && cp "$tmp/spades/contigs.fasta" {output.contigs:q}'
        ' && if [ -s "$tmp/spades/scaffolds.fasta" ]; then cp "$tmp/spades/scaffolds.fasta" {output.scaffolds:q};'
        ' else cp "$tmp/spades/contigs.fasta" {output.scaffolds:q}; fi'

rule genome_assembly:
    input:
        reads=sample_file("fastq"),
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
        # metaSPAdes assembles paired-end libraries only
        " case {params.mode:q} in meta) echo 'metaSPAdes needs paired-end reads: set params mode to isolate or empty, or assemble with MEGAHIT' > {log:q}; exit 1 ;; esac;"
        " reads=(-s {input.reads:q});"
        ' spades.py -t {threads} -m "$mem" "${{opts[@]}}" "${{reads[@]}}" {params.extra} -o "$tmp/spades" > {log:q} 2>&1'
        ' && cp "$tmp/spades/contigs.fasta" {output.contigs:q}'
        ' && if [ -s "$tmp/spades/scaffolds.fasta" ]; then cp "$tmp/spades/scaffolds.fasta" {output.scaffolds:q};'
        ' else cp "$tmp/spades/contigs.fasta" {output.scaffolds:q}; fi'

rule check_paired_end_reads:
    input:
        reads_1=all_sample_files("fastq_1"),
        reads_2=all_sample_files("fastq_2"),
    output:
        ok="results/checks/check_paired_end_reads.ok",
    log:
        "logs/checks/check_paired_end_reads.log",
    retries: 0
    group:
        "checks_single_cell_quantification"
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
        guarded_step="single_cell_quantification",
        datatypes={"reads_1": "raw_reads", "reads_2": "raw_reads"},
    script:
        "../scripts/check_paired_mates.py"


rule check_reference_genome:
    input:
        genome=config["inputs"]["reference_genome"],
    output:
        ok="results/checks/check_reference_genome.ok",
    log:
        "logs/checks/check_reference_genome.log",
    retries: 0
    group:
        "checks_single_cell_quantification"
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 12 * attempt,
    params:
        constraint="requires_reference_genome",
        guarded_step="single_cell_quantification",
        datatypes={"genome": "reference_genome"},
    script:
        "../scripts/check_reference_genome.py"


rule check_gene_annotation:
    input:
        genome=config["inputs"]["reference_genome"],
        annotation=config["inputs"]["gene_annotation"],
    output:
        ok="results/checks/check_gene_annotation.ok",
    log:
        "logs/checks/check_gene_annotation.log",
    retries: 0
    group:
        "checks_single_cell_quantification"
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 12 * attempt,
    params:
        constraint="requires_gene_annotation",
        guarded_step="single_cell_quantification",
        datatypes={"annotation": "gene_annotation", "genome": "reference_genome"},
    script:
        "../scripts/check_gene_annotation.py"


rule single_cell_quantification:
    input:
        reads_1=all_sample_files("fastq_1"),
        reads_2=all_sample_files("fastq_2"),
        genome=config["inputs"]["reference_genome"],
        annotation=config["inputs"]["gene_annotation"],
        check_paired_end_reads="results/checks/check_paired_end_reads.ok",
        check_reference_genome="results/checks/check_reference_genome.ok",
        check_gene_annotation="results/checks/check_gene_annotation.ok",
    output:
        adata=intermediate("results/single_cell_quantification/matrix.mtx.gz"),
        barcodes="results/single_cell_quantification/barcodes.tsv.gz",
        features="results/single_cell_quantification/features.tsv.gz",
        summary="results/single_cell_quantification/Summary.csv",
    log:
        "logs/single_cell_quantification.log",
    benchmark:
        "benchmarks/single_cell_quantification.tsv"
    conda:
        "../envs/star_starsolo.yaml"
    container:
        "docker://quay.io/biocontainers/star:2.7.10a--h9ee0642_0"
    threads: 8
    resources:
        mem_mb=lambda wildcards, attempt: 32000 * attempt,
        runtime=lambda wildcards, attempt: 240 * attempt,
    params:
        sa_index_nbases=config["params"]["star_starsolo"]["sa_index_nbases"],
        sjdb_overhang=config["params"]["star_starsolo"]["sjdb_overhang"],
        whitelist=config["params"]["star_starsolo"]["whitelist"],
        cb_start=config["params"]["star_starsolo"]["cb_start"],
        cb_len=config["params"]["star_starsolo"]["cb_len"],
        umi_start=config["params"]["star_starsolo"]["umi_start"],
        umi_len=config["params"]["star_starsolo"]["umi_len"],
        extra=config["params"]["star_starsolo"]["extra"],
        samples=SAMPLES,
    shell:
        # the STAR index (genome + the GTF's genes and junctions) is built here, for this step only
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT; n={params.sa_index_nbases:q};"
        ' if [ "$n" = auto ]; then n=$(awk'
        " '!/^>/ {{ s += length($0) }} END {{ n = int(log(s) / log(2) / 2 - 1);"
        " print (n > 14 ? 14 : (n < 4 ? 4 : n)) }}' {input.genome:q}); fi;"
        ' gtf={input.annotation:q}; case "$gtf" in *.gz) gunzip -c "$gtf" > "$tmp/annotation.gtf";'
        ' gtf="$tmp/annotation.gtf";; esac;'
        ' mkdir -p "$tmp/index"'
        ' && STAR --runMode genomeGenerate --runThreadN {threads} --genomeDir "$tmp/index"'
        ' --genomeFastaFiles {input.genome:q} --genomeSAindexNbases "$n" --sjdbGTFfile "$gtf"'
        " --sjdbOverhang {params.sjdb_overhang:q} --limitGenomeGenerateRAM $(({resources.mem_mb} * 1048576))"
        ' --outTmpDir "$tmp/index_tmp" --outFileNamePrefix "$tmp/index." > {log:q} 2>&1'
        # STAR reads the cDNA mates (R2) first, then the barcode + UMI mates (R1); lanes joined with commas
        " && r1=({input.reads_1:q}) && r2=({input.reads_2:q})"
        ' && cdna=$(IFS=,; echo "${{r2[*]}}") && barcodes=$(IFS=,; echo "${{r1[*]}}")'
        ' && STAR --runThreadN {threads} --genomeDir "$tmp/index" --readFilesIn "$cdna" "$barcodes"'
        ' --readFilesCommand zcat --outSAMtype None --outTmpDir "$tmp/solo_tmp" --outFileNamePrefix "$tmp/solo."'
        " --soloType CB_UMI_Simple --soloCBwhitelist {params.whitelist:q} --soloCBstart {params.cb_start}"
        " --soloCBlen {params.cb_len} --soloUMIstart {params.umi_start} --soloUMIlen {params.umi_len}"
        " {params.extra} >> {log:q} 2>&1"
        ' && gzip -c "$tmp/solo.Solo.out/Gene/raw/matrix.mtx" > {output.adata:q}'
        ' && gzip -c "$tmp/solo.Solo.out/Gene/raw/barcodes.tsv" > {output.barcodes:q}'
        ' && gzip -c "$tmp/solo.Solo.out/Gene/raw/features.tsv" > {output.features:q}'
        ' && cp "$tmp/solo.Solo.out/Gene/Summary.csv" {output.summary:q}'

rule genome_annotation:
    input:
        contigs="results/genome_assembly/{sample}/contigs.fa",
    output:
        annotation="results/genome_annotation/{sample}/prokka.gff",
        proteins="results/genome_annotation/{sample}/prokka.faa",
        genbank="results/genome_annotation/{sample}/prokka.gbk",
    log:
        "logs/genome_annotation/{sample}.log",
    benchmark:
        "benchmarks/genome_annotation/{sample}.tsv"
    conda:
        "../envs/prokka.yaml"
    container:
        "docker://quay.io/biocontainers/prokka:1.14.6--pl5321hdfd78af_4"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 240 * attempt,
    params:
        kingdom=config["params"]["prokka"]["kingdom"],
        metagenome=config["params"]["prokka"]["metagenome"],
        extra=config["params"]["prokka"]["extra"],
    shell:
        """
        # Prokka writes a folder named by --prefix: annotate in a scratch one, keep the main files
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        case {input.contigs:q} in
            *.gz) gzip -cd {input.contigs:q} >"$tmp/contigs.fa" ;;
            *) ln -s "$(readlink -f {input.contigs:q})" "$tmp/contigs.fa" ;;
        esac
        opts=()
        case "{params.metagenome}" in
            True | true | yes | 1) opts+=(--metagenome) ;;
        esac
        # GenBank allows 37 characters per contig id: longer ids are renamed by --compliant
        if grep '^>' "$tmp/contigs.fa" | awk '{{ if (length($1) > 38) bad = 1 }} END {{ exit !bad }}'; then
            opts+=(--compliant --centre bioplan)
        fi
        prokka --cpus {threads} --kingdom {params.kingdom:q} "${{opts[@]}}" {params.extra} \
            --outdir "$tmp/prokka" --prefix annotation "$tmp/contigs.fa" >{log:q} 2>&1
        cp "$tmp/prokka/annotation.gff" {output.annotation:q}
        cp "$tmp/prokka/annotation.faa" {output.proteins:q}
        cp "$tmp/prokka/annotation.gbk" {output.genbank:q}
        """

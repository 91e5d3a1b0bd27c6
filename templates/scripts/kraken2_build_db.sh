#!/bin/sh
# Builds a custom Kraken2 database offline from local genome FASTA files and a local NCBI-style
# taxonomy (the Snakemake rule and the Nextflow module of kraken2_build_custom run it; kraken2 2.1.x).
#
#   sh kraken2_build_db.sh --db DIR --taxonomy TAXONOMY [--masking BOOL] [--clean BOOL] [--threads N] \
#       [--kmer-len N] [--minimizer-len N] [--minimizer-spaces N] GENOME.fa[.gz]... [-- EXTRA...]
#
# TAXONOMY is a directory with nodes.dmp and names.dmp (and optionally NCBI *.accession2taxid
# files), or NCBI's taxdump.tar.gz. Every FASTA header needs "kraken:taxid|<taxid>"
# (">contig1|kraken:taxid|562"), unless the taxonomy holds *.accession2taxid files. BOOL is
# true/True/yes/1 or anything else for false. The words after `--` are the extra options of
# `kraken2-build --build` (the `extra` parameter every rule has).
set -eu

db=
taxonomy=
masking=false
clean=false
threads=1
kmer_len=35
minimizer_len=31
minimizer_spaces=7
while [ "$#" -gt 0 ]; do
    case $1 in
        --db) db=$2; shift 2 ;;
        --taxonomy) taxonomy=$2; shift 2 ;;
        --masking) masking=$2; shift 2 ;;
        --clean) clean=$2; shift 2 ;;
        --threads) threads=$2; shift 2 ;;
        --kmer-len) kmer_len=$2; shift 2 ;;
        --minimizer-len) minimizer_len=$2; shift 2 ;;
        --minimizer-spaces) minimizer_spaces=$2; shift 2 ;;
        --) break ;;
        -*) echo "kraken2_build_db.sh: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
done
# the genomes stay in "$@"; the words after -- are the extra options
extra=
in_extra=no
n=$#
while [ "$n" -gt 0 ]; do
    arg=$1
    shift
    n=$((n - 1))
    if [ "$in_extra" = yes ]; then
        extra="$extra $arg"
    elif [ "$arg" = -- ]; then
        in_extra=yes
    else
        set -- "$@" "$arg"
    fi
done
if [ -z "$db" ] || [ -z "$taxonomy" ] || [ "$#" -eq 0 ]; then
    echo "kraken2_build_db.sh: --db, --taxonomy and at least one genome FASTA are required" >&2
    exit 2
fi
is_true() {
    case $1 in
        True | true | yes | 1) return 0 ;;
        *) return 1 ;;
    esac
}

mkdir -p "$db/taxonomy"
acc=no
if [ -d "$taxonomy" ]; then
    cp "$taxonomy/nodes.dmp" "$taxonomy/names.dmp" "$db/taxonomy/"
    for m in "$taxonomy"/*.accession2taxid; do
        if [ -e "$m" ]; then
            ln -s "$(readlink -f "$m")" "$db/taxonomy/"
            acc=yes
        fi
    done
else
    tar -xzf "$taxonomy" -C "$db/taxonomy" nodes.dmp names.dmp
fi

# One library file in input order: a reproducible seqid2taxid.map and database.
fasta="$db/genomes_to_add.fna"
: >"$fasta"
for f in "$@"; do
    case $f in
        *.gz) gzip -dc -- "$f" | awk 1 >>"$fasta" ;;
        *) awk 1 "$f" >>"$fasta" ;;
    esac
done
n_seq=$(grep -c '^>' "$fasta" || true)
n_tax=$(grep -c '^>.*kraken:taxid|[0-9]' "$fasta" || true)
if [ "$n_seq" -eq 0 ]; then
    echo "ERROR: the genome FASTA files hold no FASTA record" >&2
    exit 1
fi
if [ "$n_tax" -ne "$n_seq" ] && [ "$acc" = no ]; then
    {
        echo "ERROR: only $n_tax of $n_seq FASTA headers carry kraken:taxid|<taxid>."
        echo "Add the taxid to every header (>seqid|kraken:taxid|562 description)"
        echo "or put NCBI *.accession2taxid files next to nodes.dmp/names.dmp."
        grep '^>' "$fasta" | grep -v 'kraken:taxid|[0-9]' | head -n 5
    } >&2
    exit 1
fi

mask=--no-masking
if is_true "$masking"; then
    mask=  # low-complexity masking needs dustmasker (NCBI BLAST+) on PATH
fi
# shellcheck disable=SC2086  # $mask is one option or none
kraken2-build --add-to-library "$fasta" --db "$db" $mask
rm -f "$fasta"
set -f  # the extra options below are split into words, never globbed
# OMP_NUM_THREADS: build_db refuses more threads than OpenMP allows ("OMP only wants you to use 1 threads",
# exit 64), and many clusters and job environments set OMP_NUM_THREADS=1
# shellcheck disable=SC2086  # $extra: the extra options, one word each
OMP_NUM_THREADS=$threads kraken2-build --build --db "$db" --threads "$threads" \
    --kmer-len "$kmer_len" \
    --minimizer-len "$minimizer_len" \
    --minimizer-spaces "$minimizer_spaces" $extra
if is_true "$clean"; then
    kraken2-build --clean --db "$db"
fi

#!/bin/sh
# Removes the mitochondrial reads of a coordinate-sorted BAM, and every read whose mate is on the
# mitochondrial contig (no orphan mate is left), keeping the order, and indexes the result (the
# Snakemake rule and the Nextflow module of samtools_mito_filter run it; samtools 1.16 or later).
#
#   sh mito_filter.sh --contigs LIST [--threads N] IN.bam OUT.bam OUT.bam.bai [-- EXTRA...]
#
# LIST is the comma-separated candidate names of the mitochondrial contig (chrM,MT,M,...); those the
# BAM header has go, with a samtools filter expression (samtools view -e 'rname != "chrM" && mrname !=
# "chrM"'), and stdout counts the removed reads. None of them in the header: every read is kept (the BAM
# is copied) and stdout says so. A name is letters, digits, _ . : - and anything else is refused before
# use (a name goes into the filter expression). The words after `--` are extra options of
# `samtools view` (the `extra` parameter every rule has), passed as they are.
set -eu

contigs=
threads=1
while [ "$#" -gt 0 ]; do
    case $1 in
        --contigs) contigs=$2; shift 2 ;;
        --threads) threads=$2; shift 2 ;;
        --) break ;;
        -*) echo "mito_filter.sh: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
done
if [ "$#" -lt 3 ] || { [ "$#" -gt 3 ] && [ "$4" != -- ]; }; then
    echo "mito_filter.sh: IN.bam OUT.bam OUT.bam.bai are required, then -- before the extra options" >&2
    exit 2
fi
in=$1 out=$2 bai=$3
shift 3
if [ "$#" -gt 0 ]; then
    shift  # the --; the extra options stay in "$@"
fi

set -f  # the names are split on commas and blanks, never globbed
names=$(printf '%s' "$contigs" | tr ',' '\n')
for c in $names; do  # every name is checked before any is used
    case $c in
        *[!A-Za-z0-9_.:-]*)
            echo "mito_contigs: '$c' is not a contig name (letters, digits, _ . : -)" >&2
            exit 1
            ;;
    esac
done

# the removed reads are a temporary BAM beside the output (they can be half of an ATAC-seq library)
tmp=$(mktemp -d "$out.tmp.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT
trap 'exit 130' HUP INT TERM
samtools view -H "$in" >"$tmp/header"
grep '^@SQ' "$tmp/header" | tr '\t' '\n' | sed -n 's/^SN://p' >"$tmp/contigs"

found=
expr=
for c in $names; do
    if grep -Fx -- "$c" "$tmp/contigs" >/dev/null; then
        found="$found $c"
        if [ -n "$expr" ]; then
            expr="$expr && "
        fi
        expr="$expr"'rname != "'"$c"'" && mrname != "'"$c"'"'
    fi
done

if [ -z "$found" ]; then
    echo "no mitochondrial contig ($contigs) in the BAM header: every read kept"
    cp -- "$in" "$out"
else
    samtools view -@ "$threads" -b -e "$expr" -U "$tmp/mito.bam" "$@" -o "$out" "$in"
    echo "removed $(samtools view -c "$tmp/mito.bam") reads on or with a mate on:$found"
fi
samtools index "$out" "$bai"

#!/bin/sh
# Compares peak sets pairwise with bedtools (intersect, jaccard, multiinter). Each set (a narrowPeak,
# broadPeak or BED file, plain or gzipped) is read as its intervals, sorted and merged first, so a peak
# called twice in one set counts once.
#
#   sh peak_set_overlap.sh PAIRS.tsv JACCARD.tsv MULTIINTER.tsv NAME1 FILE1 NAME2 FILE2 [NAME FILE ...]
#
# PAIRS.tsv: one row per pair of sets: set_a, set_b, peaks_a, peaks_b, a_overlapping_b (peaks of a
# overlapping any peak of b by at least 1 bp), b_overlapping_a, unique_a, unique_b, intersection_bp,
# union_bp, jaccard (bedtools jaccard: shared bases over covered bases).
# JACCARD.tsv: the sets x sets Jaccard matrix (1 on the diagonal).
# MULTIINTER.tsv: the genome cut where the sets' peaks begin and end, each piece with the number and
# the names of the sets covering it (bedtools multiinter -header): the pieces of one set only are its
# unique regions, those of every set the common ones.
set -eu
pairs=$1 jaccard=$2 multiinter=$3
shift 3
if [ $(($# % 2)) -ne 0 ] || [ $# -lt 4 ]; then
    echo "peak_set_overlap.sh: two peak sets or more are needed (NAME FILE pairs), got: $*" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf -- "$tmp"' EXIT
n=0
names=""
while [ $# -gt 0 ]; do
    n=$((n + 1))
    name=$1 file=$2
    shift 2
    case "$file" in
        *.gz) reader="gzip -cd" ;;
        *) reader="cat" ;;
    esac
    $reader -- "$file" | awk 'BEGIN { OFS = "\t" } !/^(#|track|browser)/ && NF >= 3 { print $1, $2, $3 }' \
        | LC_ALL=C sort -k1,1 -k2,2n | bedtools merge -i - > "$tmp/$n.bed"
    if [ ! -s "$tmp/$n.bed" ]; then
        echo "peak_set_overlap.sh: the peak set of $name ($file) holds no interval" >&2
        exit 1
    fi
    printf '%s\n' "$name" > "$tmp/$n.name"
    names="$names $n"
done
# bedtools jaccard prints a header line and: intersection union jaccard n_intersections
jaccard_of() {
    bedtools jaccard -a "$tmp/$1.bed" -b "$tmp/$2.bed" | awk 'NR == 2 { print $1 "\t" $2 "\t" $3 }'
}
printf 'set_a\tset_b\tpeaks_a\tpeaks_b\ta_overlapping_b\tb_overlapping_a\tunique_a\tunique_b\tintersection_bp\tunion_bp\tjaccard\n' > "$pairs"
for i in $names; do
    for j in $names; do
        [ "$i" -lt "$j" ] || continue
        peaks_a=$(wc -l < "$tmp/$i.bed" | tr -d ' ')
        peaks_b=$(wc -l < "$tmp/$j.bed" | tr -d ' ')
        a_in_b=$(bedtools intersect -u -a "$tmp/$i.bed" -b "$tmp/$j.bed" | wc -l | tr -d ' ')
        b_in_a=$(bedtools intersect -u -a "$tmp/$j.bed" -b "$tmp/$i.bed" | wc -l | tr -d ' ')
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(cat "$tmp/$i.name")" "$(cat "$tmp/$j.name")" \
            "$peaks_a" "$peaks_b" "$a_in_b" "$b_in_a" $((peaks_a - a_in_b)) $((peaks_b - b_in_a)) \
            "$(jaccard_of "$i" "$j")" >> "$pairs"
    done
done
{
    printf 'set'
    for i in $names; do printf '\t%s' "$(cat "$tmp/$i.name")"; done
    printf '\n'
    for i in $names; do
        printf '%s' "$(cat "$tmp/$i.name")"
        for j in $names; do
            if [ "$i" -eq "$j" ]; then printf '\t1'; else printf '\t%s' "$(jaccard_of "$i" "$j" | cut -f 3)"; fi
        done
        printf '\n'
    done
} > "$jaccard"
set --
for i in $names; do set -- "$@" "$tmp/$i.bed"; done
labels=""
for i in $names; do labels="$labels $(cat "$tmp/$i.name")"; done
# shellcheck disable=SC2086  # the names are sample ids (no blanks): one word each
bedtools multiinter -header -i "$@" -names $labels > "$multiinter"

#!/bin/sh
# Writes the transcripts of a GTF (plain or gzipped) as BED12, the gene model RSeQC reads: one line
# per transcript_id with its exons as blocks and its CDS (from the CDS lines) as the thick part,
# sorted by chromosome and start. A transcript without CDS lines is non-coding (thickStart =
# thickEnd = start, the BED convention), so RSeQC counts its tags as UTR, never as CDS.
#
#   sh gtf_to_bed12.sh genes.gtf > genes.bed
#
# Portable awk (Debian's mawk as well as gawk): the features are first sorted by transcript and start
# with sort(1), so each transcript's exons arrive together and in order. A GTF without exon lines is
# an error, never an empty gene model (RSeQC would then report every read as unassigned).
set -eu
gtf=$1
case "$gtf" in
    *.gz) reader="gzip -cd" ;;
    *) reader="cat" ;;
esac
bed=$(mktemp)
trap 'rm -f -- "$bed"' EXIT
tab=$(printf '\t')
$reader -- "$gtf" | awk -F '\t' '
    $0 !~ /^#/ && ($3 == "exon" || $3 == "CDS") {
        if (match($9, /transcript_id "[^"]*"/) == 0) next
        tid = substr($9, RSTART + 15, RLENGTH - 16)
        printf "%s\t%s\t%d\t%d\t%s\t%s\n", tid, $1, $4 - 1, $5, $7, $3
    }' | sort -t "$tab" -k1,1 -k3,3n | awk -F '\t' -v OFS='\t' '
    function flush() {
        if (tid == "" || n == 0) return
        if (cmin == "") { cmin = tstart; cmax = tstart }
        print chrom, tstart, tend, tid, 0, strand, cmin, cmax, 0, n, sizes, starts
    }
    $1 != tid {
        flush()
        tid = $1; chrom = $2; strand = $5; tstart = ""; tend = 0; n = 0; sizes = ""; starts = ""; cmin = ""; cmax = ""
    }
    $6 == "CDS" {
        if (cmin == "" || $3 < cmin) cmin = $3
        if ($4 > cmax) cmax = $4
        next
    }
    {
        if (tstart == "") tstart = $3
        if ($4 > tend) tend = $4
        sizes = sizes ($4 - $3) ","
        starts = starts ($3 - tstart) ","
        n++
    }
    END { flush() }' | sort -t "$tab" -k1,1 -k2,2n > "$bed"
if [ ! -s "$bed" ]; then
    echo "gtf_to_bed12.sh: $gtf has no exon lines with a transcript_id (a GTF of gene models is needed)" >&2
    exit 1
fi
cat -- "$bed"

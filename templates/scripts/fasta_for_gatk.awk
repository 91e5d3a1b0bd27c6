#!/usr/bin/awk -f
# Rewrites a FASTA with 60 bases per line and writes its samtools-style index (.fai) beside it,
# for GATK, which needs <genome>.fai and <genome>.dict and whose bioconda image has no samtools.
#
#   awk -f fasta_for_gatk.awk fai=ref/genome.fa.fai genome.fa > ref/genome.fa
#
# Each .fai line is: name, length, offset of the first base, bases per line (60, or the length
# of a shorter record) and bytes per line. Blanks and carriage returns inside sequence lines are
# dropped; the name is the header up to the first blank, as samtools and GATK read it. POSIX awk
# (mawk, gawk, busybox): no gawk extensions.

function flush_record() {
    if (name == "")
        return
    if (buf != "") {
        print buf
        offset += length(buf) + 1
        buf = ""
    }
    width = len < 60 ? len : 60  # a one-line record: its own width, as samtools faidx writes it
    printf "%s\t%d\t%d\t%d\t%d\n", name, len, start, width, width + 1 > fai
}

/^>/ {
    flush_record()
    name = substr($1, 2)
    print $0
    offset += length($0) + 1
    start = offset
    len = 0
    next
}

{
    gsub(/[ \t\r]/, "")
    buf = buf $0
    len += length($0)
    while (length(buf) >= 60) {
        print substr(buf, 1, 60)
        buf = substr(buf, 61)
        offset += 61
    }
}

END {
    flush_record()
    if (name == "") {
        print "fasta_for_gatk.awk: no FASTA record (no '>' header) in the reference" > "/dev/stderr"
        exit 1
    }
}

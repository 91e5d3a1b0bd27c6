#!/usr/bin/awk -f
# The two table steps around VSEARCH's OTU clustering of ASVs (tool vsearch_cluster, operation
# otu_clustering), as nf-core/ampliseq's post-clustering does it. POSIX awk (mawk, gawk, busybox).
#
#   awk -f otu_table.awk mode=fasta asv_table.tsv > asvs.fa
#       every ASV with reads as '>asv_id;size=total reads' and its sequence, for vsearch --sizein
#   awk -f otu_table.awk mode=table members=clusters.tsv clusters.uc asv_table.tsv > otu_table.tsv
#       the ASV table's layout (asv_id, sequence, one count column per sample) with one row per OTU:
#       named after its centroid ASV (the most abundant one, which vsearch --cluster_size seeds it
#       with), the centroid's sequence, each sample's reads of all its member ASVs summed; rows in
#       the ASV table's order of the centroids. `members` gets asv_id, otu_id for every ASV.
#
# asv_table.tsv: header 'asv_id<TAB>sequence<TAB>sample...' (the DADA2 steps' layout), counts
# non-negative integers. An ASV without reads is in no OTU (and not in the members table).

function fail(message) {
    print "ERROR: " message > "/dev/stderr"
    failed = 1
    exit 1
}

function label(text) {  # a vsearch label without the ';size=N' annotation
    sub(/;size=[0-9]+;?$/, "", text)
    return text
}

BEGIN {
    FS = OFS = "\t"
}

FNR == 1 && mode != "fasta" && mode != "table" {  # operands assign after BEGIN
    fail("mode must be fasta or table (mode=fasta or mode=table before the files)")
}

mode == "table" && FILENAME ~ /\.uc$/ {
    # S: a centroid (col 9); H: col 9 joins the cluster of centroid col 10; C: cluster summaries
    if ($1 == "S")
        otu[label($9)] = label($9)
    else if ($1 == "H")
        otu[label($9)] = label($10)
    next
}

FNR == 1 {
    sub(/\r$/, "")
    if ($1 != "asv_id" || $2 != "sequence" || NF < 3)
        fail(FILENAME ": not an ASV table (header asv_id, sequence, then one column per sample)")
    if (mode == "table")
        print
    n = NF
    next
}

{
    sub(/\r$/, "")
    total = 0
    for (i = 3; i <= n; i++) {
        if ($i !~ /^[0-9]+$/)
            fail(FILENAME ", line " FNR ": the count '" $i "' is not a non-negative integer")
        total += $i
    }
    if (mode == "fasta") {
        if (total > 0)
            print ">" $1 ";size=" total "\n" $2
        next
    }
    if (total == 0)
        next
    if (!($1 in otu))
        fail("ASV " $1 " has reads but is in no OTU of the clustering")
    c = otu[$1]
    if (members != "")
        print $1, c > members
    if (!(c in seen)) {
        seen[c] = 1
        order[++k] = c
    }
    if ($1 == c)
        seq[c] = $2
    for (i = 3; i <= n; i++)
        sum[c, i] += $i
}

END {
    if (failed || mode != "table")
        exit failed
    for (j = 1; j <= k; j++) {
        c = order[j]
        line = c OFS seq[c]
        for (i = 3; i <= n; i++)
            line = line OFS sum[c, i]
        print line
    }
}

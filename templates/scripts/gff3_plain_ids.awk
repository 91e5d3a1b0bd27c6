#!/usr/bin/awk -f
# Makes the ids of a GTF written by `gffread -T` from an Ensembl-style GFF3 plain again.
#
#   awk -f gff3_plain_ids.awk annotation.gff3 raw.gtf > annotation.gtf
#
# An Ensembl GFF3 names its features "gene:ENSG..." / "transcript:ENST..." (ID=) and carries the
# plain ids in gene_id= / transcript_id= and the gene symbol in Name=; gffread copies the prefixed
# IDs into the GTF. The first file (the GFF3) maps every ID to its plain id (the feature's gene_id= or
# transcript_id= attribute) and keeps gene_name (Name=) and gene_biotype (biotype=) of the gene
# records (type *gene). Each line of the second file (the GTF) is rewritten with the plain
# transcript_id and gene_id (else the id without its prefix) and the gene's name and biotype, so
# SnpEff and VEP report gene ids and symbols. The GTF keeps only these attributes, which is all
# SnpEff and VEP read. POSIX awk (mawk, gawk, busybox): no gawk extensions.

BEGIN {
    FS = "\t"
    OFS = "\t"
    q = "\""
}

# The value of `key=` in a GFF3 attribute column ("ID=gene:ENSG1;Name=Abc"), "" when absent.
function gff(attributes, key,    n, i, pairs) {
    n = split(attributes, pairs, ";")
    for (i = 1; i <= n; i++)
        if (index(pairs[i], key "=") == 1)
            return substr(pairs[i], length(key) + 2)
    return ""
}

# The value of `key "value"` in a GTF attribute column, "" when absent.
function gtf(attributes, key) {
    if (match(attributes, key " " q "[^" q "]*" q))
        return substr(attributes, RSTART + length(key) + 2, RLENGTH - length(key) - 3)
    return ""
}

# First file: the GFF3
FNR == NR {
    if ($0 ~ /^#/ || NF < 9)
        next
    id = gff($9, "ID")
    if (id == "")
        next
    plain = gff($9, "gene_id")
    if (plain == "")
        plain = gff($9, "transcript_id")
    if (plain != "")
        ids[id] = plain
    if ($3 ~ /gene$/) {
        if (gff($9, "Name") != "")
            name[id] = gff($9, "Name")
        if (gff($9, "biotype") != "")
            biotype[id] = gff($9, "biotype")
    }
    next
}

# Second file: the GTF gffread wrote
{
    t = gtf($9, "transcript_id")
    g = gtf($9, "gene_id")
    plain_t = (t in ids) ? ids[t] : t
    sub(/^transcript:/, "", plain_t)
    plain_g = (g in ids) ? ids[g] : g
    sub(/^gene:/, "", plain_g)
    attributes = "transcript_id " q plain_t q "; gene_id " q plain_g q ";"
    if (g in name)
        attributes = attributes " gene_name " q name[g] q ";"
    if (g in biotype)
        attributes = attributes " gene_biotype " q biotype[g] q ";"
    $9 = attributes
    print
}

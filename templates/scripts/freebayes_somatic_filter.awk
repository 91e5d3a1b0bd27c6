#!/usr/bin/awk -f
# Somatic calls of one individual from FreeBayes' joint VCF of its tumour(s) and matched normal
# (called together with --pooled-continuous, as nf-core/sarek's FreeBayes somatic mode): a record is
# PASS when a tumour has at least `min_alt` reads of one ALT allele, at least `min_vaf` of its depth,
# while the normal (the sample named `normal`) has at most `max_normal_alt` ALT reads over at least
# `min_normal_depth` reads. Otherwise FILTER says why: weak_tumour, normal_evidence, low_normal_depth.
# Every record is kept (FILTER marks the germline and the weak ones, as FilterMutectCalls does).
#
#   awk -f freebayes_somatic_filter.awk normal=NAME min_alt=3 min_vaf=0.05 max_normal_alt=0 \
#       min_normal_depth=5 joint.vcf > somatic.vcf
BEGIN { FS = OFS = "\t" }
/^##/ { print; next }
/^#CHROM/ {
    if (normal == "") {
        print "freebayes_somatic_filter: no normal sample named (normal_sample): FreeBayes somatic calls a " \
              "tumour against its matched normal" > "/dev/stderr"
        failed = 1; exit 2
    }
    for (i = 10; i <= NF; i++) if ($i == normal) normal_col = i
    if (!normal_col) {
        print "freebayes_somatic_filter: the normal sample '" normal "' is not a sample of the VCF " \
              "(its read-group SM)" > "/dev/stderr"
        failed = 1; exit 2
    }
    print "##FILTER=<ID=weak_tumour,Description=\"No tumour has " min_alt "+ reads of an ALT allele at " \
          min_vaf "+ of its depth\">"
    print "##FILTER=<ID=normal_evidence,Description=\"The normal has more than " max_normal_alt \
          " ALT reads: germline or artefact\">"
    print "##FILTER=<ID=low_normal_depth,Description=\"The normal has fewer than " min_normal_depth \
          " reads: the variant may be germline\">"
    print "##bioplan_somatic_filter=normal:" normal
    print; next
}
{
    n = split($9, keys, ":")
    ao = dp = 0
    for (k = 1; k <= n; k++) {
        if (keys[k] == "AO") ao = k
        if (keys[k] == "DP") dp = k
    }
    tumour_support = 0
    for (i = 10; i <= NF; i++) {
        if (i == normal_col) continue
        split($i, v, ":")
        depth = v[dp] + 0
        m = split(v[ao], alts, ",")
        for (a = 1; a <= m; a++)
            if (alts[a] + 0 >= min_alt && depth > 0 && (alts[a] + 0) / depth >= min_vaf) tumour_support = 1
    }
    split($normal_col, v, ":")
    normal_depth = v[dp] + 0
    normal_alt = 0
    m = split(v[ao], alts, ",")
    for (a = 1; a <= m; a++) normal_alt += alts[a] + 0
    if (!tumour_support) $7 = "weak_tumour"
    else if (normal_alt > max_normal_alt) $7 = "normal_evidence"
    else if (normal_depth < min_normal_depth) $7 = "low_normal_depth"
    else $7 = "PASS"
    print
}
END { if (failed) exit 2 }

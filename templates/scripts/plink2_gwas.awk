#!/usr/bin/awk -f
# The phenotype and covariate files of the association test (tool plink2_glm, operation association_test), read
# from the user's phenotype table before PLINK 2 runs. POSIX awk (mawk, gawk, busybox).
#
#   awk -f plink2_gwas.awk mode=pheno column=NAME want=auto|binary|quantitative out=PHENO_FILE TABLE
#       checks the phenotype column (NAME, or the first column after the ids when empty) and prints the trait's
#       kind (binary or quantitative) on stdout; writes the ids and the phenotype to PHENO_FILE, a binary trait
#       recoded as PLINK's 1 control / 2 case (from 1/2, 0/1 or case/control), missing values as NA
#   awk -f plink2_gwas.awk mode=covar column=NAME covariates=LIST|none n_pcs=N EIGENVEC TABLE
#       prints the covariate file: the table's ids, the first N principal components of EIGENVEC (matched by
#       IID), then the covariates (empty LIST: every table column but the ids and the phenotype)
#
# iid_only=1 (both modes) writes the IIDs alone: the genotypes' .psam has no FIDs (a VCF's samples), and PLINK 2
# matches a file of FIDs to no individual then.
# A table it cannot use stops it with exit status 1 and a message on stderr naming the file and the fix.
# The table's header starts FID IID, #FID IID, #IID or IID (PLINK's id columns); fields split on tabs when the
# header has one, else on blanks.

function fail(message) {
    printf "ERROR: %s\n", message > "/dev/stderr"
    failed = 1
    exit 1
}

function split_line(line, arr) {
    if (tabbed) return split(line, arr, "\t")
    return split(line, arr)
}

function is_missing(v) {
    return v == "" || v == "NA" || v == "na" || v == "nan" || v == "NaN" || v == "-9" || v == "."
}

function is_number(v) {
    return v ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/
}

function read_header(line, file) {
    tabbed = index(line, "\t") > 0
    ncol = split_line(line, head)
    if ((head[1] == "#FID" || head[1] == "FID") && head[2] == "IID") nid = 2
    else if (head[1] == "#IID" || head[1] == "IID") nid = 1
    else fail("'" file "' has no PLINK id columns: its header must start FID IID, #FID IID, #IID or IID " \
              "(found '" head[1] "'). Name the id columns as PLINK does, the ids as in the .fam/.psam.")
    if (ncol <= nid) fail("'" file "' has the id columns only: add the phenotype column.")
    pcol = nid + 1
    if (column != "") {
        pcol = 0
        names = ""
        for (i = nid + 1; i <= ncol; i++) {
            if (head[i] == column) pcol = i
            names = names (names == "" ? "" : ", ") head[i]
        }
        if (!pcol) fail("the phenotype column '" column "' is not in '" file "' (its columns after the ids: " \
                        names "). Set params.plink2_glm.phenotype to one of them.")
    }
}

function id_header(   s) {
    s = nid == 2 && !iid_only ? "#FID\tIID" : "#IID"
    return s
}

function ids(arr) {
    if (nid == 2) return iid_only ? arr[2] : arr[1] "\t" arr[2]
    return arr[1]
}

mode == "pheno" && FNR == 1 { read_header($0, FILENAME); next }
mode == "pheno" {
    if ($0 ~ /^[ \t]*$/) next
    n = split_line($0, f)
    rows++
    row_ids[rows] = ids(f)
    v = f[pcol]
    value[rows] = v
    if (is_missing(v)) next
    present++
    low = tolower(v)
    if (low == "case" || low == "affected") cases++
    else if (low == "control" || low == "unaffected") controls++
    else if (!is_number(v)) text = text == "" ? v : text
    else {
        if (v + 0 != 0 && v + 0 != 1 && v + 0 != 2) other++
        if (v + 0 == 0) zeros++
        if (v + 0 == 2) twos++
        if (!(v in seen)) { seen[v] = 1; distinct++ }
    }
}

mode == "covar" && FNR == NR {  # the principal components: #FID IID or #IID, then PC1..
    if (FNR == 1) {
        pc_tabbed = index($0, "\t") > 0
        np = pc_tabbed ? split($0, ph, "\t") : split($0, ph)
        pc_first = (ph[1] == "#FID" || ph[1] == "FID") ? 3 : 2
        pc_iid = pc_first - 1
        if (n_pcs + 0 > np - pc_first + 1)
            fail("the principal components file has " (np - pc_first + 1) " components; " n_pcs \
                 " were asked (params.plink2_glm.n_pcs is at most params.plink2_pca.n_pcs)")
        next
    }
    np = pc_tabbed ? split($0, pf, "\t") : split($0, pf)
    pcs = ""
    for (i = pc_first; i < pc_first + n_pcs; i++) pcs = pcs "\t" pf[i]
    pc_of[pf[pc_iid]] = pcs
    next
}
mode == "covar" && FNR == 1 {
    read_header($0, FILENAME)
    chosen = 0
    if (covariates == "none") chosen = 0
    else if (covariates == "") {
        for (i = nid + 1; i <= ncol; i++) if (i != pcol) cov[++chosen] = i
    } else {
        k = split(covariates, want_cov, ",")
        for (j = 1; j <= k; j++) {
            found = 0
            for (i = nid + 1; i <= ncol; i++) if (head[i] == want_cov[j]) found = i
            if (!found) fail("the covariate '" want_cov[j] "' is not in '" FILENAME "'. Set params.plink2_glm." \
                             "covariates to columns of the table (comma-separated), empty for all, none for none.")
            cov[++chosen] = found
        }
    }
    line = id_header()
    for (i = 1; i <= n_pcs; i++) line = line "\tPC" i
    for (j = 1; j <= chosen; j++) line = line "\t" head[cov[j]]
    print line
    next
}
mode == "covar" {
    if ($0 ~ /^[ \t]*$/) next
    split_line($0, f)
    iid = nid == 2 ? f[2] : f[1]
    if (!(iid in pc_of)) next  # not genotyped, or removed by the QC: left out
    line = ids(f) pc_of[iid]
    for (j = 1; j <= chosen; j++) line = line "\t" (is_missing(f[cov[j]]) ? "NA" : f[cov[j]])
    print line
}

END {
    if (failed || mode != "pheno") exit failed
    if (!present) fail("the phenotype column '" head[pcol] "' of '" FILENAME "' has no values (all missing).")
    if (text != "" && cases + controls == 0)
        fail("the phenotype column '" head[pcol] "' holds text ('" text "'): give numbers (a quantitative trait) " \
             "or 1/2, 0/1 or case/control (a binary trait).")
    if (cases + controls > 0) { kind = "binary"; coding = "words" }
    else if (!other && !zeros && distinct == 2) { kind = "binary"; coding = "12" }
    else if (!other && !twos && distinct == 2) { kind = "binary"; coding = "01" }
    else if (!other && distinct <= 3 && twos) { kind = "binary"; coding = "12" }  # PLINK: 0 is missing
    else kind = "quantitative"
    if (want != "" && want != "auto" && want != kind)
        fail("the plan tests a " want " trait, but the phenotype column '" head[pcol] "' of '" FILENAME \
             "' holds a " kind " one. Give the phenotype the plan was compiled for, or compile again.")
    print id_header() "\t" head[pcol] > out
    n_case = 0; n_control = 0
    for (r = 1; r <= rows; r++) {
        v = value[r]
        if (is_missing(v)) v = "NA"
        else if (coding == "01") v = v + 1
        else if (coding == "words") v = (tolower(v) == "case" || tolower(v) == "affected") ? 2 : 1
        else if (coding == "12" && v + 0 == 0) v = "NA"
        if (kind == "binary" && v == 2) n_case++
        if (kind == "binary" && v == 1) n_control++
        print row_ids[r] "\t" v > out
    }
    if (kind == "binary" && (n_case == 0 || n_control == 0))
        fail("the binary phenotype '" head[pcol] "' of '" FILENAME "' has " n_case " cases and " n_control \
             " controls: a case-control test needs both.")
    print kind
}

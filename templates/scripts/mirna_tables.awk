#!/usr/bin/awk -f
# The two table steps of known-miRNA quantification (tools bowtie_build_mirna and mirna_counts,
# operations mirna_indexing and mirna_quantification), as nf-core/smrnaseq's MIRNA_QUANT does
# them (its FORMAT_FASTA_MIRNA / PARSE_FASTA_MIRNA, then EDGER_QC's table of idxstats).
# POSIX awk (mawk, gawk, busybox).
#
#   awk -f mirna_tables.awk mode=mature species=hsa mature.fa > mature_dna.fa
#       the mature miRNAs of one species (names starting 'hsa-'; none given: every record, which
#       must then be of one species), each header cut to its name, U read as T, letters upper case.
#       Stops naming the fix when the file holds no miRNA of the species, several species and no
#       species was given, a name twice or an empty sequence.
#   awk -f mirna_tables.awk mode=counts a.idxstats b.idxstats ... > counts_body.tsv
#       one row per miRNA (the first file's order, the index's): its name, then column 3 (mapped
#       reads) of every file in turn; samtools idxstats' '*' line (unmapped reads) left out. The
#       header (mirna, then the sample names) is written by the caller.

function fail(message) {
    print "ERROR: " message > "/dev/stderr"
    failed = 1
    exit 1
}

function prefix(name,    i) {
    i = index(name, "-")
    return i > 1 ? substr(name, 1, i - 1) : name
}

function keep_record() {
    if (name == "")
        return
    if (seq == "")
        fail("the mature miRNA '" name "' has no sequence")
    p = prefix(name)
    if (!(p in species_seen)) {
        species_seen[p] = 1
        species_list = species_list (species_list == "" ? "" : ", ") p
        n_species++
    }
    if (species != "" && p != species)
        return
    if (name in seen)
        fail("the miRNA name '" name "' occurs twice; give each mature miRNA once")
    seen[name] = 1
    n++
    names[n] = name
    seqs[n] = seq
}

mode == "mature" && /^>/ {
    keep_record()
    name = substr($1, 2)
    sub(/\r$/, "", name)
    seq = ""
    next
}

mode == "mature" {
    line = toupper($0)
    gsub(/[ \t\r]/, "", line)
    gsub(/U/, "T", line)
    seq = seq line
    next
}

mode == "counts" && FNR == 1 {
    files++
}

mode == "counts" && $1 != "*" && NF >= 3 {
    if (files == 1) {
        n++
        names[n] = $1
    } else if (!(($1) in first)) {
        fail(FILENAME " has the reference '" $1 "', which the first alignment's index lacks")
    }
    first[$1] = 1
    count[$1, files] = $3
}

END {
    if (failed)
        exit 1
    if (mode != "mature" && mode != "counts")
        fail("mode must be mature or counts, not '" mode "'")
    if (mode == "mature") {
        keep_record()
        if (species != "" && n == 0)
            fail("no mature miRNA of species '" species "' (names starting '" species "-') in the file; it holds: " \
                 (species_list == "" ? "no records" : species_list) \
                 ". Give the species' miRBase mature sequences, or name the organism they are of in the request")
        if (species == "" && n_species > 1)
            fail("the file holds the mature miRNAs of " n_species " species (" species_list "): name the organism " \
                 "in the request, or give only the species' own (grep -A1 '^>hsa-' mature.fa for human)")
        if (n == 0)
            fail("no FASTA record in the mature miRNA file")
        for (i = 1; i <= n; i++)
            printf ">%s\n%s\n", names[i], seqs[i]
        exit 0
    }
    if (files == 0)
        fail("no idxstats file given")
    for (i = 1; i <= n; i++) {
        row = names[i]
        for (f = 1; f <= files; f++)
            row = row "\t" (((names[i], f) in count) ? count[names[i], f] : 0)
        print row
    }
}

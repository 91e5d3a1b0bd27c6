process GFFREAD_GTF {
    tag 'annotation_format_conversion'
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/gffread:0.12.7--hdcf5f25_4' :
        'biocontainers/gffread:0.12.7--hdcf5f25_4' }"

    input:
    path(annotation)

    output:
    path("${prefix}.gtf"), emit: annotation
    tuple val("${task.process}"), val('gffread_gtf'), eval('{ gffread --version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_gffread_gtf, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: 'annotation_format_conversion'
    """
    case ${annotation} in
        *.gz) gzip -cd ${annotation} > annotation.in.gff3 ;;
        *) cat ${annotation} > annotation.in.gff3 ;;
    esac
    gffread annotation.in.gff3 -T ${args} -o annotation.raw.gtf
    awk -F '\\t' -v OFS='\\t' -v q='"' '
        function gff(s, key,   n, i, kv) {
            n = split(s, kv, ";"); i = 1
            while (i <= n) { if (index(kv[i], key "=") == 1) return substr(kv[i], length(key) + 2); i++ }
            return ""
        }
        function gtf(s, key) {
            if (match(s, key " " q "[^" q "]*" q)) return substr(s, RSTART + length(key) + 2, RLENGTH - length(key) - 3)
            return ""
        }
        FNR == NR {
            if (\$0 ~ /^#/ || NF < 9) next
            id = gff(\$9, "ID")
            if (id == "") next
            plain = gff(\$9, "gene_id")
            if (plain == "") plain = gff(\$9, "transcript_id")
            if (plain != "") ids[id] = plain
            if (\$3 ~ /gene\$/) {
                if (gff(\$9, "Name") != "") name[id] = gff(\$9, "Name")
                if (gff(\$9, "biotype") != "") type[id] = gff(\$9, "biotype")
            }
            next
        }
        {
            t = gtf(\$9, "transcript_id"); g = gtf(\$9, "gene_id")
            nt = (t in ids) ? ids[t] : t; sub(/^transcript:/, "", nt)
            ng = (g in ids) ? ids[g] : g; sub(/^gene:/, "", ng)
            a = "transcript_id " q nt q "; gene_id " q ng q ";"
            if (g in name) a = a " gene_name " q name[g] q ";"
            if (g in type) a = a " gene_biotype " q type[g] q ";"
            \$9 = a
            print
        }
    ' annotation.in.gff3 annotation.raw.gtf > ${prefix}.gtf
    """

    stub:
    prefix = task.ext.prefix ?: 'annotation_format_conversion'
    """
    touch ${prefix}.gtf
    """
}

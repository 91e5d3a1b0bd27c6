process KRONA_KTIMPORTTEXT {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/krona:2.8.1--pl5321hdfd78af_1' :
        'biocontainers/krona:2.8.1--pl5321hdfd78af_1' }"

    input:
    tuple val(meta), path(classification)

    output:
    tuple val(meta), path("${prefix}.krona.html"), emit: chart
    tuple val("${task.process}"), val('krona'), eval('{ ktImportText 2>&1 | grep -o \'KronaTools [0-9.]*\' | head -n 1 | cut -d \' \' -f 2 ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_krona, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    // Kraken2 report -> Krona text (kreport2krona's role): a taxon's own reads with its lineage
    // from the name's indentation (two spaces a level), so levels without rank codes stay; the
    // root's own reads go to the chart's centre, unclassified reads to "Unclassified"
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    awk -F '\\t' 'BEGIN { OFS = "\\t" }
        {
            name = \$NF; depth = int((match(name, /[^ ]/) - 1) / 2); sub(/^ +/, "", name)
            if (\$4 == "U" || name == "unclassified") { if (\$3 > 0) print \$3, "Unclassified"; next }
            if (depth == 0) { if (\$3 > 0) print \$3; next }
            lineage[depth] = depth == 1 ? name : lineage[depth - 1] OFS name
            if (\$3 > 0) print \$3, lineage[depth]
        }' ${classification} > ${prefix}.krona.txt
    ktImportText ${args} -o ${prefix}.krona.html ${prefix}.krona.txt,${prefix}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.krona.html
    """
}

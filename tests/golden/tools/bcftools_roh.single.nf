process BCFTOOLS_ROH {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/bcftools:1.16--hfe4b78e_1' :
        'biocontainers/bcftools:1.16--hfe4b78e_1' }"

    input:
    tuple val(meta), path(vcf)

    output:
    tuple val(meta), path("${prefix}.roh.tsv"), emit: table
    tuple val(meta), path("${prefix}.roh.txt"), emit: regions
    tuple val("${task.process}"), val('bcftools'), eval('{ bcftools --version | head -n 1 ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_bcftools, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def gts_only = tp.gts_only != null ? tp.gts_only : 30
    def af_dflt = tp.af_dflt != null ? tp.af_dflt : 0.4
    // the RG lines of bcftools roh's regions output as a table, under a header of their columns
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    bcftools roh \\
        -G ${gts_only} \\
        --AF-dflt ${af_dflt} \\
        -I \\
        -O r \\
        ${args} \\
        -o ${prefix}.roh.txt \\
        ${vcf}
    awk 'BEGIN { OFS = "\\t"; print "sample", "chrom", "start", "end", "length_bp", "n_markers", "quality" } \$1 == "RG" { print \$2, \$3, \$4, \$5, \$6, \$7, \$8 }' \\
        ${prefix}.roh.txt > ${prefix}.roh.tsv
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.roh.tsv ${prefix}.roh.txt
    """
}

process MACS2_CALLPEAKREPLICATES {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/macs2:2.2.7.1--py38h4a8c8d9_3' :
        'biocontainers/macs2:2.2.7.1--py38h4a8c8d9_3' }"

    input:
    tuple val(meta), path(bams)

    output:
    tuple val(meta), path("${prefix}_peaks.narrowPeak"), emit: peaks
    tuple val(meta), path("${prefix}_summits.bed"), emit: summits
    tuple val(meta), path("${prefix}_peaks.xls"), emit: xls
    tuple val("${task.process}"), val('macs2'), eval('{ macs2 --version 2>&1 | cut -d " " -f 2 ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_macs2, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def genome_size = tp.genome_size != null ? tp.genome_size : 'auto'
    def qvalue = tp.qvalue != null ? tp.qvalue : 0.05
    // one peak set per sample (peak names start with the sample name)
    def name = meta.id
    // genome_size `auto`: the total reference length in the BAM's header
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    g='${genome_size}'
    if [ "\$g" = auto ]; then
        g=\$(python3 -c 'import gzip, struct, sys; f = gzip.open(sys.argv[1]); r = lambda: struct.unpack("<i", f.read(4))[0]; f.read(4); f.read(r()); print(sum((f.read(r()), r())[1] for _ in range(r())))' ${bams})
    fi
    mkdir -p macs2_out
    macs2 callpeak \\
        --treatment ${bams} \\
        --gsize "\$g" \\
        --format BAMPE \\
        --qvalue ${qvalue} \\
        --name ${name} \\
        --outdir macs2_out \\
        ${args}
    mv macs2_out/${name}_peaks.narrowPeak ${prefix}_peaks.narrowPeak
    mv macs2_out/${name}_summits.bed ${prefix}_summits.bed
    mv macs2_out/${name}_peaks.xls ${prefix}_peaks.xls
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}_peaks.narrowPeak ${prefix}_summits.bed ${prefix}_peaks.xls
    """
}

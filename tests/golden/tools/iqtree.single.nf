process IQTREE {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/iqtree:2.4.0--h503566f_0' :
        'biocontainers/iqtree:2.4.0--h503566f_0' }"

    input:
    tuple val(meta), path(alignment)

    output:
    tuple val(meta), path("${prefix}.treefile"), emit: tree
    tuple val(meta), path("${prefix}.iqtree"), emit: report
    tuple val("${task.process}"), val('iqtree'), eval('{ $(command -v iqtree2 || command -v iqtree) --version 2>&1 | grep -oE \'[0-9]+[.][0-9]+[.][0-9]+\' | head -n 1 ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_iqtree, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def model = tp.model ?: 'MFP'
    def bootstrap = tp.bootstrap != null ? tp.bootstrap : 1000
    def boot = bootstrap.toString() == '0' ? '' : "-B ${bootstrap}"
    def seed = tp.seed != null ? tp.seed : 12345
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    iqtree=\$(command -v iqtree2 || command -v iqtree)
    export OMP_WAIT_POLICY=PASSIVE
    "\$iqtree" -s ${alignment} -m ${model} ${boot} -seed ${seed} -T ${task.cpus} --prefix ${prefix} ${args}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.treefile ${prefix}.iqtree
    """
}

process CNVKIT_BATCH {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/cnvkit:0.9.9--pyhdfd78af_0' :
        'biocontainers/cnvkit:0.9.9--pyhdfd78af_0' }"

    input:
    tuple val(meta), val(sample_ids), path(bams, stageAs: 'bams/*')
    path(genome)

    output:
    tuple val(meta), path("${prefix}.copy_number_segments.tsv"), emit: segments
    tuple val("${task.process}"), val('cnvkit'), eval('{ $(command -v cnvkit.py || command -v cnvkit) version 2>/dev/null | tail -n 1 ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_cnvkit, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def bam_files = [bams].flatten()
    def tp = task.ext.tool_params ?: [:]
    def normals = tp.normal_samples ?: ''
    def segment_method = tp.segment_method ?: 'cbs'
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    mkdir -p ref
    case ${genome} in
        *.gz) gzip -cd ${genome} > ref/genome.fa ;;
        *) ln -s "\$(readlink -f ${genome})" ref/genome.fa ;;
    esac
    normals=",\$(printf '%s' '${normals}' | tr -d ' '),"
    tumour_bams=""
    normal_bams=""
    : > tumours.tsv
    for bam in ${bam_files.join(' ')}; do
        sample=\$(bam_sample_name.sh "\$bam")
        case "\$normals" in
            *",\$sample,"*) normal_bams="\$normal_bams \$bam" ;;
            *) tumour_bams="\$tumour_bams \$bam"; printf '%s\\t%s\\n' "\$sample" "\$(basename "\$bam" .bam)" >> tumours.tsv ;;
        esac
    done
    if [ -z "\$tumour_bams" ]; then
        echo "CNVkit: every BAM is one of the normal_samples: no tumour to call" >&2
        exit 1
    fi
    cnvkit=\$(command -v cnvkit.py || command -v cnvkit)
    \$cnvkit batch \\
        \$tumour_bams \\
        --normal \$normal_bams \\
        --method wgs \\
        --fasta ref/genome.fa \\
        --segment-method ${segment_method} \\
        --output-dir cnvkit \\
        --output-reference cnvkit/reference.cnn \\
        -p ${task.cpus} \\
        ${args}
    first=1
    while IFS="\$(printf '\\t')" read -r sample name; do
        if [ "\$first" = 1 ]; then
            printf 'sample\\t%s\\n' "\$(head -n 1 cnvkit/\$name.call.cns)" > ${prefix}.copy_number_segments.tsv
            first=0
        fi
        tail -n +2 cnvkit/\$name.call.cns | S="\$sample" awk 'BEGIN { OFS = "\\t"; s = ENVIRON["S"] } { print s, \$0 }' >> ${prefix}.copy_number_segments.tsv
    done < tumours.tsv
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.copy_number_segments.tsv
    """
}

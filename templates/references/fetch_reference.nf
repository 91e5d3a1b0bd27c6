// Download one reference from its pinned provider URLs, verified against the provider's published
// checksums (bin/fetch_reference.py). storeDir is the reference cache: a reference already there is
// not fetched again, by this pipeline or any other one using the same cache.
process FETCH_REFERENCE {
    tag "${name}"
    label 'process_single'
    storeDir "${store}"

    input:
    tuple val(name), val(store), val(args)

    output:
    path "${name}", emit: reference

    script:
    """
    fetch_reference.py --output ${name} --log ${name}.fetch.log ${args}
    """

    stub:
    """
    touch ${name}
    """
}

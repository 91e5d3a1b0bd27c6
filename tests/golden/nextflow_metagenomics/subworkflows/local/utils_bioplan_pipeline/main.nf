/*
 * bioplan 0.1.0: the checks main.nf runs before the pipeline starts (nf-core keeps such functions in
 * subworkflows/local/utils_nfcore_<pipeline>_pipeline/main.nf), so that main.nf stays the pipeline.
 */

// Every process of the pipeline: [name, the module's process name, the name with its workflow, its label, runs
// only with --fetch true]. The SLURM fit check gives each the configuration Nextflow gives it.
def pipelineProcesses() {
    return [
        ['CHECK_REFERENCE_GENOME', 'BIOPLAN_CHECK_REFERENCE_GENOME', 'BIOPLAN:CHECK_REFERENCE_GENOME', 'process_single', false],
        ['GENOME_INDEXING', 'BOWTIE2_BUILD', 'BIOPLAN:GENOME_INDEXING', 'process_high', false],
        ['CHECK_PAIRED_END_READS', 'BIOPLAN_CHECK_PAIRED_END_READS', 'BIOPLAN:CHECK_PAIRED_END_READS', 'process_single', false],
        ['HOST_READ_REMOVAL', 'BOWTIE2_HOSTREMOVAL', 'BIOPLAN:HOST_READ_REMOVAL', 'process_high', false],
        ['TAXONOMIC_DATABASE_BUILD', 'KRAKEN2_BUILDCUSTOM', 'BIOPLAN:TAXONOMIC_DATABASE_BUILD', 'process_high', false],
        ['TAXONOMIC_CLASSIFICATION', 'KRAKEN2_KRAKEN2', 'BIOPLAN:TAXONOMIC_CLASSIFICATION', 'process_high', false],
        ['ABUNDANCE_TABLE_MERGE', 'MERGE_KRAKENREPORTS', 'BIOPLAN:ABUNDANCE_TABLE_MERGE', 'process_single', false],
        ['CHECK_REPLICATES', 'BIOPLAN_CHECK_REPLICATES', 'BIOPLAN:CHECK_REPLICATES', 'process_single', false],
        ['DIFFERENTIAL_ABUNDANCE', 'DA_CLRWELCH', 'BIOPLAN:DIFFERENTIAL_ABUNDANCE', 'process_single', false],
        ['QC_REPORT_AGGREGATION', 'MULTIQC', 'BIOPLAN:QC_REPORT_AGGREGATION', 'process_single', false],
    ]
}

// The SLURM fit check (-profile slurm), before any job is submitted. What Nextflow will ask SLURM for is read
// from this run's own configuration, the same settings Nextflow reads (conf/base.config, the profiles and every
// -c file: withLabel and withName selectors, cpus, memory, time, maxRetries, resourceLimits, executor, queue),
// for each process at each attempt (memory and time grow with the attempt), capped by its resourceLimits as
// Nextflow caps it (the slurm profile's: params.max_cpus, max_memory and max_time). A limit above the largest
// node does not help: SLURM keeps a job no node of its partition can take PENDING forever (or refuses it).
// Each request is held to the nodes of the process's partition (process.queue, else the cluster's default)
// as sinfo lists them; the run stops here instead, naming each such process and the fix.
def checkClusterFit() {
    if (!workflow.profile.tokenize(',').contains('slurm')) {
        return
    }
    def scope = workflow.session.config.process ?: [:]
    def processes = pipelineProcesses().findAll { p -> !p[4] || params.fetch }
        .collect { p -> [p[0], processSettings(scope, [p[1], p[0], p[2]], [p[3]])] }
        .findAll { p -> clusterValue(p[1].executor, [:]) == 'slurm' }
    if (!processes) {
        return
    }
    def nodes = sinfoNodes()
    if (nodes == null) {
        return
    }
    def fallback = nodes.find { f -> f[0].endsWith('*') }?.getAt(0)?.replace('*', '') ?: ''
    def misfits = [:]
    processes.each { p ->
        def queue = clusterValue(p[1].queue, [:])?.toString() ?: fallback
        def partition = queue.tokenize(',')[0].trim()
        def why = clusterMisfit(p[1], nodes.findAll { f -> f[0].replace('*', '') == partition }, partition)
        if (why) {
            misfits.get(partition, []) << "${p[0]}: ${why}".toString()
        }
    }
    if (misfits) {
        error(misfits.collect { partition, lines -> clusterMisfitMessage(partition, lines, nodes) }.join('\n'))
    }
}

// The settings Nextflow applies to a process, in its order (ProcessConfig.applyConfig): the withLabel selectors
// matching one of its labels, then the withName selectors matching each of its names in turn (the module's
// process name, the name, the name with its workflow), each overriding the one before, then the process scope's
// own settings for every directive no selector set. A selector is a regular expression of the whole name or
// label, '!' negating it.
def processSettings(scope, names, labels) {
    def settings = [:]
    scope.each { key, value -> settings.putAll(selectedSettings(key, value, 'withLabel:', labels)) }
    names.each { name ->
        scope.each { key, value -> settings.putAll(selectedSettings(key, value, 'withName:', [name])) }
    }
    scope.each { key, value ->
        if (!key.toString().startsWith('with') && !settings.containsKey(key)) {
            settings[key] = value
        }
    }
    return settings
}

// The settings of one selector of the process scope when it is of the kind and matches one of the names, else none
def selectedSettings(key, value, kind, names) {
    def selector = key.toString()
    if (!selector.startsWith(kind) || !(value instanceof Map)) {
        return [:]
    }
    def pattern = selector.substring(kind.size()).trim()
    def negated = pattern.startsWith('!')
    pattern = negated ? pattern.substring(1).trim() : pattern
    return names.any { name -> name ==~ pattern } != negated ? value : [:]
}

// A directive's value: a closure is evaluated as Nextflow evaluates it for a task (`task` and `params` resolved
// first); null when it cannot be evaluated before the run
def clusterValue(value, task) {
    if (!(value instanceof Closure)) {
        return value
    }
    def closure = value.clone()
    closure.delegate = [task: task, params: params]
    closure.resolveStrategy = Closure.DELEGATE_FIRST
    try {
        return closure.call()
    }
    catch (Exception e) {
        log.warn("bioplan: a process setting could not be evaluated before the run (${e.message}); the SLURM fit check leaves it out")
        return null
    }
}

// What Nextflow asks SLURM for at an attempt: [cpus, memory in MB, time in minutes (null: none)], each capped at
// the process's resourceLimits as Nextflow caps it (TaskConfig.getCpus, getMemory, getTime)
def clusterRequest(settings, attempt, name) {
    def task = [attempt: attempt, process: name, name: name]
    def limits = clusterValue(settings.resourceLimits, task) ?: [:]
    def cpus = (clusterValue(settings.cpus, task) ?: 1) as int
    cpus = limits.cpus ? Math.min(cpus, limits.cpus as int) : cpus
    task.cpus = cpus
    def memory = clusterValue(settings.memory, task)
    def mb = memory ? clusterMemory(memory).toMega() : 0
    mb = memory && limits.memory ? Math.min(mb, clusterMemory(limits.memory).toMega()) : mb
    def time = clusterValue(settings.time, task)
    def minutes = time ? clusterDuration(time).toMinutes() : null
    minutes = time && limits.time ? Math.min(minutes, clusterDuration(limits.time).toMinutes()) : minutes
    return [cpus, mb, minutes]
}

// A memory directive's value as Nextflow reads it (a MemoryUnit, or its text: '8 GB', '8.GB'). The condition in
// parentheses: `X instanceof T ? a : b` is ambiguous to the strict parser's fast pass (nextflow lint), which then
// parses the whole file again the slow way
def clusterMemory(value) {
    return (value instanceof MemoryUnit) ? value : value.toString() as MemoryUnit
}

// A time directive's value as Nextflow reads it (a Duration, or its text: '2h', '30.min')
def clusterDuration(value) {
    return (value instanceof Duration) ? value : value.toString() as Duration
}

// Why no node of the partition takes the process at some attempt ('' when one takes it at every attempt): the
// first attempt whose CPUs and memory no one node offers, and the first whose time is above the partition's limit
def clusterMisfit(settings, nodes, partition) {
    if (!nodes) {
        log.warn("bioplan: sinfo lists no partition '${partition}'; the SLURM fit check leaves it out")
        return ''
    }
    def cpus = nodes.collect { f -> f[2].replace('+', '') as int }
    def mems = nodes.collect { f -> f[3].replace('+', '') as long }
    def limit = slurmMinutes(nodes[0][4])
    def attempts = ((clusterValue(settings.maxRetries, [:]) ?: 0) as int) + 1
    def requests = (1..attempts).collect { attempt -> clusterRequest(settings, attempt, '') }
    def why = []
    def big = requests.findIndexOf { r -> ![cpus, mems].transpose().any { n -> n[0] >= r[0] && n[1] >= r[1] } }
    if (big >= 0) {
        def r = requests[big]
        if (r[0] > cpus.max()) {
            why << "${r[0]} CPUs > ${cpus.max()} per node"
        }
        if (r[1] > mems.max() || r[0] <= cpus.max()) {
            def first = requests[0][1] > mems.max() ? ' (already at the first attempt: only bigger nodes take it)' : ''
            why << "${r[1]} MB${big > 0 ? ' by attempt ' + (big + 1) : ''} > ${mems.max()} MB per node${first}"
        }
    }
    def slow = requests.find { r -> limit != null && r[2] != null && r[2] > limit }
    if (slow) {
        why << "${slow[2]} min > the ${limit} min time limit"
    }
    return why.join('; ')
}

// `sinfo -N` of every partition, [partition, node, CPUs, memory in MB, time limit] per node; null when sinfo
// does not run (the check is skipped, said)
def sinfoNodes() {
    try {
        def proc = ['sinfo', '--all', '-h', '-N', '-o', '%P|%N|%c|%m|%l'].execute()
        def out = proc.text
        if (proc.waitFor() != 0) {
            log.warn("bioplan: sinfo failed; the SLURM fit check is skipped")
            return null
        }
        return out.readLines().findAll { line -> line.trim() }.collect { line -> line.tokenize('|') }
    }
    catch (IOException e) {
        log.warn("bioplan: sinfo did not run (${e.message}); the SLURM fit check is skipped")
        return null
    }
}

// The error naming the processes no node of a partition takes, with what its largest node offers and the fix
def clusterMisfitMessage(partition, lines, nodes) {
    def mine = nodes.findAll { f -> f[0].replace('*', '') == partition }
    def cpus = mine.collect { f -> f[2].replace('+', '') as int }.max()
    def mb = mine.collect { f -> f[3].replace('+', '') as long }.max()
    def limit = slurmMinutes(mine[0][4])
    def node = "${cpus} CPUs, ${mb} MB, ${limit == null ? 'no time limit' : limit + ' min'}"
    def cap = "--max_cpus ${cpus} --max_memory '${mb}.MB'" + (limit == null ? '' : " --max_time '${limit}.min'")
    return "bioplan: ${lines.size()} process(es) ask for more than a node of SLURM partition '${partition}' offers (${node}; retries included); SLURM would keep such a job PENDING forever, so nothing was submitted:\n  ${lines.join('\n  ')}\nTo resolve, cap every job at one node: nextflow run . -profile slurm ${cap} (or max_cpus, max_memory and max_time in the params of nextflow.config; bioplan compile --max-threads, --max-mem-mb, --max-runtime); a -c config of your own that sets cpus, memory, time or resourceLimits for these processes counts too: keep them within one node, or send the process to a partition with bigger nodes (process.queue in the slurm profile)."
}

// A SLURM time limit in whole minutes (null: none): minutes, minutes:seconds, hours:minutes:seconds, days-hours[:minutes[:seconds]]
def slurmMinutes(text) {
    if (text in ['infinite', 'UNLIMITED', 'unlimited', 'NONE', '']) {
        return null
    }
    def days = text.contains('-') ? text.tokenize('-')[0] as int : 0
    def parts = text.tokenize('-')[-1].tokenize(':').collect { p -> p as int }
    if (text.contains('-')) {
        return days * 1440 + parts[0] * 60 + (parts.size() > 1 ? parts[1] : 0)
    }
    return parts.size() == 3 ? parts[0] * 60 + parts[1] : parts[0]
}

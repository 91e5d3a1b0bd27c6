#!/usr/bin/env bash
# A real single-node SLURM cluster with job accounting on this machine, for bioplan's `slurm`
# tests (tests/test_slurm.py): munged, MariaDB, slurmdbd, slurmctld and slurmd, started by hand
# (no systemd needed) and stopped by the PID files this script keeps. Debian/Ubuntu, as root.
#
#   bash scripts/slurm-local.sh up       # install, configure, start what is not running, submit
#                                        # one job and find it in sacct (idempotent)
#   bash scripts/slurm-local.sh status   # each daemon and the node; exit 0 if all run, 3 if not
#   bash scripts/slurm-local.sh down     # stop the daemons this script started (idempotent)
#   bash scripts/slurm-local.sh purge    # down, then remove its state, database and configs
#
# The cluster: one node (this host, its CPUs, its memory less a margin for the OS), partition
# `debug` (and `short`: the same node under a 30 min time limit), account `ci` holding root (and
# $SUDO_USER), cluster `bioplan`. Job comments are kept in accounting: the Snakemake SLURM
# executor puts the rule name there, which the tests read.
# State, logs, PID files and the MariaDB data live in $BIOPLAN_SLURM_DIR (default
# /tmp/bioplan-slurm); MariaDB listens on 127.0.0.1:$BIOPLAN_SLURM_DB_PORT (default 3307), apart
# from any system database. SLURM's client tools read /etc/slurm, so the configs go there; a
# config that changed is rewritten and the SLURM daemons restarted. Change BIOPLAN_SLURM_* after
# `down` (a running MariaDB keeps its port).
set -euo pipefail

STATE=${BIOPLAN_SLURM_DIR:-/tmp/bioplan-slurm}
DB_PORT=${BIOPLAN_SLURM_DB_PORT:-3307}
CLUSTER=bioplan
PARTITION=debug
SHORT_PARTITION=short
ACCOUNT=ci
USERS=$(printf '%s\n' root "${SUDO_USER:-}" | awk 'NF && !seen[$0]++' | tr '\n' ' ')
DB_NAME=slurm_acct_db
DB_USER=slurm
DB_PASSWORD=bioplan-slurm-local  # reachable from 127.0.0.1 only
SLURM_CONF=/etc/slurm/slurm.conf
SLURMDBD_CONF=/etc/slurm/slurmdbd.conf
MARK="# written by bioplan scripts/slurm-local.sh"
PACKAGES=(slurm-wlm slurmdbd munge mariadb-server)

RUN=$STATE/run
LOG=$STATE/log
DB_DIR=$STATE/mariadb
DB_SOCKET=$RUN/mariadb.sock
# start order; `down` stops them in reverse
DAEMONS=(munged mariadbd slurmdbd slurmctld slurmd)

started_at=$(date +%s)
say() { printf '[slurm-local +%ss] %s\n' "$(( $(date +%s) - started_at ))" "$*"; }
die() { say "error: $*" >&2; exit 1; }

pidfile() { echo "$RUN/$1.pid"; }

# running NAME: the daemon whose PID this script recorded is alive (and is that program).
running() {
    local file pid
    file=$(pidfile "$1")
    [ -s "$file" ] || return 1
    pid=$(cat "$file")
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$1" ]
}

# foreign_pids NAME: PIDs of that program that this script did not start.
foreign_pids() {
    local own=""
    running "$1" && own=$(cat "$(pidfile "$1")")
    pgrep -x "$1" | grep -vx "${own:-none}" | paste -sd ' ' - || true
}

# wait_until SECONDS WHAT CMD...: poll CMD every 0.2 s; fail naming WHAT and where to look,
# after running $ON_TIMEOUT (when set) to print what the cluster says about it.
wait_until() {
    local seconds=$1 what=$2 deadline
    deadline=$(( $(date +%s) + seconds ))
    shift 2
    until "$@" >/dev/null 2>&1; do
        if [ "$(date +%s)" -ge "$deadline" ]; then
            [ -z "${ON_TIMEOUT:-}" ] || "$ON_TIMEOUT" >&2 || true
            die "$what not ready after $seconds s; logs in $LOG"
        fi
        sleep 0.2
    done
}

stop() {
    local name=$1 pid
    if running "$name"; then
        pid=$(cat "$(pidfile "$name")")
        say "stopping $name (pid $pid)"
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 150); do
            [ -d "/proc/$pid" ] || break
            sleep 0.2
        done
        if [ -d "/proc/$pid" ]; then
            say "$name still running after 30 s, killing it"
            kill -9 "$pid" 2>/dev/null || true
        fi
    fi
    rm -f "$(pidfile "$name")"
}

install_packages() {
    local missing=() pkg
    for pkg in "${PACKAGES[@]}"; do
        [ "$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null)" = installed ] || missing+=("$pkg")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    command -v apt-get >/dev/null || die "needs ${missing[*]} and there is no apt-get (Debian/Ubuntu only)"
    say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=600 update -qq
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Refuse to run beside a SLURM started by something else: the ports and /etc/slurm are shared.
check_no_foreign_slurm() {
    local name pids
    for name in slurmctld slurmd slurmdbd; do
        pids=$(foreign_pids "$name")
        [ -z "$pids" ] || die "a $name this script did not start is running (pid $pids); stop it with what started it, then retry"
    done
}

# write_config FILE MODE OWNER < TEXT: replace FILE if its text differs; true if it changed.
# A config this script did not write is kept beside it as FILE.before-bioplan.
write_config() {
    local file=$1 mode=$2 owner=$3 new
    new=$(cat)
    if [ -f "$file" ] && [ "$(cat "$file")" = "$new" ]; then
        return 1
    fi
    if [ -f "$file" ] && ! grep -qxF "$MARK" "$file" && [ ! -e "$file.before-bioplan" ]; then
        cp -p "$file" "$file.before-bioplan"
        say "kept the previous $file as $file.before-bioplan"
    fi
    printf '%s\n' "$new" | install -m "$mode" -o "${owner%:*}" -g "${owner#*:}" /dev/stdin "$file"
}

# node_line: this host as slurmd sees it, with memory less 5% (at least 512 MB) for the OS.
node_line() {
    local hw field value mem
    hw=$(slurmd -C | head -1)
    mem=$(sed -nE 's/.*RealMemory=([0-9]+).*/\1/p' <<<"$hw")
    mem=$(( mem - (mem / 20 > 512 ? mem / 20 : 512) ))
    printf 'NodeName=%s NodeAddr=127.0.0.1' "$(hostname -s)"
    for field in CPUs Boards SocketsPerBoard CoresPerSocket ThreadsPerCore; do
        value=$(sed -nE "s/.* $field=([0-9]+).*/\1/p" <<<" $hw")
        [ -z "$value" ] || printf ' %s=%s' "$field" "$value"
    done
    printf ' RealMemory=%s State=UNKNOWN\n' "$mem"
}

configure() {
    install -d -m 755 "$STATE" /etc/slurm
    touch "$STATE/.bioplan-slurm-local"  # what `purge` looks for before it removes the directory
    install -d -m 1777 "$RUN" "$LOG"  # written by root, slurm, munge and mysql
    install -d -m 755 -o slurm -g slurm "$STATE/slurmctld"
    install -d -m 755 "$STATE/slurmd"
    CONFIG_CHANGED=0
    write_config "$SLURM_CONF" 644 root:root <<EOF && CONFIG_CHANGED=1
$MARK
ClusterName=$CLUSTER
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmUser=slurm
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
ReturnToService=2
SlurmctldPidFile=$(pidfile slurmctld)
SlurmdPidFile=$(pidfile slurmd)
StateSaveLocation=$STATE/slurmctld
SlurmdSpoolDir=$STATE/slurmd
SlurmctldLogFile=$LOG/slurmctld.log
SlurmdLogFile=$LOG/slurmd.log
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=500
# finished jobs stay in squeue for 5 minutes
MinJobAge=300
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=5
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStorageEnforce=associations
# the Snakemake executor writes the rule name into the job comment
AccountingStoreFlags=job_comment
JobCompType=jobcomp/none
$(node_line)
PartitionName=$PARTITION Nodes=ALL Default=YES MaxTime=INFINITE State=UP
# the same node under a 30 min time limit: a job asking for more stays PENDING (PartitionTimeLimit) forever
PartitionName=$SHORT_PARTITION Nodes=ALL MaxTime=30 State=UP
EOF
    write_config "$SLURMDBD_CONF" 600 slurm:slurm <<EOF && CONFIG_CHANGED=1
$MARK
AuthType=auth/munge
DbdHost=localhost
SlurmUser=slurm
PidFile=$(pidfile slurmdbd)
LogFile=$LOG/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=$DB_USER
StoragePass=$DB_PASSWORD
StorageLoc=$DB_NAME
EOF
    say "configs in /etc/slurm $( [ "$CONFIG_CHANGED" = 1 ] && echo written || echo unchanged)"
}

munge_works() { munge -n </dev/null | unmunge >/dev/null; }

start_munged() {
    if running munged; then return; fi
    if [ -n "$(foreign_pids munged)" ] && munge_works; then
        say "using the munged already running (pid $(foreign_pids munged)); it is not stopped by down"
        return
    fi
    if [ ! -s /etc/munge/munge.key ]; then
        say "creating /etc/munge/munge.key"
        mungekey --create --keyfile /etc/munge/munge.key
    fi
    chown munge:munge /etc/munge/munge.key
    chmod 600 /etc/munge/munge.key
    install -d -m 755 -o munge -g munge /run/munge
    runuser -u munge -- munged --pid-file="$(pidfile munged)" --log-file="$LOG/munged.log"
    wait_until 15 munged munge_works
    say "munged started (pid $(cat "$(pidfile munged)"))"
}

db() { mariadb --no-defaults --socket="$DB_SOCKET" -u root "$@"; }

start_mariadbd() {
    if ! running mariadbd; then
        if [ ! -d "$DB_DIR/mysql" ]; then
            say "creating the accounting database in $DB_DIR"
            install -d -m 750 -o mysql -g mysql "$DB_DIR"
            mariadb-install-db --no-defaults --user=mysql --datadir="$DB_DIR" \
                --auth-root-authentication-method=socket --skip-test-db >"$LOG/mariadb-install.log" 2>&1 \
                || die "mariadb-install-db failed; see $LOG/mariadb-install.log"
        fi
        # not a daemon by itself: its own session, so it outlives this script
        setsid mariadbd --no-defaults --user=mysql --datadir="$DB_DIR" --socket="$DB_SOCKET" \
            --pid-file="$(pidfile mariadbd)" --bind-address=127.0.0.1 --port="$DB_PORT" \
            --skip-name-resolve --log-error="$LOG/mariadb.log" </dev/null >/dev/null 2>&1 &
        wait_until 60 mariadbd db -e 'SELECT 1'
        say "mariadbd started (pid $(cat "$(pidfile mariadbd)"), 127.0.0.1:$DB_PORT)"
    fi
    db -e "CREATE USER IF NOT EXISTS '$DB_USER'@'127.0.0.1' IDENTIFIED BY '$DB_PASSWORD';
           GRANT ALL ON $DB_NAME.* TO '$DB_USER'@'127.0.0.1';"
}

start_slurmdbd() {
    [ "$CONFIG_CHANGED" = 0 ] || stop slurmdbd
    if ! running slurmdbd; then
        slurmdbd
        wait_until 60 slurmdbd sacctmgr --noheader list cluster
        say "slurmdbd started (pid $(cat "$(pidfile slurmdbd)"))"
    fi
}

# The cluster, the account and its users in accounting (jobs need an association).
register_associations() {
    local user
    sacctmgr -nP list cluster format=cluster | grep -qx "$CLUSTER" \
        || sacctmgr -i add cluster "$CLUSTER" >/dev/null
    sacctmgr -nP list account format=account | grep -qx "$ACCOUNT" \
        || sacctmgr -i add account "$ACCOUNT" Description="bioplan tests" Organization=bioplan >/dev/null
    for user in $USERS; do
        sacctmgr -nP list association where user="$user" account="$ACCOUNT" format=user | grep -qx "$user" \
            || sacctmgr -i add user "$user" Account="$ACCOUNT" DefaultAccount="$ACCOUNT" >/dev/null
    done
}

node_state() { sinfo --noheader --nodes="$(hostname -s)" --format=%T 2>/dev/null; }
node_registered() { node_state | grep -Eqv '^(unknown.*)?$'; }
node_takes_jobs() { node_state | grep -Eqx 'idle|mixed|allocated'; }

active_jobs() { squeue --noheader --states=PENDING,RUNNING,COMPLETING,CONFIGURING,SUSPENDED --format=%i 2>/dev/null; }
no_active_jobs() { [ -z "$(active_jobs)" ]; }

# A slurmctld restarted after an unclean stop (a killed CI run) restores the jobs it had saved;
# they would hold the node before the check job and the tests. The cluster is the tests' own
# (check_no_foreign_slurm), so what it restored is cancelled.
cancel_restored_jobs() {
    local jobs
    jobs=$(active_jobs | paste -sd ' ' -)
    [ -n "$jobs" ] || return 0
    say "cancelling job(s) $jobs, restored from an earlier run's state in $STATE/slurmctld"
    # shellcheck disable=SC2086 # one job id per word
    scancel $jobs || true
    ON_TIMEOUT=diagnose wait_until 60 "the end of the restored jobs" no_active_jobs
}

start_slurm() {
    local restarted=0
    if [ "$CONFIG_CHANGED" = 1 ]; then
        stop slurmd
        stop slurmctld
    fi
    if ! running slurmctld; then
        slurmctld
        wait_until 30 slurmctld scontrol ping
        say "slurmctld started (pid $(cat "$(pidfile slurmctld)"))"
        restarted=1
    fi
    if ! running slurmd; then
        slurmd
        ON_TIMEOUT=diagnose wait_until 60 "slurmd (node registration)" node_registered
        say "slurmd started (pid $(cat "$(pidfile slurmd)"))"
    fi
    [ "$restarted" = 0 ] || cancel_restored_jobs
    # a node left down or drained by an earlier unclean stop takes jobs again
    if node_state | grep -Eq 'down|drain|fail'; then
        say "node is $(node_state); resuming it"
        scontrol update NodeName="$(hostname -s)" State=RESUME
        ON_TIMEOUT=diagnose wait_until 30 "node resume" node_takes_jobs
    fi
}

# What the cluster says when something is not ready: the queue with each job's reason, the
# node with its reason, and the ends of the daemons' logs.
diagnose() {
    echo "--- squeue (job, state, reason)"
    squeue --states=all --format='%i %T %r %P %C %m %l' 2>&1 | head -20 || true
    echo "--- sinfo (node, state, reason)"
    sinfo --Node --format='%N %T %c %m %E' 2>&1 || true
    local name
    for name in slurmctld slurmd; do
        echo "--- the end of $LOG/$name.log"
        tail -n 15 "$LOG/$name.log" 2>&1 || true
    done
}

job_state() { squeue --noheader --states=all --jobs="$1" --format=%T 2>/dev/null; }
job_done() { job_state "$1" | grep -Eqx 'COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL'; }
job_completed_in_accounting() { [ "$(sacct --noheader -X -j "$1" --format=State%20 | tr -d ' ')" = COMPLETED ]; }

# One job through the whole path: sbatch, the node, and the accounting record.
check_a_job() {
    local dir job
    dir=$(mktemp -d "$STATE/check.XXXXXX")
    chmod 755 "$dir"
    job=$(cd "$dir" && sbatch --parsable --partition="$PARTITION" --account="$ACCOUNT" \
        --time=1 --mem=50 --cpus-per-task=1 --output=job.out --wrap 'echo bioplan-slurm-ok') \
        || die "sbatch refused the check job; see $LOG/slurmctld.log"
    ON_TIMEOUT=diagnose wait_until 60 "the check job $job" job_done "$job"
    [ "$(job_state "$job")" = COMPLETED ] \
        || die "the check job $job ended $(job_state "$job"); see $LOG/slurmd.log"
    grep -qx bioplan-slurm-ok "$dir/job.out" || die "the check job $job ran but wrote $(cat "$dir/job.out")"
    wait_until 20 "the accounting record of job $job" job_completed_in_accounting "$job"
    rm -rf "$dir"
    say "check job $job COMPLETED (squeue and sacct)"
}

up() {
    [ "$(id -u)" = 0 ] || die "run as root: it installs packages and starts system daemons"
    install_packages
    check_no_foreign_slurm
    configure
    start_munged
    start_mariadbd
    start_slurmdbd
    register_associations
    start_slurm
    check_a_job
    say "up: cluster $CLUSTER, partition $PARTITION, account $ACCOUNT (users: ${USERS% }); stop it with: bash $0 down"
}

down() {
    local i
    for (( i = ${#DAEMONS[@]} - 1; i >= 0; i-- )); do
        stop "${DAEMONS[i]}"
    done
    say "down: every daemon this script started is stopped"
}

status() {
    local name all=0
    for name in "${DAEMONS[@]}"; do
        if running "$name"; then
            echo "$name: running (pid $(cat "$(pidfile "$name")"))"
        elif [ "$name" = munged ] && [ -n "$(foreign_pids munged)" ]; then
            echo "munged: running, not started by this script (pid $(foreign_pids munged))"
        else
            echo "$name: stopped"
            all=3
        fi
    done
    [ "$all" != 0 ] || sinfo --Node --long 2>/dev/null || true
    return "$all"
}

purge() {
    down
    if [ -e "$STATE/.bioplan-slurm-local" ]; then
        rm -rf "$STATE"
    elif [ -e "$STATE" ]; then
        say "left $STATE alone: this script did not create it"
    fi
    local file
    for file in "$SLURM_CONF" "$SLURMDBD_CONF"; do
        if [ -f "$file" ] && grep -qxF "$MARK" "$file"; then
            rm -f "$file"
            [ ! -e "$file.before-bioplan" ] || mv "$file.before-bioplan" "$file"
        fi
    done
    say "purge: state, accounting database and configs removed"
}

case "${1:-}" in
    up) up ;;
    down) down ;;
    status) status ;;
    purge) purge ;;
    *) sed -n '5,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# Tear down the single-node Slurm of tests/cluster/slurm-up.sh: stop exactly the daemons whose PID
# files are in its state dir ($NARRATOR_SLURM_DIR, default /tmp/narrator-slurm), nothing else.
# Jobs still running are killed with slurmd. The state dir is kept (logs, munge key) unless
# --purge is given. Safe to run when nothing is up.
set -euo pipefail

DIR="${NARRATOR_SLURM_DIR:-/tmp/narrator-slurm}"
export SLURM_CONF="$DIR/slurm.conf"

# stop NAME PIDFILE: SIGTERM, wait up to 10 s, then SIGKILL; only if the PID is still NAME.
stop() {
    local name=$1 pidfile=$2 pid
    [[ -s $pidfile ]] || return 0
    pid="$(cat "$pidfile")"
    if kill -0 "$pid" 2>/dev/null && [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == "$name" ]]; then
        kill -TERM "$pid"
        for _ in $(seq 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$pid" 2>/dev/null; then
            kill -KILL "$pid" 2>/dev/null || true
        fi
        echo "slurm-down: stopped $name (pid $pid)"
    fi
    rm -f "$pidfile"
}

# stepds: the slurmstepd processes of this cluster's jobs (they outlive slurmd); found by the
# SLURM_CONF that slurm-up exported to slurmd and that they inherit.
stepds() {
    local environ pid
    for environ in /proc/[0-9]*/environ; do
        pid="${environ#/proc/}"
        pid="${pid%/environ}"
        [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == slurmstepd ]] || continue
        { tr '\0' '\n' <"$environ"; } 2>/dev/null | grep -qxF "SLURM_CONF=$SLURM_CONF" && echo "$pid"
    done
    return 0
}

# Cancel this cluster's jobs while the controller is up, and give their steps 10 s to end.
if [[ -s $DIR/slurmctld.pid ]] && kill -0 "$(cat "$DIR/slurmctld.pid")" 2>/dev/null; then
    squeue -h -o %i 2>/dev/null | xargs -r scancel 2>/dev/null || true
    for _ in $(seq 100); do
        [[ -z "$(stepds)" ]] && break
        sleep 0.1
    done
fi
# slurmd next (it ends the steps it runs), then the controller; munged last (both need it).
stop slurmd "$DIR/slurmd.pid"
# tree PID: PID and all its descendants.
tree() {
    local child
    echo "$1"
    for child in $(pgrep -P "$1" || true); do
        tree "$child"
    done
}
# A step left behind (the controller was already gone): kill it with its job's processes.
for pid in $(stepds); do
    kill -KILL $(tree "$pid") 2>/dev/null && echo "slurm-down: killed slurmstepd (pid $pid) and its job"
done
stop slurmctld "$DIR/slurmctld.pid"
stop munged "$DIR/munged.pid"
rm -f "$DIR/munge.socket" "$DIR/munge.socket.lock"
# The clients' config link, only if it is ours.
if [[ "$(readlink /run/slurm/conf/slurm.conf 2>/dev/null)" == "$SLURM_CONF" ]]; then
    rm -f /run/slurm/conf/slurm.conf
fi

if [[ ${1:-} == --purge ]]; then
    rm -rf "$DIR"
fi

#!/usr/bin/env bash
# Snakemake cluster-generic status command: print running, success or failed for one Slurm job id.
# squeue first (it knows every job until MinJobAge after it ends, default 300 s, and needs no
# accounting database); sacct for jobs squeue has already forgotten, where slurmdbd is set up.
set -uo pipefail
jobid="$1"

if state="$(squeue --noheader --jobs "$jobid" --states all --format %T 2>&1)"; then
    state="${state%%$'\n'*}"
elif [[ $state == *"Invalid job id"* ]]; then
    # Forgotten by the controller: ask accounting (empty without slurmdbd).
    state="$(sacct --noheader --allocations --jobs "$jobid" --format State 2>/dev/null | awk 'NR == 1 {print $1}')"
    # Neither knows it: it ended long ago and its outcome is lost. Failing it makes Snakemake
    # check its outputs on the next run instead of waiting for ever.
    state="${state:-UNKNOWN}"
else
    # squeue itself failed (controller busy or restarting): ask again at the next poll.
    echo running
    exit 0
fi

case "$state" in
COMPLETED) echo success ;;
PENDING | CONFIGURING | RUNNING | COMPLETING | REQUEUED | REQUEUE_HOLD | REQUEUE_FED | RESIZING | \
    SUSPENDED | STAGE_OUT | SIGNALING | STOPPED | RESV_DEL_HOLD | SPECIAL_EXIT) echo running ;;
*) echo failed ;; # FAILED, CANCELLED, TIMEOUT, OUT_OF_MEMORY, PREEMPTED, NODE_FAIL, ..., UNKNOWN
esac

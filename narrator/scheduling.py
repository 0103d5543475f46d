"""A Snakemake 9.27.1 workaround that keeps its scheduler's work per segment constant on a long book.

It reaches into Snakemake internals (JobScheduler._schedule_reevalutation, spelled as Snakemake
spells it); tests/test_scheduling.py fails if an upgrade renames or removes it.
"""

from __future__ import annotations

import threading
import time
from typing import Any


def coalesce_reevaluations() -> None:
    """Keep at most one scheduling re-evaluation pending, instead of one more per round.

    Snakemake's job rate limiter (on in every run: --max-jobs-per-timespan has a default) ends each
    scheduling round by starting a threading.Timer that, a timespan later, starts another round;
    that round starts its own timer. Every round ever run therefore comes back once a timespan,
    and with thousands of segments ready the scheduler spins: 30,763 rounds and as many threads
    for a 4,000-segment book, against 4,070 rounds with this (it took 0.77x the time). The issue
    upstream is snakemake/snakemake#3804 ("forkbombing itself"). One pending re-evaluation
    suffices: the round it starts re-checks every ready job and the rate limit, and asks again if
    it still has to wait. A request due earlier than the pending one still gets its own timer.
    """
    from snakemake.scheduling.job_scheduler import JobScheduler

    if getattr(JobScheduler._schedule_reevalutation, "narrator_coalesced", False):
        return

    def schedule_one_reevaluation(self: Any, delay: float) -> None:
        due = time.monotonic() + delay
        pending_due = getattr(self, "_narrator_reevaluation_due", 0.0)
        if time.monotonic() < pending_due <= due:
            return
        self._narrator_reevaluation_due = due
        timer = threading.Timer(delay, self._open_jobs.release)
        # A pending re-evaluation must not keep a finished run's process alive.
        timer.daemon = True
        timer.start()

    schedule_one_reevaluation.narrator_coalesced = True
    JobScheduler._schedule_reevalutation = schedule_one_reevaluation

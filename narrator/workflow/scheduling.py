"""Snakemake 9 workarounds that keep its scheduler's work per segment small on a long book.

They reach into Snakemake internals (JobScheduler._schedule_reevalutation, spelled as Snakemake
spells it, and JobScheduler.remaining_jobs), each checked first by
narrator.workflow.snakemake_internals.internal, which refuses a Snakemake where they changed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from narrator.workflow.snakemake_internals import internal, job_scheduler_class, patched, replace


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
    The fix to offer upstream is this one, in JobScheduler._schedule_reevalutation itself.
    """
    JobScheduler = job_scheduler_class()
    scheduled = internal(JobScheduler, "_schedule_reevalutation", ("self", "delay"))
    if patched(scheduled):
        return

    def schedule_one_reevaluation(self: Any, delay: float) -> None:
        now = time.monotonic()
        due = now + delay
        pending_due = getattr(self, "_narrator_reevaluation_due", 0.0)
        if now < pending_due <= due:
            return
        self._narrator_reevaluation_due = due
        timer = threading.Timer(delay, self._open_jobs.release)
        # A pending re-evaluation must not keep a finished run's process alive.
        timer.daemon = True
        try:
            timer.start()
        except RuntimeError:
            # No memory left for the timer's thread (an address-space limit): re-evaluate now
            # rather than end the run with a traceback; the jobs that fail for want of memory say so.
            self._narrator_reevaluation_due = 0.0
            self._open_jobs.release()

    replace(JobScheduler, "_schedule_reevalutation", schedule_one_reevaluation)


class _JobsOnDemand(Sequence[Any]):
    """A list of jobs computed the first time anything looks at it."""

    def __init__(self, compute: Callable[[], list[Any]]) -> None:
        self._compute = compute
        self._jobs: list[Any] | None = None

    def _listed(self) -> list[Any]:
        if self._jobs is None:
            self._jobs = self._compute()
        return self._jobs

    def __len__(self) -> int:
        return len(self._listed())

    def __getitem__(self, index: Any) -> Any:
        return self._listed()[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._listed())


def list_remaining_jobs_on_demand() -> None:
    """List the jobs still to run only for a job selector that reads them.

    Each scheduling round hands the job selector every job still to run, listed afresh: a walk
    over all of them, with a lookup per job. The greedy selector (the profiles' choice) never
    reads that list, yet listing it held the GIL for 35% of the main thread's samples at 20,000
    segments (py-spy --gil), starving the renders. Now the list is made when read, within the
    same call, so the ILP selector and the end-of-run check still see it as it is at that moment.
    The fix to offer upstream: JobScheduler.run hands the selector a lazy view of the jobs.
    """
    JobScheduler = job_scheduler_class()
    listed = internal(JobScheduler, "remaining_jobs", prop=True)
    if patched(listed):
        return

    def remaining_jobs(self: Any) -> Sequence[Any]:
        return _JobsOnDemand(lambda: listed.fget(self))

    replace(JobScheduler, "remaining_jobs", property(remaining_jobs))

"""Snakemake's scheduling rounds stay cheap on a long book (narrator/workflow/scheduling.py): the
patched re-evaluation and the remaining jobs listed on demand. Counted in real runs:
tests/e2e/test_scheduling_rounds.py.
"""

from __future__ import annotations

import inspect
import threading
import time
from types import SimpleNamespace

import pytest

from narrator.workflow.scheduling import _JobsOnDemand, coalesce_reevaluations, list_remaining_jobs_on_demand
from narrator.workflow.snakemake_internals import job_scheduler_class, patched

JobScheduler = job_scheduler_class()


def fake_scheduler() -> SimpleNamespace:
    return SimpleNamespace(_open_jobs=threading.Semaphore(0))


def timers_started(requests: list[float], monkeypatch: pytest.MonkeyPatch) -> int:
    # Counted where they start, not as live threads, which earlier tests' timers leave at any time.
    started = []

    class CountedTimer(threading.Timer):
        def start(self) -> None:
            started.append(self)
            super().start()

    monkeypatch.setattr(threading, "Timer", CountedTimer)
    scheduler = fake_scheduler()
    for delay in requests:
        JobScheduler._schedule_reevalutation(scheduler, delay)
    monkeypatch.undo()
    return len(started)


def test_snakemake_still_schedules_reevaluations_through_the_patched_method() -> None:
    # An upgrade that renames the method would silently bring the spinning scheduler back.
    assert "self._schedule_reevalutation(" in inspect.getsource(JobScheduler.schedule)
    coalesce_reevaluations()
    coalesce_reevaluations()
    assert patched(JobScheduler._schedule_reevalutation)


def test_many_requests_start_one_timer_and_release_once() -> None:
    coalesce_reevaluations()
    scheduler = fake_scheduler()
    for _ in range(100):
        JobScheduler._schedule_reevalutation(scheduler, 0.2)
    assert not scheduler._open_jobs.acquire(timeout=0.05)
    assert scheduler._open_jobs.acquire(timeout=2)
    assert not scheduler._open_jobs.acquire(timeout=0.4)


def test_a_request_due_sooner_than_the_pending_one_gets_its_own_timer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    coalesce_reevaluations()
    assert timers_started([5, 0.1], monkeypatch) == 2
    assert timers_started([0.1, 5, 5], monkeypatch) == 1


def test_a_request_after_the_pending_one_fired_starts_a_new_timer() -> None:
    coalesce_reevaluations()
    scheduler = fake_scheduler()
    JobScheduler._schedule_reevalutation(scheduler, 0.05)
    assert scheduler._open_jobs.acquire(timeout=2)
    time.sleep(0.01)
    JobScheduler._schedule_reevalutation(scheduler, 0.05)
    assert scheduler._open_jobs.acquire(timeout=2)


def test_no_memory_for_a_timer_thread_re_evaluates_now_instead_of_ending_the_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # What threading raises under an address-space limit (prlimit --as): before, a traceback from
    # Snakemake's scheduler ended the run.
    class NoThread(threading.Timer):
        def start(self) -> None:
            raise RuntimeError("can't start new thread")

    coalesce_reevaluations()
    monkeypatch.setattr(threading, "Timer", NoThread)
    scheduler = fake_scheduler()
    JobScheduler._schedule_reevalutation(scheduler, 5)
    assert scheduler._open_jobs.acquire(timeout=0)
    # The next request is not taken for one already pending.
    JobScheduler._schedule_reevalutation(scheduler, 5)
    assert scheduler._open_jobs.acquire(timeout=0)


def test_remaining_jobs_are_listed_only_when_read_and_once() -> None:
    calls = []
    jobs = _JobsOnDemand(lambda: calls.append(1) or ["a", "b"])
    assert calls == []
    assert list(jobs) == ["a", "b"] and len(jobs) == 2 and jobs[1] == "b" and bool(jobs)
    assert calls == [1]


def test_the_scheduler_lists_remaining_jobs_through_the_patched_property() -> None:
    # The job selector reads self.remaining_jobs for every round; the property must be ours.
    assert "self.remaining_jobs" in inspect.getsource(JobScheduler.job_selector)
    list_remaining_jobs_on_demand()
    list_remaining_jobs_on_demand()
    remaining = JobScheduler.remaining_jobs.fget
    assert patched(remaining)
    dag = SimpleNamespace(
        needrun_jobs=lambda: iter(["done", "running", "ready"]), finished=lambda job: job == "done"
    )
    scheduler = SimpleNamespace(workflow=SimpleNamespace(dag=dag), running={"running"}, failed=set())
    assert list(remaining(scheduler)) == ["ready"]

"""How many CPUs this process may use."""

from __future__ import annotations

import os


def usable_cpus() -> int:
    """The CPUs this process may run on: its affinity (a Slurm allocation, taskset), else all of them."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # no affinity on macOS
        return os.cpu_count() or 1

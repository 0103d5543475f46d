"""The Snakemake range narrator supports, and the one-line refusal when an internal it patches differs."""

from __future__ import annotations

import subprocess
import sys

import pytest

# snakemake.dag cannot be the first of Snakemake's modules imported (a circular import); in a run the
# Snakefile is parsed after snakemake.api has imported it.
import snakemake.api  # noqa: F401
from conftest import REPO

from narrator.workflow import cluster, scheduling
from narrator.workflow.snakemake_internals import (
    SUPPORTED,
    SnakemakeVersionError,
    check_supported,
    internal,
    job_scheduler_class,
    patched,
)


@pytest.mark.parametrize("version", ["9.11.0", "9.11.1", "9.27.1", "9.28.0rc1", "9.30.2.post1"])
def test_versions_in_the_range_are_accepted(version):
    assert check_supported(version) == version


@pytest.mark.parametrize("version", ["8.30.0", "9.0.0", "9.10.1", "10.0.0", "10.1.0a1", "not-a-version"])
def test_versions_outside_the_range_are_refused_in_one_line(version):
    with pytest.raises(SnakemakeVersionError) as refused:
        check_supported(version)
    message = str(refused.value)
    assert "\n" not in message
    assert f"Snakemake {version} is not supported" in message and SUPPORTED in message


def test_the_running_snakemake_is_in_the_range_and_has_every_patched_internal():
    import snakemake
    from snakemake.dag import DAG

    assert check_supported() == snakemake.__version__
    scheduler = job_scheduler_class()
    assert callable(internal(scheduler, "_schedule_reevalutation", ("self", "delay")))
    assert internal(scheduler, "remaining_jobs", prop=True).fget is not None
    assert callable(internal(DAG, "update_groups", ("self",)))


class _Renamed:
    """A stand-in for a Snakemake class whose internals moved on."""

    def _schedule_reevalutation(self, seconds):
        return seconds

    remaining_jobs = ()


def test_an_internal_of_another_shape_is_refused_naming_the_version_and_the_piece():
    with pytest.raises(
        SnakemakeVersionError, match=r"_Renamed\._schedule_reevalutation is not a function of"
    ):
        internal(_Renamed, "_schedule_reevalutation", ("self", "delay"))
    with pytest.raises(SnakemakeVersionError, match=r"_Renamed\.remaining_jobs is not a property"):
        internal(_Renamed, "remaining_jobs", prop=True)
    with pytest.raises(SnakemakeVersionError, match=r"_Renamed\.missing is not a function"):
        internal(_Renamed, "missing", ("self",))


def test_a_patch_refuses_a_scheduler_whose_internal_changed(monkeypatch):
    monkeypatch.setattr(scheduling, "job_scheduler_class", lambda: _Renamed)
    with pytest.raises(SnakemakeVersionError, match="narrator's patch needs"):
        scheduling.coalesce_reevaluations()
    with pytest.raises(SnakemakeVersionError, match="is not a property"):
        scheduling.list_remaining_jobs_on_demand()


def test_render_groups_refuse_a_workflow_without_parent_groupids():
    class NoGroups:
        pass

    with pytest.raises(SnakemakeVersionError, match="parent_groupids"):
        cluster.render_group(NoGroups(), "render-book-1")


def test_patches_apply_once_however_often_the_snakefile_is_parsed():
    scheduling.coalesce_reevaluations()
    scheduling.list_remaining_jobs_on_demand()
    cluster.keep_group_components_on_restart()
    scheduler = job_scheduler_class()
    first = (scheduler._schedule_reevalutation, scheduler.remaining_jobs, snakemake_dag_update_groups())
    assert all(patched(piece) for piece in first)
    scheduling.coalesce_reevaluations()
    scheduling.list_remaining_jobs_on_demand()
    cluster.keep_group_components_on_restart()
    assert (
        scheduler._schedule_reevalutation,
        scheduler.remaining_jobs,
        snakemake_dag_update_groups(),
    ) == first


def snakemake_dag_update_groups():
    from snakemake.dag import DAG

    return DAG.update_groups


def test_snakemake_outside_the_range_stops_the_workflow_in_one_line():
    """The whole Snakefile, parsed by a Snakemake that says it is 10.0.0: one line, exit 1."""
    pretend = (
        "import snakemake, sys; snakemake.__version__ = '10.0.0'; "
        "from snakemake.cli import main; sys.argv = ['snakemake', '-n']; main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", pretend], check=False, cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1
    refusal = [line for line in done.stderr.splitlines() if line.startswith("narrator:")]
    assert refusal == [
        f"narrator: Snakemake 10.0.0 is not supported: narrator needs Snakemake {SUPPORTED} "
        f"(pip install 'snakemake{SUPPORTED}')"
    ]
    assert "Traceback" not in done.stderr

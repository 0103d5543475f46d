"""Snakemake 9 workarounds that make grouped render jobs work on a cluster.

They reach into Snakemake internals (workflow.execute, DAG.update_groups,
workflow.parent_groupids), each checked first by narrator.workflow.snakemake_internals.internal,
which refuses a Snakemake where they changed.
"""

from __future__ import annotations

from typing import Any

from narrator.workflow.snakemake_internals import (
    SUPPORTED,
    SnakemakeVersionError,
    internal,
    patched,
    replace,
    running_version,
)


def run_cluster_job_in_this_process(workflow: Any) -> None:
    """In a cluster job (--mode remote), run its rules as threads of this one process.

    A cluster job is one Snakemake in --mode remote: it loads no profile and gets no
    --force-use-threads, so its local executor spawns a new `python -m snakemake` per run: job,
    and the Slurm plugin's in-job executor (slurm-jobstep) even starts one srun + Snakemake per
    member of a group. Either way a render group would load its engine once per segment. Here
    the job's members run as threads of this process (one engine load per group), the group's
    --cores bounding how many at once. Both settings are read when execution starts, after the
    Snakefile is parsed (execution_settings is still None then), so they are set at that moment.
    The fix to offer upstream: pass --force-use-threads on to the jobs of a group submission.
    """
    from snakemake_interface_executor_plugins.registry import ExecutorPluginRegistry

    execute = internal(workflow, "execute", ("executor_plugin", "executor_settings"))

    def execute_here(*args: Any, **kwargs: Any) -> Any:
        if kwargs["executor_plugin"].name == "slurm-jobstep":
            kwargs["executor_plugin"] = ExecutorPluginRegistry().get_plugin("local")
            kwargs["executor_settings"] = None
            # --jobs 1 from the plugin would run one member at a time; --cores bounds them.
            workflow.global_resources["_nodes"] = None
        workflow.execution_settings.use_threads = True
        return execute(*args, **kwargs)

    workflow.execute = execute_here


def keep_group_components_on_restart() -> None:
    """Rebuild render groups from scratch each time Snakemake regroups its jobs.

    Snakemake 9 caches group jobs by their initial members, and group-components merges
    jobs into those cached objects. A run that starts with the catalog already planned (every
    restart) regroups twice, gets the merged objects back and builds wrong groups: one job
    holding all pending segments beside the 25-segment ones, the same segments submitted twice,
    and an early exit 0 without the book (snakemake/snakemake#1217, #1628). An empty cache makes
    each regrouping start from the jobs themselves. The fix to offer upstream: key the group job
    cache by the final members, or clear it in DAG.update_groups as here.
    """
    from snakemake.dag import DAG

    update_groups = internal(DAG, "update_groups", ("self",))
    if patched(update_groups):
        return

    def update_groups_afresh(self: DAG) -> Any:
        self.group_job_factory.cache.clear()
        return update_groups(self)

    replace(DAG, "update_groups", update_groups_afresh)


def render_group(workflow: Any, name: str) -> str:
    """``name``, declared a part of the group "render" so group-components render=N applies to it.

    Snakemake 9 looks a group's components up under its parent's name, and records the
    parent only for a group named with wildcards (render-{book}), not for one a function names.
    Render groups are named by a function (narrator/render/groups.py), so without this the profiles'
    group-components would not apply and every segment would be a submission of its own.
    The fix to offer upstream: record the parent of a group named by a function too.
    """
    if not isinstance(getattr(workflow, "parent_groupids", None), dict):
        raise SnakemakeVersionError(
            f"Snakemake {running_version()}: workflow.parent_groupids is not the dict narrator's "
            f"render groups need; use Snakemake {SUPPORTED}"
        )
    workflow.parent_groupids[name] = "render"
    return name

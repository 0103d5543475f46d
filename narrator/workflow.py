"""The bridge from Snakemake rules to the stage functions: logs and user-facing failures."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from snakemake.exceptions import WorkflowError

from narrator.errors import UserError


def run_logged(log_path: str, stage: Callable[..., str], *args: Any, **kwargs: Any) -> None:
    """Run a stage and write its one-line summary, or its error, to the rule's log.

    A UserError fails the job with its own message only; anything else keeps its traceback,
    because it is a bug rather than a mistake.
    """
    log = Path(log_path)
    log.parent.mkdir(parents=True, exist_ok=True)
    try:
        summary = stage(*args, **kwargs)
    except UserError as error:
        log.write_text(f"error: {error}\n")
        raise WorkflowError(str(error)) from None
    log.write_text(f"{summary}\n")

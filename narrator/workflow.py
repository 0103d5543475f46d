"""The bridge from Snakemake rules to the stage functions: logs and user-facing failures."""

from __future__ import annotations

import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from snakemake.exceptions import WorkflowError

from narrator.errors import UserError


def bug_message(what: str, error: BaseException, log: Path) -> str:
    """One line for an unexpected failure: what failed, the error, and where its traceback is."""
    detail = (str(error).strip().splitlines() or [""])[0]
    return (
        f"{what} failed: {type(error).__name__}: {detail}; this is a bug in narrator, please report it "
        f"with the traceback in {log}"
    )


def run_logged(log_path: str, stage: Callable[..., str], *args: Any, **kwargs: Any) -> None:
    """Run a stage and write its summary, or its error, to the rule's log; the log is never empty.

    A UserError fails the job with its own message only. Anything else is a bug: the job fails
    with one line naming the rule and its target ("plan_catalog alice"), and the traceback goes to
    the log, where a bug report needs it.
    """
    log = Path(log_path)
    log.parent.mkdir(parents=True, exist_ok=True)
    try:
        summary = stage(*args, **kwargs)
    except UserError as error:
        log.write_text(f"error: {error}\n")
        raise WorkflowError(str(error)) from None
    except Exception as error:
        message = bug_message(f"{log.parent.name} {log.stem}", error, log)
        log.write_text(f"error: {message}\n\n{traceback.format_exc()}")
        raise WorkflowError(message) from None
    log.write_text(f"{summary}\n")

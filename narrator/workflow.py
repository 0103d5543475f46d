"""The bridge from Snakemake rules to the stage functions: logs and user-facing failures."""

from __future__ import annotations

import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from snakemake.exceptions import WorkflowError

from narrator.errors import UserError


def log_bug(what: str, error: BaseException, log: Path) -> str:
    """Write an unexpected failure's traceback to the log; return one line saying what failed."""
    detail = (str(error).strip().splitlines() or [""])[0]
    message = (
        f"{what} failed: {type(error).__name__}: {detail}; this is a bug in narrator, please report it "
        f"with the traceback in {log}"
    )
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(f"error: {message}\n\n{traceback.format_exc()}")
    return message


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
    except Exception as error:  # noqa: BLE001 - any other failure is a bug: report it, keep the traceback
        raise WorkflowError(log_bug(f"{log.parent.name} {log.stem}", error, log)) from None
    log.write_text(f"{summary}\n")

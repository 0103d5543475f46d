"""The Snakemake versions narrator runs on, and the check every patch of an internal makes first.

narrator patches four pieces of Snakemake that are not its public API (narrator/workflow/scheduling.py
and cluster.py). Each patch asks ``internal`` for the piece it replaces: the running Snakemake must
be in ``SUPPORTED`` and the piece must have the shape the patch was written for, or the run stops
with one line naming the running version, instead of a traceback hours later or a patch that
silently does nothing. The oldest and the newest release of the range are both tested in CI
(scripts/test.sh).
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from narrator.core.errors import UserError

#: The releases narrator's tests pass on, the oldest and the newest of them in CI. The patched
#: internals have the same signatures from 9.0, but before 9.11 the scheduler lived elsewhere and
#: its job selector did not read the list that list_remaining_jobs_on_demand makes lazy, and the
#: end-to-end tests' reading of Snakemake's logs fails on 9.0. Snakemake 10 may change any of
#: them, so it is refused until it has been checked.
SUPPORTED = ">=9.11,<10"


class SnakemakeVersionError(UserError):
    """The running Snakemake is outside the supported range, or an internal changed shape."""


def running_version() -> str:
    import snakemake

    return str(snakemake.__version__)


def check_supported(version: str | None = None) -> str:
    """The running Snakemake's version, refused in one line when it is outside ``SUPPORTED``."""
    version = version or running_version()
    try:
        supported = SpecifierSet(SUPPORTED).contains(Version(version), prereleases=True)
    except InvalidVersion:
        supported = False
    if not supported:
        raise SnakemakeVersionError(
            f"Snakemake {version} is not supported: narrator needs Snakemake {SUPPORTED} "
            f"(pip install 'snakemake{SUPPORTED}')"
        )
    return version


def job_scheduler_class() -> Any:
    """Snakemake's JobScheduler, refused in one line where it is not."""
    try:
        return importlib.import_module("snakemake.scheduling.job_scheduler").JobScheduler
    except (ImportError, AttributeError):
        raise SnakemakeVersionError(
            f"Snakemake {running_version()} has no JobScheduler where narrator looks for it; "
            f"use Snakemake {SUPPORTED}"
        ) from None


def internal(owner: Any, name: str, parameters: tuple[str, ...] = (), *, prop: bool = False) -> Any:
    """``owner.name`` as a patch expects it: a function whose parameters begin with ``parameters``,
    or a property; anything else is refused in one line naming the running version."""
    version = check_supported()
    where = f"{getattr(owner, '__name__', type(owner).__name__)}.{name}"
    found = inspect.getattr_static(owner, name, None)
    if prop:
        shaped = isinstance(found, property) and found.fget is not None
    else:
        found = getattr(owner, name, None)
        shaped = callable(found) and _parameters(found)[: len(parameters)] == list(parameters)
    if not shaped:
        expected = "a property" if prop else f"a function of ({', '.join(parameters)})"
        raise SnakemakeVersionError(
            f"Snakemake {version}: {where} is not {expected}, which narrator's patch needs; "
            f"use Snakemake {SUPPORTED}"
        )
    return found


def _parameters(function: Any) -> list[str]:
    try:
        return list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return []


#: The replacements narrator has put in place, so that a patch applied twice (a Snakefile parsed
#: again in the same process) replaces Snakemake's piece, never its own.
_REPLACEMENTS: set[Any] = set()


def patched(piece: Any) -> bool:
    """Whether ``piece`` (a function, or a property's getter) is one of narrator's replacements."""
    return getattr(piece, "fget", piece) in _REPLACEMENTS


def replace(owner: Any, name: str, replacement: Any) -> None:
    """Put ``replacement`` in place of ``owner.name`` and remember it as narrator's."""
    _REPLACEMENTS.add(getattr(replacement, "fget", replacement))
    setattr(owner, name, replacement)

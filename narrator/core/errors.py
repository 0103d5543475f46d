"""Errors caused by the user's input or setup, reported as one line without a traceback."""

import errno


class UserError(Exception):
    """A mistake the user can fix; str(error) is the whole message."""


class BookError(UserError):
    """The book cannot be read or has nothing to speak."""


class CatalogError(UserError):
    """The catalog is missing, malformed, or disagrees with the published audio."""


def first_line(error: BaseException) -> str:
    """The first line of an error's message, or its type when it has none: for one-line refusals."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def out_of_memory(error: BaseException) -> bool:
    """A failure for want of memory: a MemoryError, no memory left for a thread's stack, or a
    library that could not be mapped (an address-space limit: ulimit -v, a cluster job's cap)."""
    text = str(error)
    return (
        isinstance(error, MemoryError)
        or (isinstance(error, RuntimeError) and "can't start new thread" in text)
        or (isinstance(error, ImportError) and "failed to map segment" in text)
        or (isinstance(error, OSError) and error.errno == errno.ENOMEM)
    )

"""Errors caused by the user's input or setup, reported as one line without a traceback."""


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

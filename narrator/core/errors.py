"""Errors caused by the user's input or setup, reported as one line without a traceback."""


class UserError(Exception):
    """A mistake the user can fix; str(error) is the whole message."""


class BookError(UserError):
    """The book cannot be read or has nothing to speak."""


class CatalogError(UserError):
    """The catalog is missing, malformed, or disagrees with the published audio."""

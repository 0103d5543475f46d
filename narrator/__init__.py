"""narrator: turn a book into an audiobook with a local text-to-speech model, crash-safely."""

__version__ = "0.1.0"

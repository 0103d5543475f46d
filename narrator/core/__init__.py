"""The shared core every stage stands on: the book's model, the catalog, audio, publishing, locks."""

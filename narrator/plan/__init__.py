"""The plan checkpoint: the whole segment catalog, written before any audio work."""

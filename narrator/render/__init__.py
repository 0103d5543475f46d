"""One job per segment: synthesize, verify (the ASR check too), mark, publish."""

"""Everything that touches Snakemake: parse-time bootstrap, rule bodies, patches of its internals."""

# Plan first: the whole catalog is on disk, atomically, before any render job exists.


checkpoint plan_catalog:
    input:
        book=get_book,
        lexicon=get_lexicon,
        fixes=get_fixes,
    output:
        catalog=f"{RESULTS}/{{book}}/catalog.tsv",
        book_json=f"{RESULTS}/{{book}}/book.json",
    log:
        "logs/plan_catalog/{book}.log",
    params:
        # Snakemake records only params of built-in types, and reruns a job whose params changed:
        # the digest makes a changed voice option, budget or chapter choice re-plan the book.
        settings=lambda wildcards: SHELF[wildcards.book].plan.digest(),
    run:
        from narrator.workflow.jobs import run_logged
        from narrator.plan.plan import write_plan

        run_logged(
            log[0],
            write_plan,
            input.book,
            output.catalog,
            output.book_json,
            SHELF[wildcards.book].plan,
        )

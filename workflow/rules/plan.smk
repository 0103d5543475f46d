# Plan first: the whole catalog is on disk, atomically, before any render job exists.


checkpoint plan_catalog:
    input:
        book=get_book,
    output:
        catalog=f"{RESULTS}/{{book}}/catalog.tsv",
    log:
        "logs/plan_catalog/{book}.log",
    params:
        engine=config["engine"],
        options=ENGINE_OPTIONS,
        budget=min(config["max_chars"], ENGINE.max_chars),
    run:
        from narrator.workflow import run_logged
        from narrator.plan import write_plan

        run_logged(
            log[0],
            write_plan,
            input.book,
            output.catalog,
            engine=params.engine,
            options=params.options,
            budget=params.budget,
        )

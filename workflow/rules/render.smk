# One job per segment. No inputs on purpose: listing the catalog would re-run every segment
# whenever a mark rewrites it (FACTS.md); the checkpoint orders these jobs after the plan.


rule render_segment:
    output:
        wav=f"{RESULTS}/{{book}}/segments/{{segment}}.wav",
    log:
        "logs/render_segment/{book}/{segment}.log",
    resources:
        gpu=GPUS_PER_RENDER,
    params:
        catalog=get_catalog,
        engine=config["engine"],
    run:
        from narrator.workflow import run_logged
        from narrator.render import render_segment

        run_logged(
            log[0],
            render_segment,
            params.catalog,
            wildcards.segment,
            output.wav,
            engine=params.engine,
            options=ENGINE_OPTIONS,
        )

# One job per segment. No inputs on purpose: listing the catalog would re-run every segment
# whenever a mark rewrites it (measured: every segment re-ran after one mark); the checkpoint
# orders these jobs after the plan.
# On a cluster, each render group (a run of a book's segments expected to take
# render_groups.minutes to render, config.yaml) is one submission, so it pays one Snakemake
# start-up and one engine load for many segments; the local executor ignores groups.


rule render_segment:
    output:
        wav=f"{RESULTS}/{{book}}/segments/{{segment}}.wav",
    log:
        "logs/render_segment/{book}/{segment}.log",
    group:
        get_render_group
    resources:
        gpu=RUN.gpus_per_render,
        runtime=get_render_runtime,
    params:
        catalog=get_catalog,
        engine=config["engine"],
    run:
        from narrator.workflow.jobs import run_logged
        from narrator.render.render import render_segment

        run_logged(
            log[0],
            render_segment,
            params.catalog,
            wildcards.segment,
            output.wav,
            engine=params.engine,
            options=SHELF[wildcards.book].options,
            check=SHELF[wildcards.book].asr,
        )


# `snakemake render_all`: plan and render every segment, then stop (no assembly or packaging).
rule render_all:
    input:
        get_shelf_segment_wavs,

# The lossless master, from verified segments only, with one book-level loudness gain.


rule assemble_book:
    input:
        catalog=get_catalog,
        segments=get_segment_wavs,
    output:
        book=f"{RESULTS}/{{book}}/{{book}}.wav",
        loudness=f"{RESULTS}/{{book}}/loudness.json",
    log:
        "logs/assemble_book/{book}.log",
    params:
        pauses=config["pauses"],
        loudness=config["loudness"],
    run:
        from narrator.workflow.jobs import run_logged
        from narrator.assemble.assemble import assemble_book
        from narrator.assemble.loudness import LoudnessTarget

        run_logged(
            log[0],
            assemble_book,
            input.catalog,
            output.book,
            params.pauses,
            LoudnessTarget(**params.loudness),
            output.loudness,
        )

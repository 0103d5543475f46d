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
        # A param of built-in types, so that a changed target assembles the book again.
        loudness=config["loudness"],
    run:
        from narrator.workflow.jobs import run_logged
        from narrator.assemble.assemble import assemble_book

        run_logged(
            log[0],
            assemble_book,
            input.catalog,
            output.book,
            params.pauses,
            RUN.loudness,
            output.loudness,
        )

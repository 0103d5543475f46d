# The book, from verified segments only.


rule assemble_book:
    input:
        catalog=get_catalog,
        segments=get_segment_wavs,
    output:
        book=f"{RESULTS}/{{book}}/{{book}}.wav",
    log:
        "logs/assemble_book/{book}.log",
    params:
        pauses=config["pauses"],
    run:
        from narrator.workflow import run_logged
        from narrator.assemble import assemble_book

        run_logged(log[0], assemble_book, input.catalog, output.book, params.pauses)

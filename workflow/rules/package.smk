# Audiobook out: the M4B, per-chapter files, ACX files, subtitles and the read-along EPUB, all from the master WAV and
# the timeline (catalog frames + pauses). Changing pauses, loudness or encoding re-runs these, never
# a render.


rule package_m4b:
    input:
        unpack(get_package_inputs),
    output:
        m4b=f"{RESULTS}/{{book}}/{{book}}.m4b",
    log:
        "logs/package_m4b/{book}.log",
    # ffmpeg's AAC encoder uses one CPU: the master is encoded in this many parts at once.
    threads: RUN.m4b_threads
    params:
        pauses=config["pauses"],
        settings=RUN.package,
    run:
        from narrator.workflow.jobs import run_logged
        from narrator.package.m4b import package_m4b

        run_logged(
            log[0],
            package_m4b,
            input.master,
            input.catalog,
            input.book_json,
            output.m4b,
            params.pauses,
            params.settings,
            threads,
        )


rule package_chapters:
    input:
        unpack(get_package_inputs),
    output:
        chapters=directory(f"{RESULTS}/{{book}}/chapters"),
    log:
        "logs/package_chapters/{book}.log",
    params:
        pauses=config["pauses"],
        settings=RUN.package,
    run:
        from narrator.workflow.jobs import run_logged
        from narrator.package.chapters import package_chapters

        run_logged(
            log[0],
            package_chapters,
            input.master,
            input.catalog,
            input.book_json,
            output.chapters,
            params.pauses,
            params.settings,
        )


rule package_acx:
    input:
        unpack(get_package_inputs),
    output:
        acx=directory(f"{RESULTS}/{{book}}/acx"),
    log:
        "logs/package_acx/{book}.log",
    params:
        pauses=config["pauses"],
        settings=RUN.package,
    run:
        from narrator.workflow.jobs import run_logged
        from narrator.package.acx import package_acx

        run_logged(
            log[0],
            package_acx,
            input.master,
            input.catalog,
            input.book_json,
            output.acx,
            params.pauses,
            params.settings,
        )


rule package_epub:
    input:
        unpack(get_package_inputs),
        # A source EPUB's own text is kept, each segment wrapped in place.
        book=get_book,
    output:
        epub=f"{RESULTS}/{{book}}/{{book}}.epub",
    log:
        "logs/package_epub/{book}.log",
    # Chapters are encoded this many at once, as the M4B's parts are.
    threads: RUN.m4b_threads
    params:
        pauses=config["pauses"],
        settings=RUN.package,
    run:
        from narrator.workflow.jobs import run_logged
        from narrator.package.epub import package_epub

        run_logged(
            log[0],
            package_epub,
            input.master,
            input.catalog,
            input.book_json,
            output.epub,
            params.pauses,
            params.settings,
            threads,
            input.book,
        )


rule package_subtitles:
    input:
        master=get_master,
        catalog=get_catalog,
    output:
        subtitles=f"{RESULTS}/{{book}}/{{book}}.{{kind}}",
    log:
        "logs/package_subtitles/{book}.{kind}.log",
    wildcard_constraints:
        kind="srt|vtt",
    params:
        pauses=config["pauses"],
    run:
        from narrator.workflow.jobs import run_logged
        from narrator.package.subtitles import write_subtitles

        run_logged(
            log[0],
            write_subtitles,
            input.catalog,
            input.master,
            output.subtitles,
            params.pauses,
            wildcards.kind,
        )

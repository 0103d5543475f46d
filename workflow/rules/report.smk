# Figures for `snakemake --report report.html`, drawn from the catalog and loudness.json as soon as
# the master is assembled, beside the M4B's encoding; then the landing page's key figures
# (summary.rst), which include the output check of every output, so that rule waits for the outputs
# and redraws (in seconds) when one changes. Reading the catalog here is harmless: render jobs have
# no inputs, so nothing re-renders for it.


localrules:
    report_plots,
    report_summary,


rule report_plots:
    input:
        catalog=get_catalog,
        loudness=rules.assemble_book.output.loudness,
    output:
        chapter_minutes=report(
            f"{RESULTS}/{{book}}/report/chapter_minutes.svg",
            caption="../report/chapter_minutes.rst",
            category="Audio",
            labels={"figure": "audio minutes per chapter"},
        ),
        chapter_pace=report(
            f"{RESULTS}/{{book}}/report/chapter_pace.svg",
            caption="../report/chapter_pace.rst",
            category="Audio",
            labels={"figure": "words per minute per chapter"},
        ),
        loudness=report(
            f"{RESULTS}/{{book}}/report/loudness.svg",
            caption="../report/loudness.rst",
            category="Audio",
            labels={"figure": "loudness before and after"},
        ),
        render_rtf=report(
            f"{RESULTS}/{{book}}/report/render_rtf.svg",
            caption="../report/render_rtf.rst",
            category="Rendering",
            labels={"figure": "real-time factor per segment"},
        ),
        throughput=report(
            f"{RESULTS}/{{book}}/report/throughput.svg",
            caption="../report/throughput.rst",
            category="Rendering",
            labels={"figure": "throughput over time"},
        ),
        slowest_segments=report(
            f"{RESULTS}/{{book}}/report/slowest_segments.svg",
            caption="../report/slowest_segments.rst",
            category="Rendering",
            labels={"figure": "slowest segments"},
        ),
        asr_scores=report(
            f"{RESULTS}/{{book}}/report/asr_scores.svg",
            caption="../report/asr_scores.rst",
            category="Audio",
            labels={"figure": "ASR check score per chapter"},
        ),
    log:
        "logs/report_plots/{book}.log",
    params:
        pauses=config["pauses"],
    run:
        from narrator.workflow.jobs import run_logged
        from narrator.inspect.report import PLOTS, write_report_plots

        run_logged(
            log[0],
            write_report_plots,
            input.catalog,
            input.loudness,
            {name: getattr(output, name) for name in PLOTS},
            params.pauses,
        )


rule report_summary:
    input:
        catalog=get_catalog,
        loudness=rules.assemble_book.output.loudness,
        book_json=get_book_json,
        master=get_master,
        # Every output the config asks for ({book} stays a wildcard): the output check measures them.
        outputs=[
            OUTPUT_PATHS[kind].format(results=RESULTS, book="{book}")
            for kind in RUN.outputs
        ],
        # Written after the plots, so the landing page never includes a page whose plots are missing.
        plots=rules.report_plots.output,
        # Flags set by ear in the studio (narrator.inspect.flags) are listed: a new one writes it again.
        flags=get_flags,
    output:
        summary=f"{RESULTS}/{{book}}/report/summary.rst",
    log:
        "logs/report_summary/{book}.log",
    run:
        from narrator.workflow.jobs import run_logged
        from narrator.inspect.report import write_summary

        run_logged(
            log[0],
            write_summary,
            input.catalog,
            input.loudness,
            input.book_json,
            output.summary,
        )

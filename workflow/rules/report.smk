# Figures for `snakemake --report report.html`, drawn from the catalog and loudness.json alone.
# Reading the catalog here is harmless: render jobs have no inputs, so nothing re-renders for it.


localrules:
    report_plots,


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
    log:
        "logs/report_plots/{book}.log",
    params:
        pauses=config["pauses"],
    run:
        from narrator.workflow import run_logged
        from narrator.report import PLOTS, write_report_plots

        run_logged(
            log[0],
            write_report_plots,
            input.catalog,
            input.loudness,
            {name: getattr(output, name) for name in PLOTS},
            params.pauses,
        )

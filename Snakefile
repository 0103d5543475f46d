# narrator: book in, audiobook out. Plan (checkpoint) -> render one job per segment -> assemble
# the master WAV -> package (M4B, chapter files, subtitles).
from snakemake.utils import min_version

min_version("9.0")


configfile: "config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/plan.smk"
include: "workflow/rules/render.smk"
include: "workflow/rules/assemble.smk"
include: "workflow/rules/package.smk"
include: "workflow/rules/report.smk"


rule all:
    input:
        get_final_output(),

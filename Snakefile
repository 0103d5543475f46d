# narrator: book in, audiobook out. Plan (checkpoint) -> render one job per segment -> assemble.
from snakemake.utils import min_version

min_version("9.0")


configfile: "config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/plan.smk"
include: "workflow/rules/render.smk"
include: "workflow/rules/assemble.smk"


rule all:
    input:
        get_final_output(),

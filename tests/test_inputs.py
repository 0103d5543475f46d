"""Everything the config names is checked before any work: typed overrides, files, limits, identity."""

from __future__ import annotations

import copy
import json

import pytest
import yaml
from conftest import REPO, Workdir
from snakemake.cli import parse_config
from snakemake.utils import update_config

from narrator.config import validate_config
from narrator.errors import UserError

SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"
NOVEL = "# Novel\n\n## One\n\nThe lamp was lit at six. Nobody saw it.\n"


def _config(*entries: str) -> dict:
    """The config Snakemake 9 hands the workflow for ``--config entries``, validated by narrator."""
    overrides = parse_config(list(entries))
    config = copy.deepcopy(overrides)
    update_config(config, yaml.safe_load((REPO / "config.yaml").read_text()))
    update_config(config, overrides)
    validate_config(config, SCHEMA, overrides)
    return config


def _one_line(error: pytest.ExceptionInfo[UserError], *parts: str) -> str:
    text = str(error.value)
    assert "\n" not in text
    for part in parts:
        assert part in text
    return text


# --- nested --config values ---------------------------------------------------------------------


def test_nested_overrides_are_typed_and_merged_into_the_defaults() -> None:
    config = _config(
        "loudness={'target': -16}",
        "pauses={sentence: 0.5}",
        "engines={espeak: {rate: 150}}",
        "chapters={include: [3, Epilogue]}",
    )
    assert config["loudness"] == {"target": -16, "true_peak": -1.5}
    assert config["pauses"]["sentence"] == 0.5 and config["pauses"]["chapter"] == 2.0
    assert config["engines"]["espeak"] == {"voice": "auto", "rate": 150}
    assert config["engines"]["piper"]["threads"] == 1
    assert config["chapters"] == {"include": [3, "Epilogue"], "exclude": []}


def test_nested_text_stays_text_where_the_schema_wants_text() -> None:
    config = _config("engines={espeak: {voice: 'no'}}", "encode={m4b_bitrate: 96k}")
    assert config["engines"]["espeak"]["voice"] == "no"
    assert config["encode"]["m4b_bitrate"] == "96k"


def test_a_nested_number_out_of_range_is_named_as_a_number() -> None:
    with pytest.raises(UserError) as error:
        _config("engines={espeak: {rate: 79}}")
    assert str(error.value) == "config engines.espeak.rate: 79 is less than the minimum of 80"


# --- end to end: all of it is refused before any job starts -------------------------------------


@pytest.mark.slow
def test_nested_overrides_reach_the_rendered_book(workdir: Workdir) -> None:
    (workdir.path / "novel.md").write_text(NOVEL)
    workdir.run_book(
        "book=novel.md",
        "loudness={'target': -20, 'true_peak': -1}",
        "pauses={sentence: 0.5}",
        "engines={espeak: {rate: 150}}",
    )
    loudness = json.loads((workdir.results("novel") / "loudness.json").read_text())
    assert (loudness["target_lufs"], loudness["true_peak_ceiling_dbtp"]) == (-20, -1)

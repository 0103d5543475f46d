"""Validate the workflow config against its JSON schema, and the files it names, one line per mistake."""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from PIL import Image

from narrator.core.errors import UserError
from narrator.core.publish import require_file

Schema = Mapping[str, Any]


def validate_config(
    config: MutableMapping[str, Any], schema_path: str | Path, overrides: Mapping[str, Any]
) -> None:
    """Raise UserError naming the offending key, e.g. "config engine: 'x' is not one of [...]".

    ``overrides`` are the --config values as Snakemake parsed them, already merged into
    ``config``; their nested values are typed first (see ``type_overrides``).
    """
    schema = yaml.safe_load(Path(schema_path).read_text())
    type_overrides(config, overrides, schema)
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(config))
    if error is not None:
        where = ".".join(str(part) for part in error.absolute_path) or "(top level)"
        raise UserError(f"config {where}: {error.message}")


def type_overrides(config: MutableMapping[str, Any], overrides: Mapping[str, Any], schema: Schema) -> None:
    """Read the text inside nested --config values as YAML reads config.yaml, in place.

    Snakemake types a top-level value (``max_chars=300`` is a number) but parses a nested one
    with YAML's base loader, which leaves every scalar text: ``loudness="{target: -16}"`` gives
    ``{"target": "-16"}``. Such text becomes the number, boolean or null YAML reads in it, unless
    the schema accepts the text but not that value: the command line's quotes are gone by then,
    so ``engines="{espeak: {voice: 'no'}}"`` must stay the text "no", not false.
    """
    for key, override in overrides.items():
        if key in config and isinstance(override, Mapping | list):
            config[key] = _typed(config[key], override, _property(schema, key))


def _typed(value: Any, override: Any, schema: Schema | None) -> Any:
    if isinstance(override, Mapping) and isinstance(value, MutableMapping):
        for key, inner in override.items():
            if key in value:
                value[key] = _typed(value[key], inner, _property(schema, key))
        return value
    if isinstance(override, list) and isinstance(value, list):
        items = schema.get("items") if schema else None
        return [_typed(item, given, items) for item, given in zip(value, override, strict=True)]
    if isinstance(value, str):
        try:
            scalar = yaml.safe_load(value)
        except yaml.YAMLError:
            return value
        if not (isinstance(scalar, bool | int | float) or scalar is None):
            return value
        if schema is None:
            return scalar
        valid = jsonschema.Draft202012Validator(schema).is_valid
        # Out of range is still a number: "79 is less than the minimum of 80" says more.
        return value if valid(value) and not valid(scalar) else scalar
    return value


def _property(schema: Schema | None, key: str) -> Schema | None:
    """The schema of ``key`` in an object described by ``schema``, if it describes one."""
    if not schema:
        return None
    inner = schema.get("properties", {}).get(key, schema.get("additionalProperties"))
    return inner if isinstance(inner, Mapping) else None


def check_cover(path: str | Path) -> None:
    """The cover must decode as an image now, not after the whole book has rendered."""
    path = Path(path)
    require_file(path, "cover image")
    try:
        with Image.open(path) as image:
            image.load()
    except Exception as problem:  # noqa: BLE001 - Pillow raises many kinds for a damaged file
        detail = " ".join(str(problem).split()) or type(problem).__name__
        raise UserError(f"{path}: the cover is not an image ({detail})") from None

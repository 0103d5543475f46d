"""Validate the workflow config against its JSON schema, with a one-line message per mistake."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from narrator.errors import UserError


def validate_config(config: Mapping[str, Any], schema_path: str | Path) -> None:
    """Raise UserError naming the offending key, e.g. "config engine: 'x' is not one of [...]"."""
    schema = yaml.safe_load(Path(schema_path).read_text())
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(config))
    if error is not None:
        where = ".".join(str(part) for part in error.absolute_path) or "(top level)"
        raise UserError(f"config {where}: {error.message}")

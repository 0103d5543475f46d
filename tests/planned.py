"""Hand-made catalogs with the plan record that assembly, status and verify check them against."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from narrator.core.catalog import BOOK_JSON, PlanRecord, write_catalog


def write_planned(catalog_path: Path, rows: Sequence[Mapping[str, str]]) -> None:
    """Write the catalog and a book.json whose plan record vouches for exactly these rows."""
    write_catalog(catalog_path, rows)
    plan = PlanRecord.of(rows, source_sha256="", settings_sha256="")
    catalog_path.with_name(BOOK_JSON).write_text(json.dumps({"plan": plan.as_json()}))

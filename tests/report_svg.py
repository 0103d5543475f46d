"""What the report's plots show: the texts matplotlib draws into each SVG."""

from __future__ import annotations

import html
import re
from pathlib import Path

from narrator.inspect.report import PLOTS


def svg_texts(folder: Path) -> dict[str, list[str]]:
    """The texts each plot in the folder shows, by name.

    matplotlib draws text as glyph outlines, each after an XML comment holding the text it draws.
    """
    shown = {}
    for name in PLOTS:
        svg = (folder / f"{name}.svg").read_text()
        shown[name] = [html.unescape(text).strip() for text in re.findall(r"<!-- (.*?) -->", svg, re.S)]
    return shown

"""Bring each corpus entry's ``misses`` up to date with what narrator plans now.

tests/unit/text/test_corpus.py fails until an entry records, word for word, what narrator still
misses; after a fix (or to see a regression) run this, then read the diff of corpus.yaml.

    python bench/corpus_misses.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from corpus_expectations import failures  # noqa: E402

CORPUS = REPO / "tests/data/books/corpus.yaml"
# An entry's "misses:" block: the key and its list items, right under "- file: NAME".
_MISSES = re.compile(r"(?m)^(    misses:\n(?:      - .*\n)+)")


def _block(missed: list[str]) -> str:
    """The "misses:" block for ``missed``, each item double-quoted as the file writes them."""
    if not missed:
        return ""
    items = [yaml.safe_dump(m, allow_unicode=True, width=10**6, default_style='"').strip() for m in missed]
    return "    misses:\n" + "".join(f"      - {item}\n" for item in items)


def main() -> None:
    text = CORPUS.read_text(encoding="utf-8")
    entries = yaml.safe_load(text)["books"]
    parts = re.split(r"(?m)^(  - file: .*\n)", text)
    # parts: [head, "  - file: A\n", body A, "  - file: B\n", body B, ...]
    for n in range(1, len(parts), 2):
        name = parts[n].split("file:", 1)[1].strip()
        entry = next(e for e in entries if e["file"] == name)
        missed = failures(entry, CORPUS.parent)
        body = _MISSES.sub("", parts[n + 1], count=1)
        parts[n + 1] = _block(missed) + body
        print(f"{'pass' if not missed else 'FAIL'}  {name}")
    CORPUS.write_text("".join(parts), encoding="utf-8")


if __name__ == "__main__":
    main()

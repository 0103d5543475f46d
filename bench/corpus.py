"""The real-book corpus, planned as the workflow plans it: one line per book and the pass count.

Each book is checked against its expectations in corpus.yaml (tests/corpus_expectations.py):
language, chapter count, first and last titles, what must never and what must be spoken. The
held-out books (``held_out: true``) are counted apart.

    python bench/corpus.py                              # tests/data/books/corpus.yaml
    python bench/corpus.py path/to/corpus.yaml --only held-out
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from corpus_expectations import failures  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", nargs="?", type=Path, default=REPO / "tests/data/books/corpus.yaml")
    parser.add_argument("--only", choices=("all", "held-out", "seen"), default="all")
    args = parser.parse_args()
    entries = yaml.safe_load(args.corpus.read_text(encoding="utf-8"))["books"]
    if args.only != "all":
        entries = [e for e in entries if bool(e.get("held_out")) == (args.only == "held-out")]
    # The books sit beside their corpus.yaml, or in a books/ folder there.
    books = args.corpus.parent / "books" if (args.corpus.parent / "books").is_dir() else args.corpus.parent
    passed = {True: 0, False: 0}
    total = {True: 0, False: 0}
    for entry in entries:
        held_out = bool(entry.get("held_out"))
        if entry.get("requires") and shutil.which(entry["requires"]) is None:
            print(f"skip  {'':8}  {entry['file']:48}  needs {entry['requires']}")
            continue
        missed = failures(entry, books)
        total[held_out] += 1
        passed[held_out] += not missed
        mark = "pass" if not missed else "FAIL"
        where = "held-out" if held_out else "seen"
        print(f"{mark}  {where:8}  {entry['file']:48}  {'; '.join(missed)[:300]}")
    for held_out, name in ((False, "seen"), (True, "held-out")):
        if total[held_out]:
            print(f"{name}: {passed[held_out]} of {total[held_out]} pass")
    print(f"all: {sum(passed.values())} of {sum(total.values())} pass")


if __name__ == "__main__":
    main()

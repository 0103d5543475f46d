"""BCP 47 tags as the ISO 639-2 codes an M4B's audio stream carries (narrator/core/language.py)."""

from __future__ import annotations

from narrator.core.language import iso639_2


def test_language_codes() -> None:
    assert [iso639_2(tag) for tag in ("en", "en-GB", "de", "fra", "pt_BR", "", "xx")] == [
        "eng",
        "eng",
        "deu",
        "fra",
        "por",
        "und",
        "und",
    ]

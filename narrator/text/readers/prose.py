"""What a paragraph of the book's own text looks like, in any script: words, and a sentence's end."""

from __future__ import annotations

import re

# A sentence's end, with the quotes and brackets that may close it in any language ("…!“", "…?»",
# "。」").
SENTENCE_END = re.compile(
    "[.!?\u2026\u3002\uff01\uff1f][\"'\u201c\u201d\u2018\u2019\u00ab\u00bb\u203a\u300d\u300f)\\]_*]*$"
)
# Chinese characters and Japanese kana: scripts that write words without spaces between them.
_HAN_KANA = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
#: A paragraph of the book's own text, not a title page's line: this many words, ending a sentence.
PROSE_WORDS = 12


def words(text: str) -> int:
    """Words of a text, in scripts written without spaces too: two Han or kana characters a word."""
    return len(text.split()) + len(_HAN_KANA.findall(text)) // 2


def is_prose(paragraph: str) -> bool:
    return words(paragraph) >= PROSE_WORDS and bool(SENTENCE_END.search(paragraph.rstrip()))

"""The level of a nested contents a listener navigates by: a chapter's sections are headings in it.

EPUB contents and FB2 sections nest (parts, chapters, sections, sub-sections seven deep); every
entry as a chapter of its own would have a listener skip through ten-second sections. The readers
hand their drafts, each with the titles above it, to ``chapters_as_listened``, which keeps an entry
as a chapter only where it has a chapter's length; ``narrator.text.chapter_level`` then judges the
chapters of every format alike (title pages, short opening pieces, divisions of a chapter's length).
"""

from __future__ import annotations

from narrator.text.readers.matter import word_count
from narrator.text.readers.titles import bare_number
from narrator.text.readers.xhtml import Block, Draft

#: A nested entry this short (about an hour and a half spoken) is one chapter with sections; a
#: longer one is a part of chapters. (A technical chapter with its sections ran 2,000-8,000 words;
#: a book of a novel, 40,000.)
CHAPTER_WORDS = 12_000


def _words(drafts: list[Draft]) -> int:
    return word_count(block for draft in drafts for block in draft.blocks)


def chapters_as_listened(drafts: list[Draft]) -> list[Draft]:
    """Keep nested entries as chapters only where a listener navigates by them.

    An entry no longer than a chapter is listened to (CHAPTER_WORDS) whose sub-entries are numbered
    only ("I.", "II."), or, in contents three levels deep, one that is short (a chapter with its
    sections, not a book of chapters, nor the one part a book of poems has) becomes one chapter:
    its sub-entries' titles are read as headings in it. Any other ("Book the First", a part of
    five hours with chapters numbered only) keeps its sub-entries as chapters; its title leads the
    first.
    """
    merged: list[Draft] = []
    book_words = _words(drafts)
    # Two levels are parts and their chapters; a third is a chapter's sections.
    deep = max((len(draft.parents) for draft in drafts), default=0) >= 2

    # Where the entries under each one end, and the words from it to there.
    ends = []
    for start, draft in enumerate(drafts):
        path = (*draft.parents, draft.title)
        end = start + 1
        while end < len(drafts) and drafts[end].parents[: len(path)] == path and draft.title:
            end += 1
        ends.append(end)
    words_under = [_words(drafts[start:end]) for start, end in enumerate(ends)]
    # A level is sections only if every entry with sub-entries at that depth is chapter-short: one
    # short part among parts of an hour is a part still (Treasure Island's third of six).
    long_at = {
        len(drafts[n].parents) for n, end in enumerate(ends) if end > n + 1 and words_under[n] > CHAPTER_WORDS
    }
    start = 0
    while start < len(drafts):
        draft = drafts[start]
        end = ends[start]
        children = drafts[start + 1 : end]
        numbered = children and all(bare_number(child.title) is not None for child in children)
        words = words_under[start]
        sections = deep and words * 2 < book_words and len(draft.parents) not in long_at
        if children and words <= CHAPTER_WORDS and (numbered or sections):
            blocks = list(draft.blocks)
            for child in children:
                number = bare_number(child.title)
                heading = f"{number}." if number is not None else child.title
                blocks += [Block(heading, heading=2), *child.blocks]
            merged.append(Draft(draft.title, blocks, draft.parents))
            start = end
        else:
            merged.append(draft)
            start += 1
    return merged

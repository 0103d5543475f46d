"""The producer's repeated text: running headers and footers, navigation bars, page footers.

What a book's producer prints on every page or document (a navigation bar, a copyright footer,
"Barth   Standards Track   [Page 3]") is found by repetition, not by a list of producers:

- **at the edges:** a run of blocks at the top or bottom of a unit (an EPUB's document, a text's
  page, a chapter) whose text, digits folded, stands at an edge of at least half the units;
- **links:** a paragraph that is all one link, standing among text (not in a list of links, as a
  contents entry does), said three times or more ("Back to contents"); and a short link among the
  first or last blocks of the whole book, where a single web page has its "Home" and "Contents".

An author's refrain, a play's speaker names or its "Exeunt." repeat too; they are short and never
all link. So an edge run goes only as far in as a block that is the producer's for certain: six
words or more, a number (a page's), or a link. Chapter headings ("Chapter 3") are never taken.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Sequence

from narrator.text.readers.decode import squash
from narrator.text.readers.titles import bare_number, chapter_line
from narrator.text.readers.xhtml import Block, Draft

#: Blocks at each end of a unit that may be a running header or footer.
EDGE_BLOCKS = 3
#: A text at an edge of this share of the units (and of at least MIN_UNITS) is the producer's.
EDGE_SHARE = 0.5
MIN_UNITS = 3
#: A paragraph that is all one link, said this many times, is navigation.
LINK_REPEATS = 3
#: A link at the book's edge this short is navigation ("Back to the home page of the project").
LINK_WORDS = 8
#: A repeated text this long is no refrain.
LONG_WORDS = 6
# Blank lines at a page's top or bottom, left where its header or footer was.
_BLANK_ENDS = re.compile(r"^([ \t]*\n)+|(\n[ \t]*)+$")
# A page ending with none of these stops in mid-sentence, to go on on the next.
_SENTENCE_END = re.compile(r"[.!?:;\"'\u201d\u2019)\]]\s*$")


def fold(text: str) -> str:
    """The text as repeats compare it: case, punctuation and spacing ignored, each number as 0."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = re.sub(r"\d+", "0", text)
    return " ".join(re.findall(r"\w+", text))


def _is_link(block: Block) -> bool:
    return block.link_chars >= 0.8 * len(block.text)


def _certain(block: Block, key: str) -> bool:
    """A repeated block that no author writes again and again: long, numbered, or a link."""
    return len(key.split()) >= LONG_WORDS or "0" in key.split() or _is_link(block)


def _is_heading_line(text: str) -> bool:
    return bool(chapter_line(text)) or bare_number(text) is not None


def drop_repeats(units: Sequence[list[Block]], unit_name: str) -> tuple[list[set[int]], list[str]]:
    """Which blocks of each unit the producer repeats, and one plan-log line per repeated text.

    ``unit_name`` names the units in the plan log ("documents", "pages", "chapters").
    """
    keys = [[fold(b.text) if b.text and not _is_heading_line(b.text) else "" for b in unit] for unit in units]
    at_edge: Counter[str] = Counter()
    for unit_keys in keys:
        texts = [k for k in unit_keys if k]
        at_edge.update(set(texts[:EDGE_BLOCKS] + texts[-EDGE_BLOCKS:]))
    live = sum(any(unit_keys) for unit_keys in keys)
    frequent = {k for k, n in at_edge.items() if n >= max(MIN_UNITS, EDGE_SHARE * live)}
    # A header or footer frames the author's text: one that stands alone in most of its units is the
    # text itself said again (a filler paragraph that is every chapter of a sample document).
    framing: Counter[str] = Counter()
    for unit_keys in keys:
        present = set(unit_keys) - {""}
        if present - frequent:
            framing.update(present & frequent)
    frequent = {k for k in frequent if 2 * framing[k] >= at_edge[k]}
    lone = [_lone_links(unit, unit_keys) for unit, unit_keys in zip(units, keys, strict=True)]
    links = Counter(unit_keys[i] for unit_keys, found in zip(keys, lone, strict=True) for i in found)
    dropped: list[set[int]] = [set() for _ in units]
    # (rule, key) -> the texts dropped by it, in order
    found: dict[tuple[str, str], list[str]] = defaultdict(list)
    for n, (unit, unit_keys) in enumerate(zip(units, keys, strict=True)):
        said = [i for i, k in enumerate(unit_keys) if k]
        for run in (_run(said, unit_keys, frequent), _run(said[::-1], unit_keys, frequent)):
            # From the edge through the last block that is certainly the producer's: a "Navigation"
            # label above its links goes, an "Exeunt." above the copyright footer stays.
            certain = [k for k, i in enumerate(run) if _certain(unit[i], unit_keys[i])]
            for i in run[: certain[-1] + 1] if certain else []:
                if i not in dropped[n]:  # a short unit is one run from both ends
                    dropped[n].add(i)
                    rule = f"at the top or bottom of {at_edge[unit_keys[i]]} of {live} {unit_name}"
                    found[rule, unit_keys[i]].append(unit[i].text)
        for i in lone[n]:
            if i not in dropped[n] and links[unit_keys[i]] >= LINK_REPEATS:
                dropped[n].add(i)
                found["a link said again and again (navigation)", unit_keys[i]].append(unit[i].text)
    for n, i in _links_at_book_edges(units, keys):
        if i not in dropped[n]:
            dropped[n].add(i)
            found["a link at the start or end of the book (navigation)", keys[n][i]].append(units[n][i].text)
    notes = [
        f"not read: {squash(texts[0])[:80]!r}"
        + (f" and {len(texts) - 1} more like it" if len(texts) > 1 else "")
        + f": {rule}, the producer's, not the author's"
        for (rule, _), texts in found.items()
    ]
    return dropped, notes


def _links_at_book_edges(units: Sequence[list[Block]], keys: list[list[str]]) -> list[tuple[int, int]]:
    """(unit, block) of the links of a few words, or of no sentence (a menu of languages), in the
    book's first unit with text (a page's "Contents") and among the last blocks of its last ("Home")."""
    said = [[i for i, k in enumerate(unit_keys) if k] for unit_keys in keys]
    filled = [n for n, blocks in enumerate(said) if blocks]
    if not filled:
        return []
    first, last = filled[0], filled[-1]
    edges = [(first, i) for i in said[first]] + [(last, i) for i in said[last][-EDGE_BLOCKS:]]
    return [
        (n, i)
        for n, i in edges
        if _is_link(units[n][i])
        and (len(keys[n][i].split()) <= LINK_WORDS or not _SENTENCE_END.search(units[n][i].text))
        and not _mostly_links(units[n])
    ]


def _mostly_links(unit: list[Block]) -> bool:
    """A contents page, two links or more and most of its paragraphs: its links are its text, and
    they are matter's to judge, not navigation."""
    said = [b for b in unit if b.text]
    links = sum(_is_link(b) for b in said)
    return links >= 2 and 2 * links > len(said)


def _lone_links(unit: list[Block], keys: list[str]) -> list[int]:
    """Paragraphs that are one link among text: navigation, not an entry of a contents list."""
    said = [i for i, k in enumerate(keys) if k]
    links = [_is_link(unit[i]) for i in said]
    return [
        i
        for p, i in enumerate(said)
        if links[p] and not (p > 0 and links[p - 1]) and not (p + 1 < len(said) and links[p + 1])
    ]


def _run(indexes: list[int], keys: list[str], frequent: set[str]) -> list[int]:
    """The blocks from one end of a unit inward while each is a frequent edge text."""
    run = []
    for i in indexes:
        if keys[i] not in frequent:
            break
        run.append(i)
    return run


def without(blocks: list[Block], dropped: set[int]) -> list[Block]:
    return [b for i, b in enumerate(blocks) if i not in dropped]


def drop_from_drafts(drafts: list[Draft]) -> list[str]:
    """Drop what the producer repeats at the top or bottom of chapters; the plan-log lines."""
    dropped, notes = drop_repeats([draft.blocks for draft in drafts], "chapters")
    for draft, gone in zip(drafts, dropped, strict=True):
        draft.blocks = without(draft.blocks, gone)
    return notes


def drop_from_pages(text: str) -> tuple[str, list[str]]:
    """Plain text without its page headers and footers, its pages (at form feeds) joined again.

    A sentence cut by a page break is mended: the page's last line and the next page's first are
    joined as lines of one paragraph.
    """
    pages = text.split("\f")
    if len(pages) < MIN_UNITS:
        return text, []
    lines = [page.split("\n") for page in pages]
    said = [[n for n, line in enumerate(page) if line.strip()] for page in lines]
    units = [[Block(lines[p][n].strip()) for n in numbers] for p, numbers in enumerate(said)]
    dropped, notes = drop_repeats(units, "pages")
    kept: list[str] = []
    for page_lines, numbers, gone in zip(lines, said, dropped, strict=True):
        lost = {numbers[i] for i in gone}
        page = "\n".join(line for n, line in enumerate(page_lines) if n not in lost)
        kept.append(_BLANK_ENDS.sub("", page))
    joined = kept[0]
    for page in kept[1:]:
        if not page.strip():
            continue
        mid_sentence = joined.strip() and not _SENTENCE_END.search(joined) and page.lstrip()[:1].islower()
        joined += ("\n" if mid_sentence else "\n\n") + page
    return joined, notes

"""Markdown as people write it: front matter, footnotes, tables, badges, link lists and code.

Parsed by markdown-it-py with mdit-py-plugins (front matter, footnotes) and its table rule. Front
matter, YAML or TOML (Hugo's "+++"), is metadata (title, author, language), never text. Footnotes
follow ``notes``: dropped, or read after the paragraph that refers to them. A table is read row by
row, each row one sentence ("Name: Ada, Born: 1815."). Code blocks, images, HTML comments and
paragraphs that are nothing but links (a badge row, a language bar, a contents list) are not read. A
figure placeholder, a line that only names an image file ("Insert fig0101.png"), is a build
directive, never read; the lines after it (or after an image alone on its line, when they open with
a label such as "Figure 1-1.") are the figure's caption, which follows ``notes`` as captions do in
every reader. Chapters are headings, at the shallowest level used more than once; then front and
back matter are told apart as in every reader.
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.attrs import attrs_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from narrator.core.book import Book
from narrator.text.readers.decode import TEMPLATE_LINE, clean_text, decode_text, squash
from narrator.text.readers.html import drafts_at_headings
from narrator.text.readers.matter import build_chapters
from narrator.text.readers.titles import title_from_stem
from narrator.text.readers.verse import is_verse
from narrator.text.readers.xhtml import FILE_LINK, Block, Draft, extract, parse_html

# attrs: pandoc's image attributes ('![](cover.png){width="8.3in"}') are the image's, not text.
# dollarmath: "$\\beta$" as pandoc reads it; "$5 and $6" stay prices.
_PARSER = (
    MarkdownIt("commonmark")
    .use(front_matter_plugin)
    .use(footnote_plugin)
    .use(attrs_plugin)
    .use(dollarmath_plugin, allow_space=False, allow_digits=False)
    .enable("table")
)
# Pandoc's title block: up to three lines opening the file, "% Title", "% Author; Author", "% Date".
_TITLE_BLOCK = re.compile(r"\A(?:%[^\n]*(?:\n|\Z)){1,3}")
# Metadata written as headings at the top ("# Title: Three Stories", "## Author: Ernest Hemingway",
# "## Year: 1923"), the keys front matter would use.
_HEADING_FIELD = re.compile(
    r"^(?P<key>title|subtitle|authors?|by|year|date|language|lang|translators?|translated by|editors?"
    r"|publisher|source|rights|licen[cs]e)\s*:\s*(?P<value>\S.*)$",
    re.IGNORECASE,
)
_FIELD_KEYS = {"year": "date", "by": "author", "authors": "author", "lang": "language"}
# A pandoc citation, never read: "[@curie1904]", "[see @a, p. 3; @b]".
_CITATION = re.compile(r"\s?\[[^\[\]]*(?<![\w.])@\w[^\[\]]*\]")
# A reference link or image whose label is defined nowhere stays literal text in CommonMark
# ("![a photo][1]"): the image is not read, the link is read as its words.
_UNDEFINED_REFERENCE = re.compile(r"(!?)\[([^\[\]]*)\]\[[^\[\]]*\]")
# A LaTeX command that refers ("\\cite{key}", "\\ref{fig}") is not read; one that styles its words
# ("\\emph{so}") is read as those words.
_LATEX_REFERENCE = re.compile(r"\\(?:cite[a-z]*|ref|eqref|pageref|label|index)\*?(?:\[[^\]]*\])?\{[^}]*\}")
_LATEX_STYLED = re.compile(r"\\[a-zA-Z]+\{([^{}]*)\}")
# Inline math as a listener hears it: Greek letters by their names' letters, other commands and
# the markup of sub- and superscripts not at all ("\\beta" is "β", "e^{2}" is "e2").
_LATEX_COMMAND = re.compile(r"\\([a-zA-Z]+)")
#: How a footnote read aloud begins, as in the other readers.
FOOTNOTE = "Footnote: "
# Marks a line break in the source while a paragraph's text is gathered (a private-use character).
_SOFT_BREAK = "\ue002"
#: The ARIA role of a paragraph of links only; it is not read.
NAVIGATION = "navigation"
# A line that only names an image file, perhaps after one word: "Insert 18333fig0101.png", "fig2.svg".
_PLACEHOLDER = re.compile(r"^(?:[^\W\d_]+:?\s+)?[\w./-]+\.(?:png|jpe?g|gif|svg|webp|tiff?|bmp)$", re.I)
# A caption's label: a word and a figure's number, "Figure 1-1.", "Ілюстрація 3:", "Fig. 2.4".
_CAPTION_LABEL = re.compile(r"^[^\W\d_]+\.?\s+[\dIVXLC]+(?:[-.]\d+)*[.:](?:\s|$)")


@dataclass
class _Inline:
    text: str
    #: Characters inside links, and of those the letters and digits.
    link_chars: int = 0
    link_alnum: int = 0
    #: Of the characters inside links, those inside links to files heard or seen.
    file_link_chars: int = 0
    #: Ids of the footnotes it refers to, in order.
    notes: list[str] = field(default_factory=list)
    #: Whether it links to a place in the document ("#section").
    points_within: bool = False


#: A heading's link to a place in the text is its whole title, or most of it; less, it is a pointer.
POINTER_LINK_SHARE = 0.8


def _latex_text(text: str) -> str:
    """Prose with its LaTeX references dropped and styled words kept."""
    return _LATEX_STYLED.sub(r"\1", _LATEX_REFERENCE.sub("", text))


def _math(source: str) -> str:
    def letter(match: re.Match[str]) -> str:
        name = match.group(1)
        case = "CAPITAL" if name[0].isupper() else "SMALL"
        try:
            return unicodedata.lookup(f"GREEK {case} LETTER {name.upper()}")
        except KeyError:
            return " "

    return squash(re.sub(r"[{}^_$]", "", _LATEX_COMMAND.sub(letter, source)))


# An address as a page shows it: no scheme, no "www.", no closing slash.
_SHOWN_ADDRESS = re.compile(r"^(https?://)?(www\.)?|/$", re.IGNORECASE)


def _shows_its_address(words: str, href: str) -> bool:
    """Whether a link's words are its own address ("[desktop.github.com](https://desktop.github.com)"):
    the author shows the reader where to go, as text, not a menu's entry."""
    return (
        bool(words) and _SHOWN_ADDRESS.sub("", words.strip()).lower() == _SHOWN_ADDRESS.sub("", href).lower()
    )


def _inline(children: Iterable[Token]) -> _Inline:
    parts: list[str] = []
    link_depth = link_chars = link_alnum = file_link_chars = 0
    href = ""
    link_words: list[str] = []  # the words of the link being read
    notes: list[str] = []
    points_within = False
    for token in children:
        if token.type in ("text", "code_inline", "math_inline"):
            if token.type == "text":
                parts.append(_latex_text(token.content))
            elif token.type == "math_inline":
                parts.append(_math(token.content))
            else:
                parts.append(token.content)
            if link_depth:
                link_words.append(token.content)
        elif token.type == "softbreak":
            parts.append(_SOFT_BREAK)
        elif token.type == "hardbreak":
            parts.append("\n")
        elif token.type == "link_open":
            if not link_depth:
                href, link_words = str(token.attrs.get("href", "")), []
                points_within = points_within or href.startswith("#")
            link_depth += 1
        elif token.type == "link_close":
            link_depth -= 1
            words = "".join(link_words)
            if not link_depth and not _shows_its_address(words, href):
                link_chars += len(words.strip())
                file_link_chars += len(words.strip()) if FILE_LINK.search(href) else 0
                link_alnum += sum(ch.isalnum() for ch in words)
        elif token.type == "footnote_ref":
            # By id: pandoc's inline notes ("^[...]") have no label.
            notes.append(str(token.meta["id"]))
        # Images, their alt text and inline HTML (comments, tags) are not read.
    lines = "".join(parts).split(_SOFT_BREAK)
    # A line break in the source is a space, unless the lines have the shape of verse.
    said = _CITATION.sub("", ("\n" if is_verse(lines) else " ").join(lines))
    said = _UNDEFINED_REFERENCE.sub(lambda m: "" if m[1] else m[2], said)
    text = "\n".join(squash(line) for line in said.split("\n")).strip()
    return _Inline(text, link_chars, link_alnum, file_link_chars, notes, points_within)


def _figure(children: list[Token]) -> str | None:
    """The caption ("" if none) of a paragraph that opens with a figure on a line of its own: a
    placeholder naming an image file, or an image whose next line is labelled; None otherwise."""
    breaks = [n for n, token in enumerate(children) if token.type in ("softbreak", "hardbreak")]
    end = breaks[0] if breaks else len(children)
    head = children[:end]
    caption = _inline(children[end + 1 :]).text
    if head and all(t.type == "image" or (t.type == "text" and not t.content.strip()) for t in head):
        return caption if _CAPTION_LABEL.match(caption) else None
    named = "".join(t.content for t in head).strip()
    if not all(t.type == "text" for t in head) or not _PLACEHOLDER.match(named):
        return None
    # A line in lower case after it goes on with a sentence ("See arch.png" / "for the layout.").
    return None if caption[:1].islower() else caption


#: Words outside the links of a navigation paragraph are at most this share of those inside.
NAVIGATION_OUTSIDE = 0.2


def _is_navigation(inline: _Inline) -> bool:
    """Links and little else (emoji, separators): a badge row, a language bar, a contents entry."""
    outside = sum(ch.isalnum() for ch in inline.text) - inline.link_alnum
    return inline.link_alnum > 0 and outside <= NAVIGATION_OUTSIDE * inline.link_alnum


#: A list of links is this many navigation paragraphs in a row; its caption is a few words.
LINK_LIST = 3
CAPTION_WORDS = 8


def _link_list_captions(blocks: list[Block]) -> set[int]:
    """The paragraphs that only caption the list of links under them ("**Table of Contents**
    *generated with DocToc*", "Inhalt:"): a few words, no sentence, and a list of links next."""
    captions = set()
    for n, block in enumerate(blocks[:-LINK_LIST]):
        following = blocks[n + 1 : n + 1 + LINK_LIST]
        if (
            block.text
            and NAVIGATION not in block.types
            and len(block.text.split()) <= CAPTION_WORDS
            and not block.text.rstrip().endswith((".", "!", "?"))
            and all(NAVIGATION in b.types for b in following)
        ):
            captions.add(n)
    return captions


def _front_matter(source: str) -> dict[str, object]:
    try:
        loaded = yaml.safe_load(source)
    except yaml.YAMLError:
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _names(value: object) -> tuple[str, ...]:
    """Authors as front matter gives them: a string, a list, or items with a name."""
    items = value if isinstance(value, list) else [value]
    names = []
    for item in items:
        name = item.get("name") if isinstance(item, dict) else item
        if isinstance(name, str) and name.strip():
            names.append(squash(name))
    return tuple(names)


def _table_rows(tokens: list[Token], start: int) -> tuple[list[str], int]:
    """Each body row of the table opening at ``start`` as one sentence; and the index after it."""
    header: list[str] = []
    rows: list[list[str]] = []
    index = start
    in_head = False
    while tokens[index].type != "table_close":
        token = tokens[index]
        if token.type == "thead_open":
            in_head = True
        elif token.type == "thead_close":
            in_head = False
        elif token.type == "tr_open" and not in_head:
            rows.append([])
        elif token.type == "inline":
            cell = _inline(token.children or []).text
            (header if in_head else rows[-1]).append(cell)
        index += 1
    sentences = []
    for row in rows:
        pairs = [f"{name}: {cell}" if name else cell for name, cell in zip(header, row, strict=False) if cell]
        pairs = pairs or [cell for cell in row if cell]
        if pairs:
            sentences.append(", ".join(pairs).rstrip(".") + ".")
    return sentences, index


def _footnotes(tokens: list[Token]) -> dict[str, str]:
    notes: dict[str, str] = {}
    label = ""
    for token in tokens:
        if token.type == "footnote_open":
            label = str(token.meta["id"])
        elif token.type == "footnote_close":
            label = ""
        elif token.type == "inline" and label:
            text = _inline(token.children or []).text
            notes[label] = f"{notes[label]} {text}" if label in notes else text
    return notes


# A word in braces set on inline code, which the attributes plugin does not take for attributes:
# Vim's tutor marks keys to type "`dw`{normal}" and commands "`:q`{vim}".
_CODE_ATTRIBUTE = re.compile(r"(?<=`)\{[\w.#:= -]{1,40}\}")


# Hugo's and Zola's front matter: TOML between "+++" lines.
_TOML_FRONT_MATTER = re.compile(r"\A\+\+\+[ \t]*\n(.*?\n)\+\+\+[ \t]*(?:\n|\Z)", re.DOTALL)


def _toml_front_matter(text: str) -> tuple[str, dict[str, object]]:
    """The text without TOML front matter, and its fields (none where it does not parse)."""
    block = _TOML_FRONT_MATTER.match(text)
    if block is None:
        return text, {}
    try:
        fields = tomllib.loads(block[1])
    except tomllib.TOMLDecodeError:
        return text, {}
    return text[block.end() :], fields


def _title_block(text: str) -> tuple[str, dict[str, object]]:
    """The text without pandoc's title block, and the title, authors and date it gives."""
    block = _TITLE_BLOCK.match(text)
    if block is None:
        return text, {}
    lines = [line[1:].strip() for line in block.group().splitlines()]
    fields = dict(zip(("title", "author", "date"), lines, strict=False))
    authors = [name.strip() for name in str(fields.get("author", "")).split(";") if name.strip()]
    return text[block.end() :], {**fields, "author": authors}


def _heading_fields(blocks: list[Block]) -> tuple[dict[str, object], list[Block]]:
    """The metadata a document writes as headings before its text ("## Author: …"), two fields
    at least, and its blocks without them."""
    fields: dict[str, object] = {}
    end = 0
    for block in blocks:
        field = _HEADING_FIELD.match(block.text) if block.heading else None
        if field is None and not block.is_break:
            break
        end += 1
        if field:
            key = field["key"].lower()
            fields[_FIELD_KEYS.get(key, key)] = squash(field["value"])
    if len(fields) < 2:
        return {}, blocks
    if "author" in fields:
        fields["author"] = [name for name in re.split(r"\s+and\s+|;\s*", str(fields["author"])) if name]
    return fields, blocks[end:]


# An HTML element whose content its Markdown processor reads as Markdown (kramdown, Markdown Extra).
_MARKDOWN_INSIDE = re.compile(r"<[A-Za-z][^<>]*\smarkdown\s*=\s*[\"']?(1|block|span)\b", re.IGNORECASE)


def _inline_text(text: str) -> str:
    """Text as Markdown's inline syntax says it: "[Ada Initiative](https://…)" is "Ada Initiative"."""
    tokens = _PARSER.parseInline(text)
    return _inline(tokens[0].children or []).text if tokens else text


# A <div> opening or closing tag alone on its line.
_DIV_OPEN = re.compile(r"^[ ]{0,3}<div(?:\s[^<>]*)?>[ \t]*$", re.MULTILINE | re.IGNORECASE)
_DIV_CLOSE = re.compile(r"^[ ]{0,3}</div>[ \t]*$", re.MULTILINE | re.IGNORECASE)


def _markdown_in_divs(text: str) -> str:
    """The text with a blank line inside each <div> and </div> set on a line of its own, so that
    Markdown written inside a div ("<div class="pagetitle">", "# Title", "</div>") is read as
    Markdown, as pandoc reads it, not as the raw HTML CommonMark takes it for."""
    return _DIV_CLOSE.sub(lambda m: "\n" + m[0], _DIV_OPEN.sub(lambda m: m[0] + "\n", text))


# A heading written with no space after its hashes ("#Lessons learned", "##Auteurs"), which
# CommonMark reads as a paragraph: a short line, not a sentence, with no hash inside (OpenITI's
# "######OpenITI#" and "#META#Header#End#" are a format's markers).
_UNSPACED_HEADING = re.compile(r"^(#{1,6})([^\s#][^\n#]{0,79})$")
#: ... taken as headings only where a document writes several so: one "#hashtag" line is text.
UNSPACED_HEADINGS = 2
#: A heading is a few words.
HEADING_WORDS = 12


def _unspaced_headings(blocks: list[Block], unread: Counter[str]) -> list[Block]:
    """Paragraphs that are headings with no space after their hashes, as headings, where a
    document writes at least UNSPACED_HEADINGS of them (its author's habit, which older pandoc
    and many editors render as headings)."""
    found = {
        n: match
        for n, block in enumerate(blocks)
        if not block.heading
        and (match := _UNSPACED_HEADING.match(block.text))
        and len(match[2].split()) <= HEADING_WORDS
        and not match[2].rstrip().endswith((".", "!", "?"))
    }
    if len(found) < UNSPACED_HEADINGS:
        return blocks
    unread["headings written with no space after the hashes, read as headings"] = len(found)
    return [
        replace(block, text=found[n][2].strip(), heading=len(found[n][1])) if n in found else block
        for n, block in enumerate(blocks)
    ]


def parse_markdown(text: str, title: str, notes: str = "drop") -> Book:
    unread: Counter[str] = Counter()
    text, count = TEMPLATE_LINE.subn("", clean_text(text))
    if count:
        unread["template tags and placeholders ({% … %}, {{ … }}, << … >>)"] += count
    text, count = _CODE_ATTRIBUTE.subn("", text)
    if count:
        unread["attributes set on inline code ('`dw`{normal}')"] += count
    text, toml = _toml_front_matter(text)
    text, title_block = _title_block(_markdown_in_divs(text))
    tokens = _PARSER.parse(text)
    yaml_matter = next((_front_matter(t.content) for t in tokens if t.type == "front_matter"), {})
    matter = yaml_matter or toml or title_block
    footnotes = _footnotes(tokens)
    blocks: list[Block] = []
    heading = 0
    skip_depth = 0  # inside a footnote block: its text goes where it is referred to
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.type == "footnote_block_open":
            skip_depth += 1
        elif token.type == "footnote_block_close":
            skip_depth -= 1
        elif skip_depth:
            pass
        elif token.type == "heading_open":
            heading = int(token.tag[1])
        elif token.type == "heading_close":
            heading = 0
        elif token.type == "hr":
            blocks.append(Block(is_break=True))
        elif token.type == "table_open":
            rows, index = _table_rows(tokens, index)
            blocks += [Block(row) for row in rows]
            unread["tables read row by row"] += 1
        elif token.type == "html_block":
            # Raw HTML is read as an HTML page is, its headings headings: some ".md" books are
            # HTML throughout.
            root = parse_html(token.content)
            html_blocks = extract(root, notes=notes).blocks if root is not None else []
            if _MARKDOWN_INSIDE.search(token.content):
                # kramdown's and Markdown Extra's markdown="1": the element's text is Markdown.
                html_blocks = [replace(b, text=_inline_text(b.text)) for b in html_blocks]
            if html_blocks:
                blocks += html_blocks
            else:
                unread["HTML blocks or comments"] += 1
        elif token.type in ("fence", "code_block"):
            unread["code blocks"] += 1
        elif (
            token.type == "inline" and not heading and (caption := _figure(token.children or [])) is not None
        ):
            unread["figure placeholders (an image file named on a line of its own)"] += 1
            if caption:
                # Under notes: drop the caption is shown unread where the figure stood.
                blocks.append(Block(caption) if notes == "read" else Block(notes=(caption,)))
                unread[f"figure captions {'read' if notes == 'read' else 'not read (notes: drop)'}"] += 1
        elif token.type == "inline":
            inline = _inline(token.children or [])
            if (
                heading
                and inline.points_within
                and inline.link_chars <= POINTER_LINK_SHARE * len(inline.text)
            ):
                # A heading that sends the reader elsewhere in the text in words of its own ("If
                # you would rather not use the command line, [here are the GUI tutorials](#…)")
                # heads nothing: it is a line of text. A heading that is its own anchor's link is all link.
                heading = 0
            navigation = not heading and _is_navigation(inline)
            referred = [footnotes[label] for label in inline.notes if label in footnotes]
            if inline.text:
                types = frozenset({NAVIGATION}) if navigation else frozenset()
                # Under notes: drop, the paragraph keeps its footnotes, to be shown unread after it.
                kept = tuple(referred) if notes == "drop" else ()
                blocks.append(
                    Block(
                        inline.text,
                        heading=heading,
                        types=types,
                        link_chars=inline.link_chars,
                        file_link_chars=inline.file_link_chars,
                        notes=kept,
                    )
                )
            if notes == "read":
                blocks += [Block(f"{FOOTNOTE}{footnote}") for footnote in referred]
        index += 1
    blocks = _unspaced_headings(blocks, unread)
    if not matter:
        matter, blocks = _heading_fields(blocks)
    if footnotes:
        unread[
            f"footnotes {'read after their paragraph' if notes == 'read' else 'dropped (notes: drop)'}"
        ] = len(footnotes)
    if matter:
        unread["front matter (metadata, not text)"] = 1
    book_title = squash(str(matter.get("title") or "")) or title
    book_title, drafts = _drafts(blocks, book_title, bool(matter.get("title")), unread)
    chapters, repeated = build_chapters(drafts, book_title)
    language = str(matter.get("language") or matter.get("lang") or "").strip().replace("_", "-")
    return Book(
        book_title,
        chapters,
        authors=_names(matter.get("author") or matter.get("authors") or ()),
        language=language or "en",
        language_source="front matter" if language else "",
        date=str(matter.get("date") or "")[:10],
        notes=(*(f"Markdown: {what}: {count}" for what, count in unread.items()), *repeated),
    )


def _drafts(blocks: list[Block], title: str, titled: bool, unread: Counter[str]) -> tuple[str, list[Draft]]:
    """Chapters at headings as an HTML page's are (``drafts_at_headings``); a lone top heading is
    the title unless the front matter gives one. Navigation paragraphs are not read, and a section
    of nothing else (a contents list) goes with its heading.
    """
    heading, drafts = drafts_at_headings(blocks, title if titled else "")
    title = heading or title
    kept = []
    for draft in drafts:
        links = [b for b in draft.blocks if NAVIGATION in b.types]
        if links:
            unread["paragraphs of links only (navigation)"] += len(links)
        if links and len(links) == len([b for b in draft.blocks if b.text]):
            unread[f"sections of links only ({draft.title or 'untitled'!r})"] += 1
            continue
        captions = _link_list_captions(draft.blocks)
        if captions:
            unread["captions of link lists ('Table of Contents')"] += len(captions)
        draft.blocks = [
            b for n, b in enumerate(draft.blocks) if NAVIGATION not in b.types and n not in captions
        ]
        kept.append(draft)
    if kept and not kept[0].title and not kept[0].blocks:
        kept.pop(0)
    return title, kept


def read_markdown(path: Path, notes: str = "drop") -> Book:
    text, encoding = decode_text(path, path.read_bytes())
    return replace(parse_markdown(text, title_from_stem(path), notes), encoding=encoding)

"""reStructuredText (Sphinx and Docutils documents, a README.rst), by Docutils, which Snakemake
already brings: the text becomes HTML and is read as a page is.

Nothing outside the book is read: ``include`` and ``raw`` are off, and a role Docutils does not
know (Sphinx's ``:ref:``, ``:doc:``) says its text, or its title where it names a target
("``:ref:`the coding style <codingstyle>```" says "the coding style"). Docinfo fields (":Author:",
":Translator:") are metadata, never text; the authors among them are the book's.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from docutils import nodes, utils
from docutils.core import publish_doctree, publish_from_doctree
from docutils.parsers.rst import languages, roles
from docutils.parsers.rst.states import Inliner
from docutils.utils import SystemMessage
from lxml import etree

from narrator.core.book import Book
from narrator.core.errors import BookError
from narrator.text.readers.decode import clean_text, decode_text
from narrator.text.readers.html import book_from_html
from narrator.text.readers.titles import title_from_stem
from narrator.text.readers.xhtml import parse_html

_SETTINGS = {
    "file_insertion_enabled": False,
    "raw_enabled": False,
    "report_level": 5,  # a book's markup errors are not the listener's: the text is read as it stands
    "halt_level": 5,
    "warning_stream": False,
    "_disable_config": True,
    "embed_stylesheet": False,
    "stylesheet_path": "",
    "output_encoding": "unicode",
}
# A role as written in the text: ":ref:`…`", ":c:func:`…`".
_ROLE = re.compile(r"(?<![\w`]):(?P<name>[A-Za-z][\w.+-]*(?::[A-Za-z][\w.+-]*)?):`")
# A role's text that names its target: "the coding style <codingstyle>".
_TITLED_TARGET = re.compile(r"^(?P<title>.*?)\s*<[^<>]+>$", re.DOTALL)
# A section title underlined (and perhaps overlined) with one punctuation character repeated.
_ADORNED_TITLE = re.compile(
    r"^(?P<title>\S[^\n]*)\n(?P<rule>([=\-~^\"'`#*+<>:.])\3{2,})[ \t]*$", re.MULTILINE
)
# Explicit markup: a directive ".. note::", a target ".. _label:", a footnote ".. [#f1]", a
# substitution ".. |name|".
_EXPLICIT_MARKUP = re.compile(r"^\.\. (\w[\w:-]*::|_[^:\n]+:|\[[^\]\n]+\]|\|[^|\n]+\|)", re.MULTILINE)
#: A plain text with this many underlined section titles, and explicit markup or roles, is reST.
RST_TITLES = 2


def _said(
    name: str,
    rawtext: str,
    text: str,
    lineno: int,
    inliner: Inliner,
    options: dict | None = None,
    content: list[str] | None = None,
) -> tuple[list[nodes.Node], list[nodes.system_message]]:
    """A role narrator does not render (a cross-reference, a function's name): its words."""
    titled = _TITLED_TARGET.match(text)
    words = titled["title"] if titled and titled["title"] else text
    return [nodes.inline(rawtext, utils.unescape(words))], []


def is_rst(text: str) -> bool:
    """Whether a plain text is written in reStructuredText: underlined section titles (the rule as
    long as the title, at least), with directives, targets or roles among them."""
    titles = [m for m in _ADORNED_TITLE.finditer(text) if len(m["rule"]) >= len(m["title"].rstrip())]
    return len(titles) >= RST_TITLES and bool(_EXPLICIT_MARKUP.search(text) or _ROLE.search(text))


def parse_rst(text: str, title: str, notes: str = "drop") -> Book:
    text = clean_text(text)
    quiet = utils.Reporter("book", _SETTINGS["report_level"], _SETTINGS["halt_level"])
    english = languages.get_language("en")
    for name in {m["name"] for m in _ROLE.finditer(text)}:
        if roles.role(name, english, 0, quiet)[0] is None:
            roles.register_local_role(name, _said)
    try:
        doctree = publish_doctree(text, settings_overrides=_SETTINGS)
    except (SystemMessage, ValueError) as error:
        raise BookError(f"cannot parse the reStructuredText ({error})") from None
    # The page's <title>: the document's first title, else the file's name (not Docutils' "<string>").
    doctree["title"] = next((t.astext() for t in doctree.findall(nodes.title)), title)
    authors = tuple(a.astext() for a in doctree.findall(nodes.author))
    for docinfo in list(doctree.findall(nodes.docinfo)):
        docinfo.parent.remove(docinfo)
    html = publish_from_doctree(doctree, writer="html5", settings_overrides=_SETTINGS)
    root = parse_html(str(html))
    if root is None:
        raise BookError("the book has no text to speak")
    for name in ("lang", "{http://www.w3.org/XML/1998/namespace}lang"):
        # Docutils states its own default language, not the book's: the text will tell.
        etree.strip_attributes(root, name)
    book = book_from_html(root, title, notes)
    return book if book.authors else replace(book, authors=authors)


def read_rst(path: Path, notes: str = "drop") -> Book:
    text, encoding = decode_text(path, path.read_bytes())
    try:
        book = parse_rst(text, title_from_stem(path), notes)
    except BookError as error:
        raise BookError(f"{path}: {error}") from None
    return replace(book, encoding=encoding)

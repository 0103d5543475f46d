"""Front and back matter: which chapters a listener does not want read, and by which rule.

Every rule returns its name, so the plan log can say why a section was skipped and the user can
bring it back with ``chapters.include``. Project Gutenberg's header and licence are marked block
by block, so they are stripped from chapters they share with the story.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace

from narrator.core.book import Chapter, trimmed
from narrator.text.readers.apparatus import (
    LEAST_ENTRIES,
    MOST,
    YEAR,
    is_bibliography,
    is_catalogue,
    keyed_to_pages,
    lists_contents,
    lists_titles,
    numbered_notes,
)
from narrator.text.readers.decode import squash
from narrator.text.readers.prose import PROSE_WORDS, SENTENCE_END, is_prose, words
from narrator.text.readers.repetition import drop_from_drafts
from narrator.text.readers.titles import byline, heads_a_chapter, title_key
from narrator.text.readers.xhtml import ERRATA, GLOSSARY, UNLISTED, Block, Draft

PG_START = re.compile(
    r"\*{3}\s*START OF (THE|THIS) PROJECT GUTENBERG E-?(BOOK|TEXT)"
    r"|^\*END\*THE SMALL PRINT!",
    re.IGNORECASE | re.MULTILINE,
)
PG_END = re.compile(
    r"\*{3}\s*END OF (THE|THIS) PROJECT GUTENBERG E-?(BOOK|TEXT)"
    r"|^END OF (THE )?PROJECT GUTENBERG('?S)?\b"
    r"|^(THE )?FULL PROJECT GUTENBERG LICEN[CS]E\b"
    r"|^START: FULL LICEN[CS]E\b",
    re.IGNORECASE | re.MULTILINE,
)
_CONTENTS_TITLE = re.compile(
    r"^(table of )?contents?( and illustrations)?$|^toc$|^(list of )?(illustrations|figures|tables)$", re.I
)
_ALSO_BY = re.compile(
    r"^(also by|by the same author|other (books|titles|works) by|books by|more (books )?by|also available"
    r"|recommendations$|you may also (like|enjoy)|similar (users|readers|books|titles))",
    re.IGNORECASE,
)
# A producer's credit: "Produced by ... Distributed Proofreading Team", "This etext was prepared by",
# "Exported from Wikisource on ...".
PRODUCED_BY = re.compile(
    r"^(produced by|exported from|e-?text prepared by|transcribed from"
    r"|this e-?(book|text) (was|is) (prepared|produced) by)\b"
    r"|\bdistributed proofread(ers?|ing)\b|\bbrought to you by\b",
    re.IGNORECASE,
)
#: A copyright page is a page, not a chapter that cites a copyright.
COPYRIGHT_PAGE_WORDS = 250
#: A page about the book (its licence, its author, thanks) is at most this long, and names the
#: licence in its first blocks: the heading and the grant.
ABOUT_PAGE_WORDS = 500
LICENCE_OPENING_BLOCKS = 3
#: A section of this many words at most that claims the rights is only that notice, whatever its title.
NOTICE_WORDS = 60
#: The book's first and last blocks of text, where a producer signs it.
CREDIT_BLOCKS = 5
#: A credit is a line or two, not a page.
CREDIT_WORDS = 60
# An e-mail address, also spelt out against harvesters: "name (at) host (dot) org", "name アット
# yahoo ドット co ドット jp" (plain "at" and "dot" are words of prose).
_EMAIL = re.compile(
    r"[\w.+-]+@[\w-]+(\.[\w-]+)+"
    r"|[\w.+-]+\s*((?i:[(\[]at[)\]])|\sAT\s|アット)\s*[\w-]+(\s*((?i:[(\[]dot[)\]])|\sDOT\s|ドット)\s*[\w-]+)+"
)
# A paper's abstract, as a heading line or run into its paragraph ("Abstract. The blockchain ...").
_ABSTRACT = re.compile(
    r"^(abstract|summary|résumé|resumen|resumo|zusammenfassung|riassunto|samenvatting|streszczenie"
    r"|аннотация|анотація)\s*([.:\u2014\u2013-]|$)",
    re.IGNORECASE,
)
# A page of a web address and a few words is the producer's ("www.feedbooks.com", a slogan; "Per
# migliorare l'eBook visita il sito http://…").
_WEB_ADDRESS = re.compile(r"(?<!\S)(https?://|www\.)\S+", re.IGNORECASE)
_MATTER_TITLE = re.compile(
    r"^(colophon|copyright( page| notice)?|imprint|legal notice|cover( page)?|title ?page|half ?title"
    r"|about( this (digital |electronic )?(e-?book|edition|document|text|version)"
    r"| the (authors?|e-?book|book|publisher|translators?|editors?))?"
    r"|errata|corrigenda|uncopyright|glossary|(end|foot)?notes|([\w-]+ ){0,2}index"
    # The editor's account of the edition, not the author's text.
    r"|(a )?(note|notes) on the text|textual notes?"
    # The edition's editor or publisher on the edition ("Préface de l'Éditeur", "Publishers' Note").
    r"|(the )?(editor|publisher)s?['\u2019]?s?['\u2019]? (preface|note|notes|introduction|foreword)"
    r"|(préface|note|avertissement|avis) (de l['\u2019]|des )éditeurs?"
    r"|(nota|prólogo|prefacio|advertencia) del? (los )?editor(es)?|los editores al público"
    r"|nota dell['\u2019]editore|(vorwort|vorbemerkung|anmerkung) des herausgebers"
    r"|bibliogra(phy|phie|fia|fie|fía)|literaturverzeichnis|works cited"
    # What to read next: a list of titles and links, not the book's text.
    r"|further reading|recommended reading|see also"
    # The transcriber's note by the word's root: "Transcriber's Notes", "Note du transcripteur",
    # "Nota del Trascrittore", "Anmerkungen zur Transkription".
    r"|(transcri|trascri|transkri)\w*'?s? notes?|(notes?|notas?|anmerkungen?|opmerkingen?)( \w+){0,3}"
    r" (transcri|trascri|transkri)\w*"
    r"|(the )?(gnu )?((general|lesser|free|documentation|public) )*licen[cs]e( agreement)?)$",
    re.IGNORECASE,
)
#: The skipping rules that name the author's own matter (notes, a word about the author): a read-along
#: book shows it unread, where the producer's and the navigation's (licence, contents, title and
#: copyright pages, 'also by') are left out of it as of the audio.
_AUTHORS_MATTER = re.compile(
    r"^(glossary|(end|foot|rear)?notes|about the (authors?|translators?|editors?)) \(by (part )?title\)$"
    r"|^epub:type (endnotes|footnotes|rearnotes)$|^notes keyed to page and line$"
)
# The producer's wrapper as a chapter's title: "The Project Gutenberg eBook of Emma".
_WRAPPER_TITLE = re.compile(r"^the project gutenberg e-?(book|text) of\b", re.IGNORECASE)
# The producer's wrapper around a document title: "The Project Gutenberg eBook of Emma, by Jane
# Austen.", "The Wonderful Wizard of Oz | Project Gutenberg".
_WRAPPED_TITLE = re.compile(
    r"^(?P<wrapper>the project gutenberg e-?(book|text) of\s+)?(?P<title>.+?)"
    r"(,\s+by\s+(?P<author>[^,]+?))?\.?(?P<site>\s+[|\u2013\u2014-]\s+project gutenberg)?$",
    re.IGNORECASE | re.DOTALL,
)
_MATTER_TYPE_NAMES = """
    cover titlepage halftitlepage copyright-page colophon imprint toc landmarks page-list loi lot
    index seriespage other-credits endnotes footnotes rearnotes errata
"""
_MATTER_TYPES = frozenset(_MATTER_TYPE_NAMES.split()) | {UNLISTED}
# A printer's imprint at the end of a book: "_Printed by_ SPOTTISWOODE, BALLANTYNE & CO."
_PRINTER = re.compile(r"^[\W_]*(made and )?printed( in [\w ]+?)?[\W_]+by(?![a-z])", re.IGNORECASE)
# "(c) 2019" is the sign as typed; "(c)" alone is a list's third item.
_COPYRIGHT = re.compile(
    r"©|\(c\)\s*(1[89]|20)\d\d\b|\bcopyright\b|\bpublic domain\b|\bcreative commons\b", re.IGNORECASE
)
# "All rights reserved" as the editions of the corpus's languages print it.
_RIGHTS_RESERVED = re.compile(
    r"\ball rights reserved|\bdroits\b.{0,80}\bréservés|\bderechos\b.{0,60}\breservados"
    r"|\bdireitos\b.{0,60}\breservados|\bdrets\b.{0,60}\breservats|\bdiritti\b.{0,60}\briservati"
    r"|\brechte\b.{0,60}\bvorbehalten|\brechten\b.{0,60}\bvoorbehouden|\brättigheter\b.{0,40}\bförbehållna"
    r"|\bprawa\b.{0,60}\bzastrzeżone|\brajtoj\b.{0,40}\brezervataj"
    r"|\bвсе права\b.{0,40}\b(защищены|охраняются)",  # noqa: RUF001 (Cyrillic, as Russian is written)
    re.IGNORECASE,
)
# A licence named by its identifier, in any language's page: "(CC BY-SA 4.0)", "GNU FDL".
_LICENCE_ID = re.compile(
    r"\bCC[ -](?:BY(?:-(?:NC|SA|ND))*|0)\b(?:\s*\d\.\d)?"
    # A Creative Commons licence by its full name, left in English by translations too.
    r"|\bAttribution(?:-(?:NonCommercial|ShareAlike|NoDerivs|NoDerivatives))*\s+\d\.\d\b"
    r"|\bGNU (?:Free Documentation|(?:Lesser )?General Public) Licen[cs]e\b|\bGFDL\b|\bMIT Licen[cs]e\b"
    # The GPL by its short name and version, which translations keep: "GPL v2", "GPLv3", "LGPL-2.1".
    r"|\b(?:A|L)?GPL[ -]?v?[123](?:\.\d)?\b"
)
_COPYRIGHT_DETAIL = re.compile(
    r"all rights reserved|\bISBN\b|published by|first published"
    r"|licen[cs]ed under|licensierad|creative commons|\bcopyleft\b|translated from",
    re.IGNORECASE,
)


def unwrapped_title(title: str) -> tuple[str, tuple[str, ...]]:
    """A document title without the producer's wrapper, and the author it names ("by Jane Austen")
    when it was wrapped; the title as it is otherwise."""
    title = squash(title)
    match = _WRAPPED_TITLE.match(title)
    if not match or not (match["wrapper"] or match["site"]):
        return title, ()
    return match["title"].strip(), (match["author"].strip(),) if match["author"] else ()


def mark_gutenberg(drafts: list[Draft]) -> None:
    """Everything up to Gutenberg's START line, and from its END line or licence on, is boilerplate."""
    stream = [(d, i) for d in drafts for i in range(-1, len(d.blocks))]  # -1: the chapter title

    def text(item: tuple[Draft, int]) -> str:
        draft, index = item
        return draft.title if index < 0 else draft.blocks[index].text

    start = next((n for n, item in enumerate(stream) if PG_START.search(text(item))), None)
    end = next(
        (n for n, item in enumerate(stream) if (start is None or n > start) and PG_END.search(text(item))),
        None,
    )
    for n, (draft, index) in enumerate(stream):
        if index >= 0 and ((start is not None and n <= start) or (end is not None and n >= end)):
            draft.blocks[index] = replace(draft.blocks[index], boilerplate=True)


def word_count(blocks: Iterable[Block]) -> int:
    return sum(words(b.text) for b in blocks)


# A heading that names the edition ("THE MILLENNIUM FULCRUM EDITION, 1988", "Second Edition"),
# with its year or version number; with no text under it, it is the edition's, not a part's title.
_EDITION_LINE = re.compile(
    r"^[^\W\d_][\w\s'\u2019.-]{0,40}?\b(edition|édition|edición|edizione|edição|editie|udgave|utgåva|wydanie"
    r"|vydání|издание|видання)\b[\s,]*(\d{4}|\d+(\.\d+)+)?$",
    re.IGNORECASE,
)


def is_matter_title(line: str) -> bool:
    """A line that names front or back matter: "Transcriber's Note:", "FOOTNOTES", "Colophon"."""
    return _MATTER_TITLE.match(line.strip().rstrip(".:")) is not None


def matter_rule(draft: Draft, book_title: str = "") -> str:
    """Why this draft is front or back matter wherever it stands ("" when it is not)."""
    texts = [b for b in draft.blocks if not b.is_break]
    if texts and all(b.boilerplate for b in texts):
        return "Project Gutenberg header or licence"
    title = draft.title.strip().rstrip(".:")
    if _CONTENTS_TITLE.match(title):
        return "contents page (by title)"
    if is_matter_title(title):
        return f"{title.lower()} (by title)"
    # Under a part named as matter ("NOTES" over a note section per essay) the section is matter too.
    if part := next((p.strip().rstrip(".:") for p in draft.parents if is_matter_title(p)), ""):
        return f"{part.lower()} (by part title)"
    # A page named for the book (or not named) that opens with a line naming matter
    # ("Transcriber's Notes:") is that matter; so is one whose every paragraph is run in under
    # such a name ("Transcriber's note: ...", then "Note du transcripteur: ...").
    named = not title or _same_title(title_key(title), title_key(book_title))
    own = [b.text for b in texts if b.text and not b.boilerplate]
    if named and own and is_matter_title(own[0]):
        return f"{own[0].strip().rstrip('.:').lower()} (by its first line)"
    run_in = [text.split(":", 1)[0] for text in own if ":" in text[:40]]
    if named and own and len(run_in) == len(own) and all(is_matter_title(label) for label in run_in):
        return f"{run_in[0].strip().lower()} (run in)"
    if _ALSO_BY.match(title) or (not title and any(_ALSO_BY.match(b.text) for b in texts[:2])):
        return "'also by' page"
    if _WRAPPER_TITLE.match(title) and not _has_sentences(draft):
        return "Project Gutenberg header or licence"
    if (
        word_count(texts) <= 30
        and any(_WEB_ADDRESS.search(b.text) for b in texts)
        and not _has_sentences(draft)
    ):
        return "the producer's page (a web address)"
    chars = sum(len(b.text) for b in texts)
    if texts:
        # The producer's licence closing the last section is not counted: it has rules of its own.
        authors = [b for b in texts if not b.boilerplate]
        types = [t for b in authors for t in sorted(_MATTER_TYPES & b.types)[:1]]
        if types and len(types) * 2 >= len(authors):
            kind = max(set(types), key=types.count)
            # The reader marks a table of corrections by its shape, as EPUB would by type.
            return {
                ERRATA: "a table of corrections (errata)",
                UNLISTED: "after the last chapter the book's contents links to",
            }.get(kind, f"epub:type {kind}")
        # Most of its words in two columns, terms and their glosses: a word list.
        if 2 * sum(len(b.text) for b in texts if GLOSSARY in b.types) >= chars:
            return "a word list (terms and their glosses in two columns)"
        said = [b.text for b in texts]
        if lists_contents(said):
            return "contents page (titles and page numbers)"
        if keyed_to_pages(said):
            return "notes keyed to page and line"
        if numbered_notes(said):
            return "notes (numbered, whatever their title)"
        if is_bibliography(said):
            return "a bibliography (entries of author and year)"
        if is_catalogue(said):
            return "a publisher's catalogue"
    linked = [b for b in texts if b.link_chars]
    mostly_links = sum(b.link_chars for b in texts) >= 0.6 * chars
    # Three links or more, or links and no sentence: a site's "Read more" and "Options" menus too.
    if mostly_links and (len(linked) >= 3 or (linked and not any(is_prose(b.text) for b in texts))):
        return "contents page (mostly links)"
    # Only a page untitled or named for the book: a section that cites a copyright ("Using Code
    # Examples") is read.
    joined = " ".join(b.text for b in texts)
    said_words = word_count(texts)
    if named and said_words <= COPYRIGHT_PAGE_WORDS and _states_copyright(joined):
        return "copyright page"
    # A page that grants a licence by name is the licence's, whatever its title; so is a notice of
    # a sentence or two that claims the rights ("Lisans": "Bookworm ... (c) 2019-2022 Mosharraf Omer").
    if said_words <= COPYRIGHT_PAGE_WORDS and _LICENCE_ID.search(joined):
        return "licence page (names a licence)"
    # A page about the book that opens on its licence (then the author, thanks, where to find it).
    opening = " ".join(b.text for b in texts[:LICENCE_OPENING_BLOCKS])
    if said_words <= ABOUT_PAGE_WORDS and _LICENCE_ID.search(opening):
        return "about the book (opens on its licence)"
    notices = [_is_rights_notice(b.text) for b in texts]
    if (
        said_words <= NOTICE_WORDS
        and any(notices)
        and all(n or not is_prose(b.text) for n, b in zip(notices, texts, strict=True))
    ):
        return "copyright notice (a short section that claims the rights)"
    if _is_contact_page(texts):
        return "the producer's page (a contact address and a date)"
    return ""


def _is_contact_page(texts: Sequence[Block]) -> bool:
    """Who made the file, how to reach them and when: "konwersja ...: Maciej Brencz <m...@gmail.com>
    Źródło: ... Data wygenerowania pliku: 12 maj 2013"."""
    joined = " ".join(b.text for b in texts)
    return word_count(texts) <= CREDIT_WORDS and bool(_EMAIL.search(joined) and YEAR.search(joined))


def _states_copyright(text: str) -> bool:
    """A copyright or licence ("©", "Creative Commons") with its details (rights, ISBN, publisher),
    or the rights reserved, which say both ("Tous droits de reproduction ... réservés")."""
    return bool(_COPYRIGHT.search(text) and _COPYRIGHT_DETAIL.search(text)) or bool(
        _RIGHTS_RESERVED.search(text)
    )


def _is_rights_notice(text: str) -> bool:
    """A paragraph that is a notice of rights, not a sentence about them."""
    return bool(_RIGHTS_NOTICE.search(text) or _RIGHTS_RESERVED.search(text))


def _claims_rights(line: str) -> bool:
    """A line that names a copyright or reserves the rights: the edition's, not the author's."""
    return bool(_COPYRIGHT.search(line) or _RIGHTS_RESERVED.search(line))


def opens_an_abstract(paragraphs: Sequence[str]) -> bool:
    """Whether a paper's abstract is among these first paragraphs, as its heading or run in."""
    return any(_ABSTRACT.match(paragraph.strip()) for paragraph in paragraphs[:PAPER_HEAD_LINES])


def authors_matter(skipped_by: str) -> bool:
    """Whether a section skipped by this rule is the author's own ("" is the user's chapters.exclude)."""
    return not skipped_by or _AUTHORS_MATTER.match(skipped_by) is not None


def _has_sentences(draft: Draft) -> bool:
    """Whether the draft has running text: a line set in capitals is a title, even with a stop."""
    texts = [b.text for b in draft.blocks if b.text and not b.boilerplate and not b.text.isupper()]
    return any(words(t) >= 4 and SENTENCE_END.search(t) for t in texts)


#: A title this long at least (in letters and digits) is looked for in a contents: "II" is anywhere.
LISTED_TITLE_CHARS = 4


def _names_the_chapters_after(draft: Draft, later: list[str]) -> bool:
    """A contents page with its sections run into its lines ("Primo uso / Come accedere Cos'è la
    Bacheca … / Articoli"): no sentence, and the chapters after it named in it in their order."""
    said = " ".join(b.text for b in draft.blocks if not b.boilerplate)
    return not _has_sentences(draft) and _names_in_order(said, later)


def _names_in_order(text: str, later: list[str]) -> bool:
    """Whether ``text`` names most of the chapters after it (``later``, their title keys) in their
    order, three of them at least by a title long enough not to be found by chance ("II" is in any
    run of numerals)."""
    said = title_key(text)
    found = named = at = 0
    for key in later:
        if key and (where := said.find(key, at)) >= 0:
            found, at = found + 1, where + len(key)
            named += len(key) >= LISTED_TITLE_CHARS
    return named >= LEAST_ENTRIES and found >= MOST * len(later)


def _drop_contents_lines(draft: Draft, later: list[str]) -> list[str]:
    """Drop a paragraph of the chapters' titles inside a section ("PREMIÈRE PARTIE I II … XI" in
    the pages before the first chapter), and the line of a few words heading it ("Table des
    matières")."""
    for n, block in enumerate(draft.blocks):
        if block.boilerplate or SENTENCE_END.search(block.text) or not _names_in_order(block.text, later):
            continue
        before = draft.blocks[n - 1] if n else None
        heading = before is not None and words(before.text) <= 3 and not SENTENCE_END.search(before.text)
        gone = [n - 1, n] if heading else [n]
        lines = " ".join(draft.blocks[i].text for i in gone)
        draft.blocks = [b for i, b in enumerate(draft.blocks) if i not in gone]
        return [f"not read: {squash(lines)[:100]!r}: contents (the chapters' titles in their order)"]
    return []


def _same_title(title: str, book: str) -> bool:
    """Keys of a page title and the book's: "CANDIDE," is "Candide, ou l'optimisme"."""
    return min(len(title), len(book)) >= 4 and (book.startswith(title) or book in title)


def _is_title_page(draft: Draft, book_title: str, before_story: bool) -> bool:
    """A cover, title or half-title page: a few words and no sentences.

    Before the first page of sentences any such page is one ("OEUVRES DE VOLTAIRE"); later, only
    one named for the book ("CANDIDE," again before chapter one) or with a byline.
    """
    texts = [b.text for b in draft.blocks if b.text and not b.boilerplate]
    title, book = title_key(draft.title), title_key(book_title)
    if not texts:
        # The book's title alone (its credits gone) titles nothing after it, as "Book the First" does.
        return bool(title) and _same_title(title, book)
    if word_count(b for b in draft.blocks if not b.boilerplate) > 60 or _has_sentences(draft):
        return False
    bylined = any(byline(text) for text in texts)
    named = title in ("", "cover", "titlepage", "title") or _same_title(title, book)
    # Before the story a page of short lines set in capitals, or under a heading in capitals, is one
    # too ("OEUVRES", "DE", "VOLTAIRE"; "OBRAS DO AUTOR" over the author's other titles).
    lines = [line for text in texts for line in text.split("\n")]
    layout = all(words(line) <= 8 or line.isupper() for line in lines) and any(
        t.isupper() for t in (draft.title, *lines)
    )
    return (before_story and layout) or named or bylined


def _chapter(draft: Draft, kind: str, skipped_by: str) -> Chapter:
    blocks = draft.blocks
    # Boilerplate goes from a chapter it shares with other text; a chapter of nothing else keeps it.
    if any(b.text and not b.boilerplate for b in blocks):
        blocks = [b for b in blocks if not b.boilerplate]
    paragraphs: list[str] = []
    sources: list[tuple[str, str] | None] = []
    section_ends: set[int] = set()
    notes: list[tuple[int, str]] = []
    for block in blocks:
        if block.is_break:
            if paragraphs:
                section_ends.add(len(paragraphs) - 1)
        elif block.text and not _PRINTER.match(block.text):
            paragraphs.append(block.text)
            sources.append(
                (block.source.document, block.source.element)
                if block.source and block.source.document
                else None
            )
        notes += [(len(paragraphs), note) for note in block.notes]
    section_ends.discard(len(paragraphs) - 1)
    return Chapter(
        draft.title,
        tuple(paragraphs),
        frozenset(section_ends),
        kind,
        draft.parents,
        skipped_by,
        tuple(notes),
        tuple(sources) if any(sources) else (),
    )


# A field of an edition's record run into one paragraph: "Source: ...; Written: ...; Transcribed:".
_RECORD_FIELD = re.compile(r"(?:^|[;.]\s+)[A-Z][^\W\d_]*(?:[ -][^\W\d_]+)?:\s")
#: A paragraph of this many such fields, opening on one, is the record, not the book.
RECORD_FIELDS = 2
# Links set in brackets, a transcriber's way to the files beside the text: "[Listen] [View Lilypond]".
_BRACKETED_LINKS = re.compile(r"^(?:\[[^\[\]]+\]\s*)+$")
#: A bar of links ("Study Guide | Notes by Marx | Economics Index") is this much links at least.
LINK_BAR_SHARE = 0.75
#: A paragraph this much links to files heard or seen ("(Listen to MIDI version) Sheet Music: Page
#: 1.") offers the files beside the text; it is not the text.
FILE_LINK_SHARE = 0.6
# A notice of rights or of a licence: "© 2001, the above authors", "Copyright 1998 by …", "… (c)
# 2019-2022 …", "… lisensiert under en Creative Commons …"; not a sentence about them ("The
# Licensee must retain all copyright … notices").
_RIGHTS_NOTICE = re.compile(
    r"©|\(c\)\s*(1[89]|20)\d\d\b|^\W*(\(c\)|copyright\b)|\bcreative commons\b|\bpublic domain\b",
    re.IGNORECASE,
)


def _record_or_links(block: Block) -> str:
    """Why a paragraph is the producer's furniture ("" when it is not): an edition's record of
    fields, or a bar of links between pages."""
    text = block.text
    fields = _RECORD_FIELD.findall(text)
    # A record dates the edition and asks nothing: "Le premier dit: J'ai bien faim!" is a story.
    record = YEAR.search(text) and not re.search(r"[!?]", text) and words(text) <= CREDIT_WORDS
    if len(fields) >= RECORD_FIELDS and _RECORD_FIELD.match(text) and record:
        return "the edition's record (fields of source, date and credits)"
    if " | " in text and block.link_chars >= LINK_BAR_SHARE * len(text.replace(" | ", "")):
        return "a bar of links (navigation)"
    linked = block.link_chars >= LINK_BAR_SHARE * len(re.sub(r"[\[\]\s]", "", text))
    if _BRACKETED_LINKS.match(text) and linked:
        return "links in brackets (to the music, scans or files)"
    if block.file_link_chars >= FILE_LINK_SHARE * len(text):
        return "links to the files beside the text (music, recordings, scans)"
    return ""


def _drop_credits(drafts: list[Draft]) -> list[str]:
    """Drop the producer's credit where producers sign, in the book's first or last blocks of text,
    and a contact address (a few words and an e-mail address) wherever it stands.

    The credit's next block goes with it when it is a list of names, not a sentence nor a chapter line.
    """
    said = [(d, i) for d in drafts for i, b in enumerate(d.blocks) if b.text and not b.boilerplate]
    edges = {*range(min(CREDIT_BLOCKS, len(said))), *range(max(len(said) - CREDIT_BLOCKS, 0), len(said))}
    # Each draft's text as a page, once: nothing is dropped until every block has been judged.
    pages = {id(d): [b for b in d.blocks if b.text and not b.boilerplate] for d in drafts}
    contact_pages = {key for key, page in pages.items() if _is_contact_page(page)}
    gone: dict[int, set[int]] = {}
    notes = []
    for n, (draft, i) in enumerate(said):
        text = draft.blocks[i].text
        if i in gone.get(id(draft), ()):
            continue
        # An address on a page of its own goes with the page (matter_rule), not alone.
        if (
            _EMAIL.search(text)
            and words(text) <= CREDIT_WORDS // 2
            and not SENTENCE_END.search(text)
            and id(draft) not in contact_pages
        ):
            gone.setdefault(id(draft), set()).add(i)
            notes.append(f"not read: {squash(text)[:100]!r}: a contact address")
            continue
        if why := _record_or_links(draft.blocks[i]):
            gone.setdefault(id(draft), set()).add(i)
            notes.append(f"not read: {squash(text)[:100]!r}: {why}")
            continue
        if n not in edges or words(text) > CREDIT_WORDS:
            continue
        # A notice of rights closing a page of text; a page that is the notice is matter_rule's.
        page_of_text = draft.title and word_count(pages[id(draft)]) > NOTICE_WORDS
        if _is_rights_notice(text) and YEAR.search(text) and page_of_text:
            gone.setdefault(id(draft), set()).add(i)
            notes.append(f"not read: {squash(text)[:100]!r}: a notice of rights")
            continue
        if not PRODUCED_BY.search(text):
            continue
        lost = [text]
        gone.setdefault(id(draft), set()).add(i)
        if n + 1 < len(said) and said[n + 1][0] is draft:
            names = draft.blocks[said[n + 1][1]].text
            list_of_names = words(names) <= CREDIT_WORDS // 2 and not SENTENCE_END.search(names)
            if list_of_names and not heads_a_chapter(names):
                gone[id(draft)].add(said[n + 1][1])
                lost.append(names)
        notes.append(f"not read: {squash(' '.join(lost))[:100]!r}: the producer's credit")
    for draft in drafts:
        if id(draft) in gone:
            draft.blocks = [b for i, b in enumerate(draft.blocks) if i not in gone[id(draft)]]
    return notes


def _drop_copyright_pages(drafts: list[Draft]) -> list[str]:
    """Drop an untitled copyright page that shares a draft with other pages (an EPUB's edition
    notice among the pages before its first contents entry): the blocks of one source document,
    with no heading, that state a copyright or licence and its details in a page's words."""
    notes = []
    for draft in drafts:
        pages: dict[str, list[int]] = {}
        for i, block in enumerate(draft.blocks):
            if block.source and block.source.document:
                pages.setdefault(block.source.document, []).append(i)
        if len(pages) < 2:
            continue
        gone: set[int] = set()
        for indexes in pages.values():
            blocks = [draft.blocks[i] for i in indexes if draft.blocks[i].text]
            joined = " ".join(b.text for b in blocks)
            if (
                blocks
                and not any(b.heading for b in blocks)
                and word_count(blocks) <= COPYRIGHT_PAGE_WORDS
                and _states_copyright(joined)
            ):
                gone.update(indexes)
                notes.append(f"not read: {squash(joined)[:100]!r}: a copyright page")
        draft.blocks = [b for i, b in enumerate(draft.blocks) if i not in gone]
    return notes


#: A placeholder is a few words: "Work in progress", "Coming soon", "TODO".
PLACEHOLDER_WORDS = 6


def _placeholders(drafts: list[Draft]) -> dict[int, str]:
    """The titled drafts whose whole text is a few words that are the whole text of another
    draft too: an unwritten chapter's stand-in, never the author's (a dedication is said once)."""
    whole = {
        n: squash(" ".join(texts))
        for n, draft in enumerate(drafts)
        if draft.title and (texts := [b.text for b in draft.blocks if b.text and not b.boilerplate])
    }
    short = Counter(text for text in whole.values() if words(text) <= PLACEHOLDER_WORDS)
    return {n: text for n, text in whole.items() if short[text] >= 2}


def _drop_closing_sections(draft: Draft, book_title: str) -> list[str]:
    """Drop the matter that closes the last chapter under headings of its own (the contents
    deeper than the chapters are): from the last heading back, each section that is matter by
    itself ("ESPERANTO-LITERATURO", a publisher's catalogue; a transcriber's table of
    corrections), up to the first that is not."""
    # A line naming matter ("Transcriber's Note:") heads a section as a heading does.
    headings = [n for n, b in enumerate(draft.blocks) if b.heading or (b.text and is_matter_title(b.text))]
    first_text = next((n for n, b in enumerate(draft.blocks) if b.text and not b.heading), len(draft.blocks))
    end = len(draft.blocks)
    notes = []
    for start in reversed([n for n in headings if n > first_text]):
        section = Draft(draft.blocks[start].text, draft.blocks[start + 1 : end])
        rule = matter_rule(section, book_title)
        if not rule:
            break
        notes.append(f"not read: section {section.title!r} at the end of chapter {draft.title!r}: {rule}")
        end = start
    draft.blocks = draft.blocks[:end]
    return notes[::-1]


# The words a book's text ends on, alone on their line, in the corpus's languages.
_THE_END = re.compile(
    r"^[\W_]*(the end|finis|fin|ende|einde|fine|slut|loppu|vége|koniec|konec|kraj|sfârșit|τέλος|конец|кінець"
    r"|終|完|おわり|終わり|全文完|النهاية|הסוף)[\W_]*$",
    re.IGNORECASE,
)
#: What follows "The End" in the last chapter is the producer's where it is at most this share of
#: the chapter: an imprint, a transcriber's errata, notes on the files.
AFTER_THE_END_SHARE = 0.5


# Aozora Bunko's colophon opens on the print edition the text was keyed from ("底本", then a colon,
# full width or not), in its plain text and its XHTML alike.
AOZORA_COLOPHON = re.compile("^底本[\uff1a:]", re.MULTILINE)


def _drop_colophon(draft: Draft) -> list[str]:
    """Drop Aozora Bunko's colophon and what follows it (its notes on the notation, the library
    card link) from the last chapter: the edition's record and the volunteers' credits."""
    start = next((n for n, b in enumerate(draft.blocks) if b.text and AOZORA_COLOPHON.match(b.text)), None)
    if start is None:
        return []
    gone = [b.text for b in draft.blocks[start:] if b.text]
    del draft.blocks[start:]
    return [f"not read: {gone[0][:60]!r} and {len(gone) - 1} more paragraphs: Aozora Bunko's colophon"]


def _drop_after_the_end(draft: Draft) -> list[str]:
    """Drop what follows the line that ends the book ("FINIS.", "THE END") in its last chapter,
    where it is shorter than the chapter's text: a printer's imprint, a transcriber's errata, how
    to play the music files. A book ends where it says it does."""
    ends = [n for n, b in enumerate(draft.blocks) if b.text and not b.heading and _THE_END.match(b.text)]
    if not ends:
        return []
    after = draft.blocks[ends[-1] + 1 :]
    chars = sum(len(b.text) for b in after)
    if not chars or chars > AFTER_THE_END_SHARE * sum(len(b.text) for b in draft.blocks):
        return []
    del draft.blocks[ends[-1] + 1 :]
    first = next(b.text for b in after if b.text)
    end = draft.blocks[ends[-1]].text
    return [f"not read: {len(after)} paragraphs after {end!r}, from {first[:60]!r}: after the book's end"]


# A field of a record on a line of its own: "License: [CC-BY]", "Illustration: Benjamin Mitchley".
_FIELD_LINE = re.compile(r"^[^\W\d_]+(?:[ -][^\W\d_]+)?:\s+\S.*(?<![.!?…])$")
#: A record is this many fields in a row at least; each is a label and a few words.
CLOSING_FIELDS = 3
FIELD_WORDS = 8


def _drop_closing_fields(draft: Draft) -> list[str]:
    """Drop the fields that close the book, each a paragraph of its own with a label of its own
    ("License: [CC-BY]", "Text: …", "Illustration: …", "Language: hi"): the edition's record of
    credits, in any language. A play's closing speeches ("HORATIO: Good night, sweet prince.") end
    as sentences do, and its speakers come again."""
    texts = [n for n, b in enumerate(draft.blocks) if b.text and not b.heading]
    run: list[int] = []
    for n in reversed(texts):
        text = draft.blocks[n].text
        if "\n" in text or not _FIELD_LINE.match(text) or words(text) > FIELD_WORDS:
            break
        run.insert(0, n)
    labels = {title_key(draft.blocks[n].text.split(":", 1)[0]) for n in run}
    if len(run) < CLOSING_FIELDS or len(labels) < len(run) or len(run) == len(texts):
        return []
    fields = [draft.blocks[n].text for n in run]
    gone = set(run)
    draft.blocks = [b for n, b in enumerate(draft.blocks) if n not in gone]
    return [f"not read: {' / '.join(fields)[:100]!r}: the edition's record (fields) after the book's text"]


#: A closing paragraph this short that gives a web address is the producer's, not the book's.
CLOSING_ADDRESS_WORDS = 40


def _drop_closing_address(draft: Draft) -> list[str]:
    """Drop the book's last paragraph where it is short and gives a web address: a library's or
    a site's terms of use in the book's own language ("… www.bahai.org/fa/legal …"), which no
    list of wordings can know. A notice stands apart: where another paragraph of the closing
    section gives an address too, the section cites its sources ("Attribution"), and the last
    of them is the author's."""
    texts = [n for n, b in enumerate(draft.blocks) if b.text and not b.heading]
    if len(texts) < 2:
        return []
    last = draft.blocks[texts[-1]]
    if not _WEB_ADDRESS.search(last.text) or words(last.text) > CLOSING_ADDRESS_WORDS:
        return []
    section = next((n for n in range(texts[-1], -1, -1) if draft.blocks[n].heading), -1)
    if any(_WEB_ADDRESS.search(draft.blocks[n].text) for n in texts[:-1] if n > section):
        return []
    del draft.blocks[texts[-1]]
    return [f"not read: the closing paragraph {last.text[:60]!r}: a web address after the book's text"]


#: A credit line closing a book ("Translated into French by African Storybook Project") is a few words.
CREDIT_LINE_WORDS = 12


def _drop_closing_credits(draft: Draft) -> list[str]:
    """Drop the credits that close the book: a notice of its licence or rights, with the lines of
    credits right above it (a title, "Created by …", "Translated by …": single lines, no
    sentence), back to the text's last sentence."""
    texts = [n for n, b in enumerate(draft.blocks) if b.text and not b.heading]
    run: list[int] = []
    licensed = False
    for n in reversed(texts):
        text = draft.blocks[n].text
        licence = (
            bool(_LICENCE_ID.search(text) or _is_rights_notice(text)) and words(text) <= ABOUT_PAGE_WORDS // 4
        )
        credit = "\n" not in text and words(text) <= CREDIT_LINE_WORDS and not SENTENCE_END.search(text)
        if not licence and not credit:
            break
        licensed = licensed or licence
        run.append(n)
    if len(run) == len(texts) or not licensed:
        return []
    lines = [draft.blocks[n].text for n in run]
    draft.blocks = [b for n, b in enumerate(draft.blocks) if n not in run]
    return [
        f"not read: {squash(' '.join(reversed(lines)))[:100]!r}: the credits and licence closing the book"
    ]


def build_chapters(drafts: list[Draft], book_title: str) -> tuple[tuple[Chapter, ...], tuple[str, ...]]:
    """Classify drafts as body, front or back matter, strip boilerplate from the body, make Chapters;
    and the plan-log lines for the paragraphs dropped as the producer's.

    A titled page with no text ("Book the First") stays in the body: it titles the chapter after
    it (see ingest.titled_chapters).
    """
    mark_gutenberg(drafts)
    notes = [*drop_from_drafts(drafts), *_drop_credits(drafts), *_drop_copyright_pages(drafts)]
    for draft in drafts:
        if (wrapper := _WRAPPER_TITLE.match(draft.title)) and _has_sentences(draft):
            notes.append(f"title {draft.title!r} read without the producer's wrapper")
            draft.title = draft.title[wrapper.end() :].strip()
    rules = [
        d.skipped_by
        or (matter_rule(d, book_title) if d.title.strip() or any(b.text for b in d.blocks) else "no text")
        for d in drafts
    ]
    for n, draft in enumerate(drafts[:-1]):
        # Right above the story ("THE MILLENNIUM FULCRUM EDITION, 1988" over "I"), not among the
        # title page's lines, which the title page's rule takes together.
        if (
            rules[n]
            or any(b.text for b in draft.blocks)
            or not _EDITION_LINE.match(draft.title.strip().rstrip(".:"))
        ):
            continue
        if words(next((b.text for b in drafts[n + 1].blocks if b.text), "")) >= PROSE_WORDS:
            rules[n] = "the edition's line (a heading with no text, over the story)"
    for n, repeated in _placeholders(drafts).items():
        rules[n] = rules[n] or f"a placeholder ({repeated!r} is all the text of several chapters)"
    keys = [title_key(d.title) for d in drafts]
    titles = {*keys, *(title_key(p) for d in drafts for p in d.parents)} - {""}
    for n, draft in enumerate(drafts):
        if rules[n]:
            continue
        if lists_titles([b.text for b in draft.blocks], titles - {keys[n]}):
            rules[n] = "contents page (the chapters' titles)"
        elif _names_the_chapters_after(draft, keys[n + 1 :]):
            rules[n] = "contents page (the next chapters' titles in order, with their sections)"
        else:
            notes += _drop_contents_lines(draft, keys[n + 1 :])
    if body := [d for d, rule in zip(drafts, rules, strict=True) if not rule]:
        notes += _drop_closing_sections(body[-1], book_title)
        notes += _drop_colophon(body[-1])
        notes += _drop_after_the_end(body[-1])
        notes += _drop_closing_address(body[-1])
        notes += _drop_closing_fields(body[-1])
        notes += _drop_closing_credits(body[-1])
    story = next((n for n, draft in enumerate(drafts) if not rules[n] and _has_sentences(draft)), len(drafts))
    for n, draft in enumerate(drafts):
        if not rules[n] and n != story and _is_title_page(draft, book_title, n < story):
            rules[n] = "title page"
    first = next(
        (n for n, d in enumerate(drafts) if not rules[n] and any(b.text for b in d.blocks)), len(drafts)
    )
    chapters = tuple(
        _chapter(draft, "body" if not rule else "front" if n < first else "back", rule)
        for n, (draft, rule) in enumerate(zip(drafts, rules, strict=True))
    )
    return chapters, tuple(notes)


#: A heading is one line of at most this many words.
HEADING_WORDS = 8
#: A paper's abstract stands within this many lines of its start (title, authors, affiliations).
PAPER_HEAD_LINES = 12
#: A title page, with its imprint, or a colophon holds at most this many lines.
IMPRINT_LINES = 30


def _names(text: str) -> set[str]:
    return {title_key(word) for word in text.split() if title_key(word)}


def without_edge_imprints(
    chapters: Sequence[Chapter], title: str, authors: Sequence[str]
) -> tuple[list[Chapter], list[str]]:
    """The book without the title page and imprint before its first paragraph of prose, nor the
    colophon after its last: the lines there ("Božena Němcová", "FRATELLI TREVES, EDITORI 1881",
    "ISBN ...") are the edition's, and the opening credits say the title and author already.

    Evidence, not a list of publishers: the few short lines before the first paragraph of prose go
    when one of them is the book's title, names its author or states a copyright; after the last
    paragraph, the lines from where the title or author is said again, when the title is among them
    (an author's name alone there may be a letter's signature; "Viktor Dyk Krysař" says both).
    """
    places = [
        (c, p)
        for c, chapter in enumerate(chapters)
        if chapter.kind == "body"
        for p in range(len(chapter.paragraphs))
    ]
    prose = [n for n, (c, p) in enumerate(places) if is_prose(chapters[c].paragraphs[p])]
    if not prose:
        return list(chapters), []
    said = [chapters[c].paragraphs[p] for c, p in places]
    key = title_key(title)
    # An initial stands for a given name the title page may spell out: "M. A. Yurkin" is "Maxim A. Yurkin".
    authors_words = [names for author in authors if (names := {w for w in _names(author) if len(w) > 1})]

    def is_title(line: str) -> bool:
        return bool(key) and title_key(line) == key

    def says_title(line: str) -> bool:
        """The title, alone or in a short line with the author's name ("Viktor Dyk Krysař")."""
        return bool(key) and key in title_key(line) and words(line) <= HEADING_WORDS

    def names_author(line: str) -> bool:
        return any(names <= _names(line) for names in authors_words)

    # The edition's lines may hold a sentence ("Il a été tiré de cet ouvrage cinq cents
    # exemplaires ... numérotés."): they run on to its copyright or rights line when that is near.
    rights = [
        n
        for n in range(min(IMPRINT_LINES, len(said)))
        if _claims_rights(said[n]) and all(words(line) < 2 * PROSE_WORDS for line in said[: n + 1])
    ]
    if rights and rights[-1] >= prose[0]:
        prose = [n for n in prose if n > rights[-1]] or prose
    start = said[: prose[0]]
    # An abstract run into the first paragraph heads it; the short lines above a paper's abstract
    # are its title block, evidence as the title or author is.
    run_in = opens_an_abstract(said[prose[0] : prose[0] + 1])
    abstract = run_in
    # A line of a few words in the prose's own chapter, just before it, is its heading.
    if not run_in and start and places[prose[0] - 1][0] == places[prose[0]][0]:
        last = start[-1]
        edition = is_title(last) or names_author(last) or _claims_rights(last)
        if "\n" not in last and words(last) <= HEADING_WORDS and not edition:
            start = start[:-1]
            abstract = opens_an_abstract([last])
    # A title page the reader already found is evidence too: the lines right after it continue it
    # (after a contents page, they open the first chapter).
    before = [chapter for chapter in chapters[: places[0][0]] if chapter.paragraphs or chapter.kind != "body"]
    # ... but not over lines of dialogue or of a sentence's length: a title page quotes no one,
    # and its lines are a few words each (figures and a reference's abbreviations aside).
    after_title_page = (
        bool(before)
        and before[-1].skipped_by == "title page"
        and not any(_DIALOGUE.search(x) or len(_WORD.findall(x)) >= PROSE_WORDS for x in start)
    )
    evidence = any(is_title(x) or names_author(x) or _claims_rights(x) for x in start)
    named = after_title_page or abstract or evidence
    opening = len(start) if _is_imprint(start) and named else 0
    # The colophon begins where the title or author is said again after the last paragraph.
    after = prose[-1] + 1
    begins = next(
        (n for n in range(after, len(said)) if is_title(said[n]) or names_author(said[n])), len(said)
    )
    end = said[begins:]
    closing = len(end) if _is_imprint(end) and any(says_title(x) for x in end) else 0
    gone = {*places[:opening], *places[len(places) - closing :]}
    if not gone:
        return list(chapters), []
    notes = [
        f"not read: {squash(line)[:100]!r}: the edition's title page or colophon"
        for line in [*said[:opening], *said[len(said) - closing :]]
    ]
    kept = []
    for c, chapter in enumerate(chapters):
        keep = [p for p in range(len(chapter.paragraphs)) if (c, p) not in gone]
        if keep or not chapter.paragraphs:
            kept.append(trimmed(chapter, keep[0], keep[-1] + 1) if keep else chapter)
        elif chapter.title:
            notes.append(f"chapter {chapter.title!r} is not read: all of it is the edition's")
    return kept, notes


# A word of two letters or more.
_WORD = re.compile(r"[^\W\d_]{2,}")
# A line that opens on a quotation mark or closes a question or exclamation: someone speaking.
_DIALOGUE = re.compile(
    '^["\u201e\u201c\u201d\u00ab\u00bb\u2018\u201a\u2014]|[?!]["\u201c\u201d\u00bb\u2019]*$'
)


def _is_imprint(lines: Sequence[str]) -> bool:
    """A title page's or colophon's lines: a few, each short."""
    return len(lines) <= IMPRINT_LINES and all(words(line) < 2 * PROSE_WORDS for line in lines)

"""reStructuredText books (.rst, and plain text written in it): chapters at its sections, roles
said by their words, notes and docinfo never read, and nothing outside the book included."""

from __future__ import annotations

from pathlib import Path

from narrator.text.ingest import read_book

PROSE = "Todos piensan que los gerentes toman decisiones, y que la toma de decisiones es importante. " * 12

DOCUMENT = f"""\
.. include:: secret.txt

:Original: Documentation/process/management-style.rst
:Author: Linus Torvalds

.. _managementstyle:

Estilo de gestión
=================

1) Decisiones
-------------

Lea :ref:`el estilo de codificación <codingstyle>` y :c:func:`kmalloc` antes. [#f1]_

.. [#f1] Una nota al pie que no se lee.

.. raw:: html

   <p>Raw HTML, never read.</p>

{PROSE}

2) Gente
--------

{PROSE}

3) Culpa
--------

{PROSE}
"""


def _said(path: Path) -> tuple[list[str], str, tuple[str, ...]]:
    book = read_book(path)
    body = [c for c in book.chapters if c.kind == "body"]
    return [c.title for c in body], " ".join(p for c in body for p in c.paragraphs), book.authors


def test_an_rst_book_has_chapters_at_its_sections_and_reads_roles_by_their_words(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("A file beside the book, never included.", encoding="utf-8")
    (tmp_path / "style.rst").write_text(DOCUMENT, encoding="utf-8")
    titles, said, authors = _said(tmp_path / "style.rst")
    assert titles[-3:] == ["1) Decisiones", "2) Gente", "3) Culpa"]
    assert "Lea el estilo de codificación y kmalloc antes." in said
    for unread in (
        ":ref:",
        "codingstyle",
        "nota al pie",
        "Raw HTML",
        "never included",
        "Original",
        "Torvalds",
    ):
        assert unread not in said
    assert authors == ("Linus Torvalds",)


def test_plain_text_written_in_rst_is_read_as_rst_and_other_text_is_not(tmp_path: Path) -> None:
    (tmp_path / "style.txt").write_text(DOCUMENT, encoding="utf-8")
    titles, said, _ = _said(tmp_path / "style.txt")
    assert titles[-3:] == ["1) Decisiones", "2) Gente", "3) Culpa"]
    assert ":ref:" not in said and "----" not in said
    # Underlined titles alone, with no directive, target or role, are not enough.
    plain = "\n\n".join(f"Part {n}\n=======\n\n{PROSE}" for n in (1, 2, 3))
    (tmp_path / "plain.txt").write_text(plain, encoding="utf-8")
    assert not any("reStructuredText" in note for note in read_book(tmp_path / "plain.txt").notes)

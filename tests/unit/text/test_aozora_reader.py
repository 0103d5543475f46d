"""Aozora Bunko's notation: title lines, legend, headings, ruby and the colophon."""

from __future__ import annotations

from pathlib import Path

from narrator.text.ingest import read_book

TEXT = """夢十夜
夏目漱石

-------------------------------------------------------
【テキスト中に現れる記号について】

《》：ルビ
（例）坐《すわ》って
-------------------------------------------------------

［＃５字下げ］第一夜［＃「第一夜」は中見出し］

　こんな夢を見た。腕組をして枕元に坐《すわ》っていると、｜仰向《あおむき》に寝た女が云う。

［＃５字下げ］第二夜［＃「第二夜」は中見出し］

　こんな夢を見た。和尚の室《へや》を退《さ》がって、廊下伝いに自分の部屋へ帰った。

底本：「夏目漱石全集10巻」ちくま文庫、筑摩書房
入力：野口英司
"""


def test_aozora_notation_is_read_as_its_base_text_by_its_headings(tmp_path: Path) -> None:
    path = tmp_path / "yume.txt"
    path.write_bytes(TEXT.replace("\n", "\r\n").encode("shift_jis"))
    book = read_book(path)
    assert (book.title, book.authors, book.language) == ("夢十夜", ("夏目漱石",), "ja")
    assert [c.title for c in book.chapters] == ["第一夜", "第二夜"]
    assert book.chapters[0].paragraphs == (
        "こんな夢を見た。腕組をして枕元に坐っていると、仰向に寝た女が云う。",
    )
    spoken = "".join(p for c in book.chapters for p in c.paragraphs)
    for notation in ("《", "［＃", "｜", "底本", "入力", "ルビ"):
        assert notation not in spoken

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


POEMS = """山羊の歌
中原中也

［＃３字下げ］初期詩篇［＃「初期詩篇」は大見出し］

［＃３字下げ］春の日の夕暮［＃「春の日の夕暮」は中見出し］

［＃ここから２字下げ］
トタンがセンベイ食べて
春の日の夕暮は穏かです

瓦が一枚　はぐれました
［＃ここで字下げ終わり］

［＃３字下げ］月［＃「月」は中見出し］

［＃ここから２字下げ］
今宵月はいよよ愁《かな》しく、
秒刻《とき》は銀波を砂漠に流し
［＃ここで字下げ終わり］

［＃３字下げ］少年時［＃「少年時」は大見出し］

［＃３字下げ］盲目の秋［＃「盲目の秋」は中見出し］

［＃５字下げ］［＃小見出し］※［＃ローマ数字1、1-13-21］［＃小見出し終わり］

［＃ここから２字下げ］
風が立ち、浪が騒ぎ、
無限の前に腕を振る。
［＃ここで字下げ終わり］

［＃５字下げ］［＃小見出し］※［＃ローマ数字2、1-13-22］［＃小見出し終わり］

［＃ここから２字下げ］
これがどうならうと、あれがどうならうと、
そんなことはどうでもいいのだ。
［＃ここで字下げ終わり］

底本：「中原中也全集」
"""


def test_a_book_of_poems_is_chaptered_by_its_poems_in_stanzas(tmp_path: Path) -> None:
    path = tmp_path / "yagi.txt"
    path.write_bytes(POEMS.replace("\n", "\r\n").encode("shift_jis"))
    book = read_book(path)
    # Each section's title leads its first poem's: "少年時. 盲目の秋".
    assert [c.parents for c in book.chapters] == [("初期詩篇",), ("初期詩篇",), ("少年時",)]
    assert [c.title.split(". ")[-1] for c in book.chapters] == ["春の日の夕暮", "月", "盲目の秋"]
    stanza = "トタンがセンベイ食べて\n春の日の夕暮は穏かです"
    assert book.chapters[0].paragraphs == (stanza, "瓦が一枚 はぐれました")
    # A poem's numbered parts are headings in it, their numerals written out.
    assert book.chapters[2].paragraphs[0] == "I" and "II" in book.chapters[2].paragraphs

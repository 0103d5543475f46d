"""The pronunciation lexicon: loading, matching, one-pass replacement and one-line errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from narrator.core.errors import UserError
from narrator.text.lexicon import MATCH_SECONDS, Lexicon

SAMPLE = r"""
# words: whole-word, case-sensitive by default
Cheshire: CHESH-er             # spoken replacement
Alice: {say: Ah-lees, phonemes: "ˈælɪs"}   # phoneme form used by engines that take phonemes
/\bDr\.?\s+Who\b/: Doctor Who  # a key between slashes is a regular expression
Doctor: Doc
"""


@pytest.fixture
def sample(tmp_path: Path) -> Lexicon:
    path = tmp_path / "lexicon.yaml"
    path.write_text(SAMPLE, encoding="utf-8")
    return Lexicon.load(path)


def test_documented_example(sample: Lexicon) -> None:
    assert len(sample) == 4
    text = "Alice saw the Cheshire cat and Dr. Who."
    assert sample.apply(text, phonemes=False) == "Ah-lees saw the CHESH-er cat and Doctor Who."
    assert sample.apply(text, phonemes=True) == "[[ ˈælɪs ]] saw the CHESH-er cat and Doctor Who."


def test_whole_words_only(sample: Lexicon) -> None:
    text = "Malice, Alices, Alice's hat, (Alice) and ALICE."
    assert sample.apply(text, phonemes=False) == "Malice, Alices, Ah-lees's hat, (Ah-lees) and ALICE."


def test_case_sensitive_unless_asked() -> None:
    lexicon = Lexicon.from_mapping(
        {"Hermione": {"say": "her-MY-oh-nee", "ignore_case": True}, "Ron": "Ronald"}
    )
    assert (
        lexicon.apply("HERMIONE, hermione and RON", phonemes=False) == "her-MY-oh-nee, her-MY-oh-nee and RON"
    )


def test_phrase_keys_match_any_whitespace() -> None:
    lexicon = Lexicon.from_mapping({"New York": "Noo Yawk"})
    assert lexicon.apply("In New\n  York now.", phonemes=False) == "In Noo Yawk now."


def test_regex_keys_and_groups() -> None:
    lexicon = Lexicon.from_mapping({r"/(\d+) ?mph/i": r"\1 miles per hour", r"/\bSt\.\s(?=[A-Z])/": "Saint "})
    assert (
        lexicon.apply("At 30 MPH past St. Paul's.", phonemes=False)
        == "At 30 miles per hour past Saint Paul's."
    )


def test_phonemes_only_where_given(sample: Lexicon) -> None:
    # Cheshire has no phonemes, so even with phonemes=True its say text is used.
    assert sample.apply("Alice and Cheshire", phonemes=True) == "[[ ˈælɪs ]] and CHESH-er"


def test_replacements_are_not_matched_again(sample: Lexicon) -> None:
    # "Dr Who" becomes "Doctor Who"; the "Doctor" entry then only sees the original text.
    assert sample.apply("Dr Who met a Doctor.", phonemes=False) == "Doctor Who met a Doc."
    chain = Lexicon.from_mapping({"cat": "dog", "dog": "cat"})
    assert chain.apply("cat and dog", phonemes=False) == "dog and cat"


def test_longest_match_wins_whatever_the_order() -> None:
    short_first = Lexicon.from_mapping({"Alice": "A", "Alice Liddell": "AL"})
    long_first = Lexicon.from_mapping({"Alice Liddell": "AL", "Alice": "A"})
    for lexicon in (short_first, long_first):
        assert lexicon.apply("Alice Liddell and Alice", phonemes=False) == "AL and A"
    assert short_first.fingerprint() == long_first.fingerprint()


def test_entries_matching(sample: Lexicon) -> None:
    assert sample.entries_matching("Dr Who, Alice, Alice and Malice") == [r"/\bDr\.?\s+Who\b/", "Alice"]
    assert sample.entries_matching("Nothing here") == []


def test_fingerprint_is_stable_and_changes_with_entries(sample: Lexicon, tmp_path: Path) -> None:
    again = tmp_path / "again.yaml"
    again.write_text(SAMPLE, encoding="utf-8")
    assert Lexicon.load(again).fingerprint() == sample.fingerprint()
    assert len(sample.fingerprint()) == 64
    changed = tmp_path / "changed.yaml"
    changed.write_text(SAMPLE.replace("CHESH-er", "CHESH-ur"), encoding="utf-8")
    assert Lexicon.load(changed).fingerprint() != sample.fingerprint()


def test_empty_lexicons(tmp_path: Path) -> None:
    empty = tmp_path / "empty.yaml"
    empty.write_text("# nothing yet\n", encoding="utf-8")
    for lexicon in (Lexicon.load(None), Lexicon.load(empty), Lexicon.from_mapping({})):
        assert len(lexicon) == 0
        assert lexicon.apply("Alice", phonemes=True) == "Alice"
        assert lexicon.entries_matching("Alice") == []
    assert Lexicon.load(None).fingerprint() == Lexicon.from_mapping({}).fingerprint()


def test_keys_are_taken_as_written(tmp_path: Path) -> None:
    path = tmp_path / "lexicon.yaml"
    path.write_text("No: Nope\nyes: yeah\n1st: first\n", encoding="utf-8")
    lexicon = Lexicon.load(path)
    assert lexicon.apply("No, yes, 1st.", phonemes=False) == "Nope, yeah, first."


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("Alice: [unclosed", "not valid YAML (line 1)"),
        ("- Alice\n- Cheshire\n", "a lexicon must be a mapping"),
        ("just text\n", "a lexicon must be a mapping"),
        ("/[a-/: x\n", "entry '/[a-/': invalid regular expression"),
        ("Alice: {phonemes: x}\n", "entry 'Alice': missing 'say'"),
        ("Alice:\n", "entry 'Alice': missing 'say'"),
        ("Alice: {say: A, colour: red}\n", "entry 'Alice': unknown field 'colour'"),
        ("Alice: [A, B]\n", "entry 'Alice': the value must be"),
        ("Alice: A\nAlice: B\n", "entry 'Alice': appears twice"),
        ("/x*/: y\n", "entry '/x*/': the regular expression matches empty text"),
        ("/(a)/: \\2\n", "entry '/(a)/': 'say' refers to group"),
        ("Alice: {say: A, phonemes: 'a]]b'}\n", "entry 'Alice': 'phonemes' must not contain"),
    ],
)
def test_errors_name_the_file_and_key(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "book.lexicon.yaml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(UserError) as caught:
        Lexicon.load(path)
    text = str(caught.value)
    assert text.startswith(f"{path}: ")
    assert message in text
    assert "\n" not in text


def test_missing_file_or_folder(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such lexicon file"):
        Lexicon.load(tmp_path / "nope.yaml")
    with pytest.raises(UserError, match="is a directory, not a lexicon file"):
        Lexicon.load(tmp_path)


# Run in a child process: the old lexicon (Python's re) never returned here, and ignored Ctrl-C.
RUNAWAY = """
from narrator.core.errors import UserError
from narrator.text.lexicon import Lexicon

nested = Lexicon.from_mapping({"/(a+)+$/": "nothing"}, "book.yaml")
print(nested.apply("a" * 40 + "!", phonemes=False) == "a" * 40 + "!")
print(nested.apply("a" * 40, phonemes=False))
try:
    Lexicon.from_mapping({"/(a|a)+$/": "nothing"}, "book.yaml").apply("a" * 40 + "!", phonemes=False)
except UserError as error:
    print(error)
"""


def test_a_regex_that_backtracks_without_end_is_refused_by_name() -> None:
    result = subprocess.run(
        [sys.executable, "-c", RUNAWAY],
        capture_output=True,
        text=True,
        timeout=30 * MATCH_SECONDS,
        check=True,
    )
    same, replaced, refusal = result.stdout.splitlines()
    assert (same, replaced) == ("True", "nothing")
    assert refusal.startswith("book.yaml: entry '/(a|a)+$/': the regular expression ran over 1 s")


def test_from_mapping_errors() -> None:
    with pytest.raises(UserError, match=r"^<mapping>: entry 'Alice': missing 'say'"):
        Lexicon.from_mapping({"Alice": {"phonemes": "x"}})
    with pytest.raises(UserError, match="must be a mapping"):
        Lexicon.from_mapping(["Alice"])  # type: ignore[arg-type]

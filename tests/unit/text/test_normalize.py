"""Text normalization: what the engine is asked to say for a sentence of book text."""

from __future__ import annotations

import pytest

from narrator.core.language import is_english
from narrator.text.normalize import normalize, normalize_title

ENGLISH = [
    # Cardinals, as num2words says them.
    ("He was 42 years old.", "He was forty-two years old."),
    ("It cost 1,234 pounds in all.", "It cost one thousand, two hundred and thirty-four pounds in all."),
    ("About 10,000 feet up.", "About ten thousand feet up."),
    ("Room 101 was empty.", "Room one hundred and one was empty."),
    ("There were 1,865 men.", "There were one thousand, eight hundred and sixty-five men."),
    (
        "Agent 007 and ISBN 9780140449136.",
        "Agent oh oh seven and ISBN nine seven eight oh one four oh four four nine one three six.",
    ),
    # Ordinals.
    ("The 1st, 22nd, 3rd and 4th runners.", "The first, twenty-second, third and fourth runners."),
    ("The 20th century.", "The twentieth century."),
    # Years: 1100-2099 without a unit after them.
    ("In 1865 the war ended.", "In eighteen sixty-five the war ended."),
    ("By 1900 the city had grown.", "By nineteen hundred the city had grown."),
    ("In 2005 she moved.", "In two thousand and five she moved."),
    ("The year 2024.", "The year twenty twenty-four."),
    ("In 1066 they came.", "In ten sixty-six they came."),
    ("He walked 1865 miles.", "He walked one thousand, eight hundred and sixty-five miles."),
    ("In 55 BC and AD 1066.", "In fifty-five B.C. and A.D. ten sixty-six."),
    ("Rome fell in 476 AD.", "Rome fell in four seventy-six A.D."),
    ("In the 1980s and the '60s.", "In the nineteen eighties and the sixties."),
    ("The 1800s were long.", "The eighteen hundreds were long."),
    # Decimals, negatives, fractions.
    ("Pi is 3.14 or so.", "Pi is three point one four or so."),
    ("It was 1.10 metres and .45 inches.", "It was one point one zero metres and point four five inches."),
    ("It was -5 degrees outside.", "It was minus five degrees outside."),
    ("It was 20°C inside and -3° out.", "It was twenty degrees Celsius inside and minus three degrees out."),
    ("It took 2½ hours and ½ a day.", "It took two and a half hours and half a day."),
    # Currency.
    ("It cost $5.", "It cost five dollars."),
    ("It cost $1.", "It cost one dollar."),
    ("It cost $3.50.", "It cost three dollars, fifty cents."),
    ("Only $0.50 and £1.01.", "Only fifty cents and one pound, one penny."),
    ("It cost £2, or €10.", "It cost two pounds, or ten euros."),
    ("A $2.5 million deal.", "A two point five million dollars deal."),
    ("He paid £5 10s. 6d. for it.", "He paid five pounds ten shillings and six pence for it."),
    ("It cost $1,000,000.", "It cost one million dollars."),
    # Percentages.
    ("Sales rose 50% and then 3.5%.", "Sales rose fifty percent and then three point five percent."),
    # Times.
    ("We met at 10:30.", "We met at ten thirty."),
    ("We met at 7:05 p.m. and left.", "We met at seven oh five p.m. and left."),
    ("We met at 7:05 p.m.", "We met at seven oh five p.m."),
    ("It was 12:00.", "It was twelve o'clock."),
    ("At 9 am, 5pm and 10.30 a.m.", "At nine a.m., five p.m. and ten thirty a.m."),
    ("The train left at 14:00.", "The train left at fourteen hundred."),
    ("Read John 3:16.", "Read John three sixteen."),
    # Durations, chapter and verse, ratios: never a colon between words.
    ("The video runs 0:23:46.", "The video runs twenty-three minutes and forty-six seconds."),
    (
        "It took 1:02:03 and then 2:00:00.",
        "It took one hour, two minutes and three seconds and then two hours.",
    ),
    ("Genesis 2:1 and Psalm 23:1-6.", "Genesis two one and Psalm twenty-three one to six."),
    ("Read John 3:16-18 tonight.", "Read John three sixteen to eighteen tonight."),
    ("Mix them in a 2:1 ratio.", "Mix them in a two to one ratio."),
    ("A 1:50,000 map.", "A one to fifty thousand map."),
    # Phone numbers, digit by digit in their groups.
    ("Call (800) 998-9938.", "Call eight oh oh, nine nine eight, nine nine three eight."),
    ("Call 800-998-9938 today.", "Call eight oh oh, nine nine eight, nine nine three eight today."),
    ("Or +1 800 998 9938.", "Or plus one, eight oh oh, nine nine eight, nine nine three eight."),
    ("Ring +44 20 7946 0958.", "Ring plus four four, two oh, seven nine four six, oh nine five eight."),
    # Dates and ranges.
    ("On May 5, 1865, it rained.", "On May fifth, eighteen sixty-five, it rained."),
    (
        "On 4 July 1776 and the 5th of November.",
        "On the fourth of July seventeen seventy-six and the fifth of November.",
    ),
    ("The war of 1914–1918 was terrible.", "The war of nineteen fourteen to nineteen eighteen was terrible."),
    ("The war of 1914-1918.", "The war of nineteen fourteen to nineteen eighteen."),
    ("The 1865–66 season.", "The eighteen sixty-five to sixty-six season."),
    ("Read pp. 5–10 and p. 7.", "Read pages five to ten and page seven."),
    ("He won 3–2.", "He won three to two."),
    ("Read verses 5-8 and pages 10-12.", "Read verses five to eight and pages ten to twelve."),
    ("See vv. 3-4 and pp. 110-15.", "See verses three to four and pages one hundred and ten to fifteen."),
    ("For ages 5-8, or 10-15 people.", "For ages five to eight, or ten to fifteen people."),
    ("A 3-2 win.", "A three-two win."),
    # Abbreviations.
    ("Mr. Smith and Mrs. Jones met Dr. Watson.", "Mister Smith and Missus Jones met Doctor Watson."),
    ("Mr Smith met Ms. Jones.", "Mister Smith met Miz Jones."),
    ("They visited St. Paul's in Baker St.", "They visited Saint Paul's in Baker Street."),
    ("Fruit, e.g., apples, i.e. the red ones.", "Fruit, for example, apples, that is the red ones."),
    ("E.g. this one.", "For example this one."),
    ("Apples, pears, etc.", "Apples, pears, et cetera."),
    ("Bread, cheese, &c. and ale.", "Bread, cheese, et cetera and ale."),
    ("It was Kramer vs. Kramer, or Roe v. Wade.", "It was Kramer versus Kramer, or Roe versus Wade."),
    ("He lived at No. 5, then at #10.", "He lived at number five, then at number ten."),
    (
        "Prof. Moriarty met Capt. Hook and Rev. Collins.",
        "Professor Moriarty met Captain Hook and Reverend Collins.",
    ),
    ("Smith & Sons.", "Smith and Sons."),
    ("Martin Luther King, Jr.", "Martin Luther King, Junior."),
    ("I saw the Dr.", "I saw the Doctor."),
    # Roman numerals: never the pronoun.
    ("In Chapter XIV we see.", "In Chapter fourteen we see."),
    ("The best part I liked was this.", "The best part I liked was this."),
    ("I said I would, and I did.", "I said I would, and I did."),
    ("Henry VIII and Louis XIV met.", "Henry the eighth and Louis the fourteenth met."),
    ("Queen Elizabeth II's reign.", "Queen Elizabeth the second's reign."),
    ("Tell King Henry I am here.", "Tell King Henry I am here."),
    ("World War II ended; World War I did not.", "World War two ended; World War one did not."),
    ("See Appendix C.", "See Appendix C."),
    # Dashes and ellipses become a comma's pause.
    ("He stopped—then went on.", "He stopped, then went on."),
    ("He stopped -- then went on.", "He stopped, then went on."),
    ("He stopped – then went on.", "He stopped, then went on."),
    ("The Franco–Prussian war.", "The Franco-Prussian war."),
    ("“But I—” he began.", '"But I," he began.'),
    ("And then—", "And then."),
    ("—Who is there?", "Who is there?"),
    ("I... I don't know.", "I, I don't know."),
    ("Wait . . . what?", "Wait, what?"),
    ("What…?", "What?"),
    ("Well…", "Well."),
    ("“Well…” she said.", '"Well," she said.'),
    # Quotes, decoration, footnotes, whitespace.
    ("“He said ‘hello’ to me,” she said.", "\"He said 'hello' to me,\" she said."),
    ("’Tis true, isn’t it?", "'Tis true, isn't it?"),
    ("*Emphasis* and _italics_ and ### decoration.", "Emphasis and italics and decoration."),
    ("A claim[1] with a note [23].", "A claim with a note."),
    ("Lots   of\n space\u00a0here .", "Lots of space here."),
    ("A soft\u00adhyphen.", "A softhyphen."),
    # Web addresses by their host, e-mail as said.
    ("See https://www.example.com/path?x=1 for more.", "See a link to example dot com for more."),
    ("Visit www.example.org or example.com/foo.", "Visit example dot org or a link to example dot com."),
    ("Go to <https://example.com>.", "Go to example dot com."),
    ("Wiki: https://en.wikipedia.org/wiki/Foo_(bar).", "Wiki: a link to en dot wikipedia dot org."),
    ("Write to info@oreilly.com today.", "Write to info at oreilly dot com today."),
    ("We use ASP.NET, Node.js and file.txt.", "We use ASP.NET, Node.js and file.txt."),
    ("He's an expert .NET developer.", "He's an expert .NET developer."),
    # Markup is dropped; a comparison is said.
    ("The <book> element closes with </book>.", "The element closes with."),
    ('Start with <xsl:template match="/"> here.', "Start with here."),
    ("The rule p { color: red; } makes it red.", "The rule makes it red."),
    ("Run `ls` first.", "Run ls first."),
    ("If a < b and x >= 5.", "If a less than b and x greater than or equal to five."),
    # Left for the engine: no safe reading.
    ("Version 1.2.3 came out.", "Version 1.2.3 came out."),
    ("He ran 5k in 3D.", "He ran 5k in 3D."),
    # Inline phonemes from the lexicon pass through.
    ("Say [[ ˈælɪs ]] 42 times... now.", "Say [[ ˈælɪs ]] forty-two times, now."),
]


@pytest.mark.parametrize(("text", "spoken"), ENGLISH, ids=[text for text, _ in ENGLISH])
def test_english(text: str, spoken: str) -> None:
    assert normalize(text, "en") == spoken


def test_table_is_large_enough() -> None:
    assert len(ENGLISH) >= 40


@pytest.mark.parametrize("language", ["en", "en-US", "en-GB", "en_AU", "EN"])
def test_every_english_tag(language: str) -> None:
    assert is_english(language)
    assert (
        normalize("Dr. Who paid $5 in 1865.", language)
        == "Doctor Who paid five dollars in eighteen sixty-five."
    )


TITLES = [
    ("Chapter XIV", "Chapter fourteen"),
    ("CHAPTER IV.", "CHAPTER four."),
    ("Part II", "Part two"),
    ("Book I", "Book one"),
    ("chapter iv", "chapter four"),
    ("Chapter I. Down the Rabbit-Hole", "Chapter one. Down the Rabbit-Hole"),
    ("IX. The Lobster Quadrille", "nine. The Lobster Quadrille"),
    ("XII", "twelve"),
    ("Chapter 4: The Pool of Tears", "Chapter four: The Pool of Tears"),
    ("The Part I Played", "The Part I Played"),
    ("I Was There", "I Was There"),
    ("V for Vendetta", "V for Vendetta"),
    ("MIX", "MIX"),
    ("VIII", "eight"),
    ("XIV.", "fourteen."),
    ("II", "two"),
    ("I", "one"),
    ("VIII. The Return", "eight. The Return"),
    ("VIII — The Return", "eight, The Return"),
]


@pytest.mark.parametrize(("title", "spoken"), TITLES, ids=[title for title, _ in TITLES])
def test_titles(title: str, spoken: str) -> None:
    assert normalize_title(title, "en-GB") == spoken


OTHER_LANGUAGES = [
    # A whole number standing alone is read in the language; ordinals written "3.", times,
    # decimals, grouped numbers, numbers a symbol or letter touches, abbreviations, dashes and
    # ellipses stay for the engine to read in its language.
    (
        "de",
        "Er kam am 3. Mai 1865 um 10:30 Uhr – 50% später.",
        "Er kam am 3. Mai eintausendachthundertfünfundsechzig um 10:30 Uhr – 50% später.",
    ),
    ("de", "Dr. Müller zahlte 1.234,50 €…", "Dr. Müller zahlte 1.234,50 €…"),
    ("de-AT", "„Ja“, sagte er, ‚gut‘.", "\"Ja\", sagte er, 'gut'."),
    (
        "fr",
        "« Il a payé 5 € », dit-il — en 1865.",
        "« Il a payé 5 € », dit-il — en mille huit cent soixante-cinq.",
    ),
    ("cs", "Bylo to v roce 2022, 1. máje.", "Bylo to v roce dva tisíce dvacet dva, 1. máje."),
    ("ja", "2022年に10人", "二千二十二年に十人"),
    ("zh", "第1回", "第1回"),
    ("fr-CA", "Chapitre XIV : le 1er mai", "Chapitre XIV : le 1er mai"),
    ("es", "Capítulo II.   El  señor*  pagó $5[1].", "Capítulo II. El señor pagó $5."),
    ("fa", "می\u200cخواهم ۲ کتاب", "می\u200cخواهم دو کتاب"),
]


@pytest.mark.parametrize(("language", "text", "spoken"), OTHER_LANGUAGES)
def test_other_languages_get_only_what_cannot_be_wrong_there(language: str, text: str, spoken: str) -> None:
    assert not is_english(language)
    assert normalize(text, language) == spoken
    assert normalize_title(text, language) == spoken


@pytest.mark.parametrize(
    ("language", "title", "spoken"),
    [("sv", "VIII", "åtta"), ("de", "XIV. Die Rückkehr", "14. Die Rückkehr"), ("pt-BR", "I", "um")],
)
def test_other_languages_get_a_bare_title_numeral_read_in_their_language(
    language: str, title: str, spoken: str
) -> None:
    assert normalize_title(title, language) == spoken


@pytest.mark.parametrize(
    ("language", "text", "spoken"),
    [
        ("sv", "Se <b>https://www.example.se/sida</b> nu.", "Se example.se nu."),
        ("de", "Das Element <buch> und p { color: red; } hier.", "Das Element und hier."),
        ("fr", "Si a < b, alors.", "Si a < b, alors."),
    ],
)
def test_other_languages_get_bare_hosts_and_lose_markup(language: str, text: str, spoken: str) -> None:
    assert normalize(text, language) == spoken


@pytest.mark.parametrize(
    ("text", "spoken"),
    [
        ("See https://www.example.com/path?x=1 for more.", "See for more."),
        ("(see www.example.org)", "(see)"),
        ("Visit example.com/foo.", "Visit."),
        ("Write to info@oreilly.com.", "Write to info at oreilly dot com."),
    ],
)
def test_urls_skip_drops_web_addresses(text: str, spoken: str) -> None:
    assert normalize(text, "en", urls="skip") == spoken
    assert normalize_title(text, "en", urls="skip") == spoken


def test_unknown_urls_choice_is_refused() -> None:
    with pytest.raises(ValueError, match="urls must be one of"):
        normalize("Hi.", "en", urls="spell")


def test_idempotent_on_english() -> None:
    for _, spoken in ENGLISH:
        assert normalize(spoken, "en") == spoken, spoken


def test_a_comma_the_poet_wrote_at_the_end_of_a_line_is_kept() -> None:
    """A verse line that runs on keeps its comma; only a pause made from a dash becomes a stop."""
    assert normalize("Something there is that doesn’t love a wall,", "en-US").endswith("wall,")
    assert normalize("Que da ocidental praia Lusitana,", "pt").endswith("Lusitana,")
    assert normalize("He stopped—", "en") == "He stopped."

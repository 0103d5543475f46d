"""Language tags: one parser of BCP 47 tags for every stage ("en-US", "pt_BR", "eng")."""

from __future__ import annotations

import re


def primary_language(language: str) -> str:
    """The primary subtag of a BCP 47 tag, lower case: "en-US" -> "en", "pt_BR" -> "pt"."""
    return re.split(r"[-_]", (language or "").strip().lower())[0]


def well_formed_tag(value: str) -> str:
    """``value`` as a BCP 47 tag ("pt_BR" -> "pt-BR") when it is shaped like one, else ""."""
    tag = (value or "").strip().replace("_", "-")
    return tag if re.fullmatch(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*", tag) else ""


def is_english(language: str) -> bool:
    """Whether a BCP 47 tag ("en", "en-GB", "en_US", "EN") names English."""
    return primary_language(language) == "en"


# ISO 639-1 -> ISO 639-2/T, for the MP4 track language (which must be three letters).
_ISO639_PAIRS = (
    "af:afr am:amh ar:ara az:aze be:bel bg:bul bn:ben bs:bos ca:cat cs:ces cy:cym da:dan de:deu "
    "el:ell en:eng eo:epo es:spa et:est eu:eus fa:fas fi:fin fo:fao fr:fra ga:gle gd:gla gl:glg "
    "gu:guj he:heb hi:hin hr:hrv hu:hun hy:hye id:ind is:isl it:ita ja:jpn ka:kat kk:kaz km:khm "
    "kn:kan ko:kor ky:kir la:lat lb:ltz lo:lao lt:lit lv:lav mk:mkd ml:mal mn:mon mr:mar ms:msa "
    "mt:mlt my:mya nb:nob ne:nep nl:nld nn:nno no:nor oc:oci pa:pan pl:pol pt:por ro:ron ru:rus "
    "si:sin sk:slk sl:slv sq:sqi sr:srp sv:swe sw:swa ta:tam te:tel th:tha tl:tgl tr:tur uk:ukr "
    "ur:urd uz:uzb vi:vie yi:yid zh:zho zu:zul"
)
_ISO639 = dict(pair.split(":") for pair in _ISO639_PAIRS.split())


def iso639_2(language: str) -> str:
    """The three-letter code of a BCP 47 tag ('en-GB' -> 'eng'), or 'und' when unknown."""
    primary = primary_language(language)
    if len(primary) == 3 and primary.isalpha():
        return primary
    return _ISO639.get(primary, "und")


def same_language(a: str, b: str) -> bool:
    """Whether two tags name one language, whatever their regions: "en-US" and "en_GB", "eng" and "en"."""
    # Books in the wild carry three-letter codes too.
    return primary_language(a) == primary_language(b) or iso639_2(a) == iso639_2(b) != "und"

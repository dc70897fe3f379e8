"""Fields that hold codes (a staff ID, a consumer number, a policy number): which fields they
are, the code a user gives for one, and the code written as the field's description asks."""

from __future__ import annotations

import re

from extraction.extractors.rules.fields import Profile

CODE = re.compile(r"[A-Za-z]{0,4}[-/ ]?\d[\w/-]*")  # an example's value that is a code
# A field of codes: its key says so, or its examples (the description's "e.g. E10442" too) are
# codes; then a code right after the field's own words is its value ("staff number E44810").
CODE_KEY = re.compile(r"_(?:id|no|number|code|ref|reference)$")
_EG = re.compile(
    r"\b(?:e\.g\.|eg|for example|such as|like)\s*:?\s*([A-Za-z]{0,4}[-/]?\d[\w/-]*)", re.I
)
_A_CODE = r"(?-i:[A-Z]{0,4})[-/]?\d[\w/-]{3,}"


def _holds_codes(profile: Profile) -> bool:
    if re.search(
        r"phone|mobile|whatsapp|contact number|landline", f"{profile.key} {profile.about}", re.I
    ):
        return False  # a phone number is read by its shape (texts._SHAPES)
    examples = [str(e) for e in profile.field.get("examples") or []] + _EG.findall(profile.about)
    return bool(CODE_KEY.search(profile.key)) or any(CODE.fullmatch(e.strip()) for e in examples)


# Not a code: a date, a phone number or an extension, a code in groups (read whole elsewhere),
# a reply that says it does not have one
_NOT_A_CODE = re.compile(
    r"\d{1,4}[/.-]\d{1,2}[/.-]\d{2,4}|\b(?:ring|call|phone|mobile|extension|ext)\b|"
    r"(?-i:\b(?=[A-Z0-9 ]*\d)[A-Z0-9]{1,4} [A-Z0-9]{1,4} [A-Z0-9]{1,5}\b)|\d{2,5}[ -]\d{2,6}|"
    r"\b(?:don't|do not|not sure|no idea|can't)\b",
    re.I,
)


def code_in_reply(profile: Profile, reply: str) -> str | None:
    """The one code a reply gives for a field of codes ("Lisa Chen, E31905." for a staff ID):
    letters and digits, or five digits at least; none in a reply with a date, a phone number, a
    code in groups, or "I don't have it"."""
    if not _holds_codes(profile) or _NOT_A_CODE.search(reply):
        return None
    found = [c for c in re.findall(rf"\b{_A_CODE}\b", reply)
             if re.search(r"[A-Za-z]", c) or len(re.sub(r"\D", "", c)) >= 5]  # fmt: skip
    return found[0] if len(found) == 1 else None


def code_after_word(profile: Profile, clause: str) -> tuple[str, str, int] | None:
    if not _holds_codes(profile):
        return None
    words = sorted((w for w, weight in profile.words.items() if weight > 0 and len(w) > 1), key=len)
    if not words:
        return None
    found = re.search(rf"(?i)\b(?P<w>{'|'.join(map(re.escape, words))})\w*\s+(?P<m>(?:(?:no\.?|number|id|"
                      rf"#|is|was|:)\s*)*)(?P<v>{_A_CODE})\b(?!\s*(?:pounds|dollars|euros|rupees|a year|a month|per|k\b))",
                      clause)  # fmt: skip
    marked = bool(re.search(r"no|number|id|#", found.group("m"), re.I)) if found else False
    if not found or (  # "claim 2500, that's what the plumber charged": an amount, not a code
        not re.search(r"[A-Za-z]", found.group("v")) and len(found.group("v")) < 5 and not marked
    ) or (found.group("w").lower() not in profile.key_words and not marked):  # fmt: skip
        return None  # "the flight is BA2490" for a field described with "flight": no code word
    return found.group("v"), "a code after the field's words", found.start("v")


_DIGITS_ONLY = re.compile(r"\bdigits only\b", re.I)
_NO_SPACES = re.compile(r"\b(?:without|no) spaces\b", re.I)
_NO_DASHES = re.compile(r"\b(?:without|no) dashes\b", re.I)


def as_the_field_asks(profile: Profile, value: object) -> object:
    """A code written the way the field's description asks ("digits only", "without spaces"):
    "1120 4587 3321" is stored as 112045873321."""
    if profile.type != "string" or not isinstance(value, str) or not re.search(r"\d", value):
        return value
    if _DIGITS_ONLY.search(profile.about) and re.fullmatch(r"[\d\s-]+", value):
        return re.sub(r"\D", "", value)
    if _NO_SPACES.search(profile.about) and re.fullmatch(
        r"[A-Za-z\d]+(?:[\s-][A-Za-z\d]+)*", value
    ):
        value = re.sub(r"\s", "", value)  # a code's groups, not "12B Park Lane"'s words: below
    return re.sub(r"-", "", value) if _NO_DASHES.search(profile.about) else value

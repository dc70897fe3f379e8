"""Things that go by a code (an order number, a ticket, a registration plate): the codes a turn
says, written together or in groups ("INC-20417", "#10492", "LR17 KXD", "KA 51 MD 7788"), one
spelling each, and the name said with one ("Innova Crysta, KA 51 MD 7788"; "the registration
on the Fiesta?" — "LR17 KXD"), by which later turns point at it ("Km reading of Innova?")."""

from __future__ import annotations

import re

from extraction.extractors.rules.naming import CODE, CODE_WORDS, SPACED_CODE, STRONG_CODE
from extraction.extractors.rules.strings import is_ordinary

# a name said just before a code, in its clause: "Innova Crysta, KA 51 MD 7788"
_NAMED_BEFORE = re.compile(r"\b([A-Z][a-zA-Z0-9-]+)(?:\s+[A-Z][a-zA-Z0-9-]+)?\W{0,3}$")
_NOT_NAMES = {"flight", "train", "order", "ticket", "booking", "policy", "claim", "room", "seat"}
_NAMED_IN_QUESTION = re.compile(r"\b(?:the|your|my|that)\s+([A-Z][a-zA-Z0-9-]+)")


def one_spelling(code: str) -> str:
    return re.sub(r"[\s-]", "", code) if re.search(r"\s", code) else code.upper()


def code_pattern(code: str) -> str:
    """A stored code as said, its groups written together or apart ("LR17KXD", "LR17 KXD")."""
    return r"[\s-]?".join(re.escape(c) for c in re.sub(r"[\s-]", "", code))


def _nouns(noun: str) -> str:
    return f"{re.escape(noun)}s?|{CODE_WORDS}" if noun else CODE_WORDS


def _grouped(code: str) -> bool:
    """A code in groups said on its own: six characters at least, two letters and two digits."""
    chars = re.sub(r"[\s-]", "", code)
    return (
        len(chars) >= 6
        and sum(c.isalpha() for c in chars) >= 2
        and sum(c.isdigit() for c in chars) >= 2
    )


def _name_before(text: str, at: int) -> str | None:
    start = max(text.rfind(".", 0, at), text.rfind("?", 0, at), text.rfind("!", 0, at)) + 1
    match = _NAMED_BEFORE.search(text[start:at])
    name = match.group(1) if match else None
    if not name or is_ordinary(name) or re.search(r"\d", name) or name.lower() in _NOT_NAMES:
        return None
    return name


def codes_in(text: str, noun: str) -> list[tuple[str, str | None]]:
    """(code, the name said with it) for each code ``text`` says; ``noun``: what the field's
    things are ("order", "plate")."""
    out: list[tuple[str, str | None]] = []
    nouns = _nouns(noun)
    spans: list[tuple[int, int]] = []
    for match in re.finditer(SPACED_CODE, text):  # "reg LR17 KXD", "Innova, KA 51 MD 7788"
        after_noun = re.search(
            rf"(?i:\b(?:{nouns})\b\s*(?:is|was|:|#)?\s*)$", text[: match.start()]
        )
        if after_noun or _grouped(match.group(0)):
            out.append((one_spelling(match.group(0)), _name_before(text, match.start())))
            spans.append(match.span())
    for match in re.finditer(rf"(?i:\b(?:{nouns})\b(?:\s+(?:{CODE_WORDS}))?\s*(?:is|was|:|#)?\s*)"
                             rf"{CODE}|#\s?(\d{{3,}})\b", text):  # fmt: skip
        if not _inside(match, spans):  # "LR17" of "LR17 KXD"
            out.append(((match.group(1) or match.group(2)).upper(), None))
    for match in re.finditer(STRONG_CODE, text):  # "INC-20417", "K7XQ2L" said alone
        if not _inside(match, spans):
            out.append((match.group(0), _name_before(text, match.start())))
    return out


def _inside(match: re.Match[str], spans: list[tuple[int, int]]) -> bool:
    return any(a <= match.start(match.lastindex or 0) < b for a, b in spans)


def code_answer(question: str, reply: str, noun: str) -> tuple[str, str | None] | None:
    """ "And the registration on the Fiesta?" — "LR17 KXD. It's a 2017 one": the code the reply
    gives to a question about one, with the name the question used."""
    asks = question.rstrip().endswith("?") or re.search(r"(?i:\bplease)\W*$", question)
    if not asks or not re.search(rf"(?i:\b(?:{_nouns(noun)})\b)", question):
        return None
    code = re.match(
        rf"\W*(?:(?:(?i:it's|it is|its|yes|sure)|[a-z]+),?\s+)?({SPACED_CODE}|{STRONG_CODE})", reply
    )
    # digits alone, to a question that names the things or their code ("the PNR", "the claim
    # number"), not only "number" ("Best number to call?" asks a phone)
    specific = re.search(rf"(?i:\b(?:{re.escape(noun)}s?|pnr|ref|reference|id)\b)", question)
    digits = re.fullmatch(r"\W*(?:(?i:it's|it is|its|yes|sure|yeah),?\s+)?(\d{5,})\W*", reply)
    code = code or (digits if noun and specific else None)
    if code is None:
        return None
    named = _NAMED_IN_QUESTION.search(question)
    name = named.group(1) if named and not is_ordinary(named.group(1)) else None
    return one_spelling(code.group(1)), name


def same_shape(text: str, known: list[str]) -> list[str]:
    """Numbers said alone with as many digits as the field's all-digit codes (four at least):
    "For 90114?" once claim 90187 is known. Not an amount, a time or part of a longer number."""
    lengths = {len(c) for c in known if c.isdigit() and len(c) >= 4}
    if not lengths:
        return []
    found = re.finditer(
        r"(?<![\d.$£€₹#:/-])(?<!\d,)(?<!rs )(?<!rs\. )\b\d{4,}\b(?![\d-]|[.,]\d|\s?(?:%|k\b|am\b|pm\b|"
        r"km|kms|miles|kg|dollars|euros|pounds|rupees|rs\b))",
        text,
        flags=re.I,
    )
    return [m.group(0) for m in found if len(m.group(0)) in lengths]

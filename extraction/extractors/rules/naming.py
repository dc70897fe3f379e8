"""How people and things are named in a conversation: names (capitalised mid-sentence, the
answer to "your son's name?", or written in lower case after a relation: "my wife sneha"),
what a relation stands for ("wife" → "Sneha"), the user's own first name, and codes that things
go by ("ticket INC-20417", "order #10492")."""

from __future__ import annotations

import re
from dataclasses import replace

from extraction.extractors.base import WindowTurn
from extraction.extractors.rules.acts import RELATIONS
from extraction.extractors.rules.fields import _PER
from extraction.extractors.rules.reader import Context
from extraction.extractors.rules.strings import is_ordinary

NOT_PEOPLE = set(["year", "grade", "class", "term", "standard", "level", "room", "block", "phase", "plan", "line", "account", "card", "policy", "unit", "flat", "floor", "section", "batch", "team", "group", "dr", "mr", "mrs", "ms", "miss", "sir", "madam", "lovely", "great", "thanks", "thank", "hi", "hello", "hey", "yes", "no", "okay", "ok", "sure", "same", "then", "turns", "also", "both", "either"])  # fmt: skip

CODE_WORDS = r"number|no\.?|ref|reference|id|code|pnr|confirmation(?: code| number)?"
# a code: letters and digits with one digit at least ("INC-20417", "10492", "K7XQ2L")
CODE = r"((?=[A-Za-z-]*\d)[A-Za-z0-9][A-Za-z0-9-]{2,}[A-Za-z0-9]|[A-Z]{6})\b"


STRONG_CODE = r"\b(?=[A-Z]*\d)(?=\d*[A-Z])[A-Z0-9]{5,8}\b|\b[A-Z]{2,5}-\d{3,}\b"


def coded(description: str, examples: list[str]) -> bool:
    """Whether a field's things go by a number or code: its examples have digits, or its
    description says so after "per …" ("one fact per ticket, by its ticket number")."""
    per = _PER.search(description.lower())
    said = description.lower()[per.start() : per.end() + 60] if per else ""
    return any(re.search(r"\d", q) for q in examples) or bool(
        re.search(rf"\b(?:{CODE_WORDS})\b", said)
    )


def first_name(name: str) -> str | None:
    first = name.split()[0] if name.split() else ""
    return first if first[:1].isupper() else None


def user_first_name(ctx: Context) -> str | None:
    """The user's first name: as the session names them, else as they said it ("this is Nadia
    Brooks" earlier in the window or before it)."""
    said = next((ctx.current.get(p.key, "") for p in ctx.fields if p.person_name), "")
    return first_name(ctx.turn.speaker) or first_name(said)


def person_like(word: str) -> bool:
    return (
        word[:1].isupper()
        and not word.isupper()
        and word.lower() not in NOT_PEOPLE
        and not is_ordinary(word)
    )


def names(turns: list[WindowTurn]) -> set[str]:
    """Words written capitalised mid-sentence somewhere in the window: names, not sentence
    starts ("Same day for her", "Turns out he is …")."""
    out: set[str] = set()
    skip = {w.lower() for t in turns for w in (t.speaker + " " + t.listener).split()}
    asked = False  # the agent asked for a name: the reply's first word may be one ("Kacper.")
    for turn in turns:
        starts = r"^\W*" if asked and turn.role == "user" else r"(?!)"
        for match in re.finditer(rf"(?:(?<=[\w,;:] )|{starts})([A-Z][a-z][\w'-]*)", turn.text):
            word = match.group(1).removesuffix("'s")
            if person_like(word) and word.lower() not in skip:
                out.add(word)
        asked = turn.role == "assistant" and bool(re.search(r"\bnames?\b", turn.text, re.I))
    return out


# "my wife sneha.", "my son arjun and I": a name written in lower case right after a relation
_LOWER_NAME = re.compile(
    rf"\b(?:my|our)\s+(?:{RELATIONS})\s*,?\s+([a-z][a-z'-]{{2,}})"
    r"(?=\s*(?:[.,!?;)]|$|\s+(?:and|is|was|who|will|too|also|as)\b))"
)
_NOT_A_NAME = re.compile(r"(?:ing|ed|ly|s)$|^(?:and|but|who|was|too|also|here|there|now|then|"
                         r"again|well|today|tomorrow|yesterday|tonight|instead|though)$")  # fmt: skip
# "my partner, Kwame Mensah", "my wife Sneha": whom the relation names
RELATION_NAMED = re.compile(rf"\b(?:my|our)\s+({RELATIONS})\s*,?\s+([A-Z][a-z][\w'-]*)", re.I)


def capitalise_names(turns: list[WindowTurn]) -> list[WindowTurn]:
    """Names written in lower case ("my wife sneha") capitalised wherever they are said, so the
    rest reads them as names."""
    learnt = {
        m.group(1)
        for t in turns
        if t.role == "user"
        for m in _LOWER_NAME.finditer(t.text)
        if not _NOT_A_NAME.search(m.group(1)) and not is_ordinary(m.group(1).capitalize())
        and m.group(1) not in NOT_PEOPLE
    }  # fmt: skip
    if not learnt:
        return turns
    pattern = re.compile(rf"\b({'|'.join(sorted(map(re.escape, learnt)))})\b")
    return [replace(t, text=pattern.sub(lambda m: m.group(1).capitalize(), t.text)) for t in turns]

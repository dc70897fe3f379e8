"""An enum choice said in everyday words: "face to face" for *in person*, "over Zoom" for
*online*, "ring me" for *phone call*, "veggie" for *vegetarian*. A choice is matched to one of the
sayings below by its words; a sentence that says it names the choice when exactly one choice of
the field is that saying. General English, not any one schema's wording: a schema teaches its
own through its choices' words and its examples.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from extraction.extractors.rules.fields import stem

Table = dict[str, tuple[tuple[str, ...], str]]  # meaning: (choices that are it, how it is said)

# meaning: (the choices that are it, as written; how it is said without them)
_SAYINGS: Table = {
    "in person": (
        (
            "in person",
            "in-person",
            "face to face",
            "onsite",
            "on site",
            "in office",
            "in the office",
            "at the centre",
            "at the clinic",
            "offline",
            "in clinic",
            "in store",
        ),
        r"face[\s-]to[\s-]face|in[\s-]person|(?:come|pop|drop) (?:in|by|into|over|down)|"
        r"come to (?:the|your) (?:office|centre|center|clinic|branch|studio|school|shop|store)|"
        r"at (?:the|your) (?:office|centre|center|clinic|branch|studio|school)|on[\s-]?site|"
        r"home (?:tuition|visits?|lessons?|classes|sessions?)|(?:comes?|come over) (?:to (?:the |our |my )?)?home",
    ),
    "online": (
        ("online", "remote", "virtual", "video", "video call", "zoom", "over video"),
        r"zoom|(?:ms |microsoft |on |over |via )teams|skype|google meet|video(?: call| link| chat)?|"
        r"remote(?:ly)?|virtual(?:ly)?|over the internet|on my laptop|webcam",
    ),
    "hybrid": (("hybrid", "mixed", "both", "blended"), r"mix of (?:both|the two)|bit of both"),
    "phone call": (
        ("phone call", "phone", "call", "telephone", "voice call", "by phone"),
        r"ring me|call me\b(?!\s+(?-i:[A-Z]))|phone me|give me a (?:call|ring|bell)|by phone|"
        r"on the phone|over the phone|(?:prefer|rather have|rather get|just) a call\b",
    ),
    "text message": (
        ("text message", "text", "sms", "texts", "by text"),
        r"text me|(?:by|a|via) text\b|sms|drop me a text|send me a text|texting",
    ),
    "email": (("email", "e-mail", "by email", "mail"), r"e-?mail me|(?:by|via|an) e-?mail"),
    "whatsapp": (("whatsapp", "whats app"), r"whats ?app|wa message"),
    "pickup": (
        (
            "pickup",
            "pick up",
            "collect",
            "collection",
            "click and collect",
            "in-store pickup",
            "store pickup",
        ),
        r"collect (?:it|them|myself|in store|from (?:the|your))|(?:i'll|i will|i can|i'd) "
        r"collect|pick (?:it|them) up|come (?:in|by) for (?:it|them)|call in for (?:it|them)|"
        r"(?:i'll|i will|we'll|we will) (?:come|pop|drop) (?:in|by|round)(?! (?:to|and) (?!collect|pick))",
    ),
    "delivery": (
        ("delivery", "delivered", "home delivery", "deliver", "courier", "post", "shipping"),
        r"deliver (?:it|them)|(?:post|send|ship|courier|bring) (?:it|them) (?:to me|over|round|"
        r"to my)|to my (?:door|house|flat|home|address)|have it delivered",
    ),
    "vegetarian": (
        ("vegetarian", "veg", "veggie", "vegetarian meal"),
        r"veggie|don't eat (?:any )?meat|no meat|meat[\s-]free|vegetarian",
    ),
    "vegan": (
        ("vegan", "plant based", "plant-based", "vegan meal"),
        r"plant[\s-]based|no animal products|vegan",
    ),
    "no preference": (
        ("no preference", "either", "any", "no pref", "don't mind", "flexible", "whichever"),
        r"either(?:'s| is| one| way| works| will do)|any (?:is|will do|works)|not bothered|"
        r"both (?:are )?fine|no preference|whichever",
    ),
    "walk": (
        ("walk", "walking", "on foot", "walks"),
        r"on foot|walk(?:s|ing)?\b(?! (?:in|into|away))",
    ),
    "bus": (("bus", "school bus", "by bus", "coach"), r"(?:the|by|on the|school) bus"),
    "none": (
        ("none", "no", "nothing", "not needed", "no cover", "declined", "opted out"),
        r"neither(?: of (?:them|those|the two))?|none of (?:them|those|the above)|"
        r"don't (?:need|want) (?:either|any of (?:them|those))",
    ),
    "morning": (
        ("morning", "mornings", "am", "early morning", "before work"),
        r"before work|first thing|early (?:on|in the day)|mornings?",
    ),
    "afternoon": (("afternoon", "afternoons", "after lunch"), r"after lunch|afternoons?"),
    "lunchtime": (("lunchtime", "lunch", "midday", "noon"), r"lunch ?(?:time|break)?|midday|noon"),
    "evening": (
        ("evening", "evenings", "after work", "night", "pm"),
        r"after work|after (?:5|6|7|five|six|seven)(?:\s?pm)?|evenings?",
    ),
    "variable": (("variable", "floating", "variable rate"), r"float(?:ing)?\b|variable"),
    "fixed": (("fixed", "fixed rate"), r"lock (?:it|the rate|in)|locked[\s-]in|fixed"),
    "card": (
        ("card", "credit card", "debit card", "by card", "card payment"),
        r"(?:by|on|with|pay with) (?:my |a )?(?:card|credit card|debit card|visa|mastercard|amex)|"
        r"contactless|apple pay|google pay",
    ),
    "bank transfer": (
        ("bank transfer", "transfer", "wire", "wire transfer", "direct transfer", "bacs"),
        r"bank transfer|transfer (?:it|the money)|wire (?:it|the money)|bacs|neft|imps",
    ),
    "cash": (("cash", "in cash"), r"(?:in|with|pay) cash|cash on delivery"),
    "outdoor": (
        (
            "outdoor",
            "outdoors",
            "outside",
            "terrace",
            "patio",
            "al fresco",
            "garden",
            "beer garden",
        ),
        r"\boutside\b|outdoors?|al fresco|in the (?:sun|fresh air)|on the (?:terrace|patio)",
    ),
    "anniversary": (
        ("anniversary", "wedding anniversary"),
        r"(?:silver|golden|ruby|pearl|diamond|paper|crystal) wedding|\d+(?:st|nd|rd|th)? (?:wedding )?"
        r"anniversary|years married|married (?:for )?\d+ years",
    ),
    "gluten free": (
        ("gluten free", "gluten-free", "coeliac", "celiac", "no gluten"),
        r"coeliac|celiac|gluten[\s-]?free|no gluten|can't (?:have|eat) gluten",
    ),
    "dairy free": (
        ("dairy free", "dairy-free", "lactose free", "no dairy"),
        r"dairy[\s-]?free|lactose[\s-]intolerant|no dairy|can't (?:have|eat) dairy",
    ),
    "price": (
        ("price", "cost", "too expensive", "pricing", "costs"),
        r"\bthe (?:cost|price)\b|too expensive|(?:price|bill) (?:went|has gone|keeps going) up|"
        r"can't afford|cheaper (?:deal|elsewhere)",
    ),
    "moving home": (
        ("moving home", "moving house", "relocating", "moving", "house move", "home move"),
        r"moving (?:house|home|out|away)|relocating|we're moving|new (?:house|home|flat) (?:in|is)",
    ),
    "economy": (("economy", "budget", "smallest", "cheapest"), r"\bcheapest\b|\bsmallest\b"),
    "in progress": (
        ("in progress", "underway", "under way", "half done", "partly done"),
        r"half[\s-]done|partly done|part[\s-]way through|halfway through|under ?way|in progress",
    ),
    "not started": (
        ("not started", "not begun", "not yet started"),
        r"(?:haven't|hasn't|have not|has not|not) (?:yet |even )?(?:started|begun|looked at it|touched it)",
    ),
    "full redesign": (
        ("full redesign", "complete redesign", "redesign", "full makeover"),
        r"(?:start|starting) (?:again )?from scratch|rip (?:it all|everything|the (?:whole|lot)\w*) out|"
        r"the works\b",
    ),
}


def _words(text: str) -> tuple[str, ...]:
    return tuple(stem(w) for w in re.findall(r"[a-z0-9]+", text.lower()))


def meaning_of(table: Table, choice: str, partial: bool = False) -> str | None:
    """The meaning a choice is: the one that lists it as written, else as stemmed words; with
    ``partial``, else the one whose words it holds most of ("refund issued to card" holds
    "refund issued")."""
    written = " ".join(re.findall(r"[a-z0-9]+", choice.lower().replace("-", " ")))
    for meaning, (names, _) in table.items():
        if written in {n.replace("-", " ") for n in names}:
            return meaning
    words = _words(choice)
    best, size = None, 0
    for meaning, (names, _) in table.items():
        for name in names:
            own = _words(name)
            if own == words:
                return meaning
            if partial and set(own) <= set(words) and len(own) > size:
                best, size = meaning, len(own)
    return best


def meanings_said(table: Table, sentence: str, choices: list[str], partial: bool = False,
                  skip: Callable[[str, int], bool] | None = None) -> list[tuple[str, int, int]]:  # fmt: skip
    """(choice, start, end) of each meaning the sentence says in its words, for the choice
    that is that meaning when exactly one is; a longer saying holds a shorter one inside it
    ("sent it back" is not also "sent"). ``skip(meaning, start)``: a saying not to count."""
    by_meaning: dict[str, list[str]] = {}
    for choice in choices:
        meaning = _cached(table, choice, partial)
        if meaning:
            by_meaning.setdefault(meaning, []).append(choice)
    found = []
    for meaning, named in by_meaning.items():
        if len(named) != 1:
            continue
        for match in re.finditer(rf"\b(?:{table[meaning][1]})\b", sentence, re.I):
            if skip is None or not skip(meaning, match.start()):
                found.append((named[0], match.start(), match.end()))
    return [f for f in found if not any(o is not f and o[1] <= f[1] and f[2] <= o[2]
                                        and o[2] - o[1] > f[2] - f[1] for o in found)]  # fmt: skip


_MEANINGS: dict[tuple[int, str, bool], str | None] = {}


def _cached(table: Table, choice: str, partial: bool) -> str | None:
    key = (id(table), choice, partial)
    if key not in _MEANINGS:
        _MEANINGS[key] = meaning_of(table, choice, partial)
    return _MEANINGS[key]


# A choice turned down: "don't call me at work", "please never text", "not by email".
_NEGATED = re.compile(r"\b(?:don'?t|do not|never|not|rather not|stop)\s+(?:\w+\s+){0,2}$", re.I)


def turned_down(sentence: str, at: int) -> bool:
    """Whether what the sentence says at ``at`` is said as not wanted or not so."""
    return bool(_NEGATED.search(sentence[max(0, at - 30) : at]))


def said_choices(sentence: str, choices: list[str]) -> list[tuple[str, int, int]]:
    """(choice, start, end) of each choice the sentence says in everyday words, and does not
    turn down."""
    return meanings_said(_SAYINGS, sentence, choices, skip=lambda _, at: turned_down(sentence, at))

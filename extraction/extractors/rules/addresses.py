"""A street address as people say it, for a field that keeps an address: "22 alma rd, sheffield
S11", "Flat 2, 19 Beechwood Road, Harrogate. HG2 0PA.", "780 Clarkson Street, apartment 3B",
"Unit 6, Grange Business Park, Lucan" — a house or unit number, the street with its kind (road,
street, avenue …), then what follows it: a flat or unit, the town, the postcode. Whatever else
the turn says around it ("we're going to Cardiff, …", "Keys on the 30th") is not the address.
"""

from __future__ import annotations

import re

from extraction.extractors.rules.fields import Profile

_KIND = (
    r"road|rd|street|st|avenue|ave|lane|ln|drive|dr|close|way|place|pl|crescent|cres|court|ct|"
    r"boulevard|blvd|terrace|grove|gardens|square|sq|row|mews|hill|parade|highway|hwy|parkway|"
    r"pkwy|circle|walk|rise|ffordd|heol|marg|nagar|colony|apartments|towers|wharf|"
    r"(?:business|industrial|retail|trade|trading|science|technology|tech|office|enterprise)\s+"
    r"(?:park|estate|centre|center)"
)  # a park or an estate is a place of work, not "Hyde Park"
_UNIT = r"(?:flat|apartment|apt|unit|suite|shop|house|plot)\.?\s*(?:no\.?\s*)?#?\s*\d{1,5}[a-z]?"
# the street's name: words, none of them a function word or a unit ("5 km down the road")
_NOT_NAME = (
    r"the|a|an|in|on|at|to|of|for|from|by|and|or|but|with|down|up|my|our|your|his|her|their|"
    r"is|are|was|km|kms|miles?|metres?|meters?|blocks?|minutes?|mins?|hours?|times?|days?|weeks?"
)
_NAME = rf"(?:(?!(?:{_NOT_NAME})\b)[A-Za-z][\w'.-]*\s+){{0,3}}"
_STREET = re.compile(
    rf"\b(?:{_UNIT}\s*,?\s+)?(?:\d{{1,5}}[a-z]?\s*,?\s+)?{_NAME}(?:{_KIND})\b\.?"
    r"(?:\s+(?-i:N|S|E|W|NE|NW|SE|SW)\b)?",
    re.I,
)
# "In 2019 Abbey Road was closed": a year, not a house number
_YEAR = re.compile(r"\b(?:in|since|from|by|of|until|till)\s+(?:19|20)\d\d\s*,?\s+[A-Za-z]", re.I)
_POSTCODE = (
    r"[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}|[A-Z]{1,2}\d{1,2}[A-Z]?(?=\W*$|[.,;!?\s])|\d{5}(?:-\d{4})?|"
    r"\d{6}|\d{3}\s\d{3}"
)  # UK (whole or its outward part), US ZIP, Indian PIN
_AFTER = re.compile(
    rf"(?:\s*,\s*|\s+)(?:(?P<unit>(?:{_UNIT}|(?:apartment|apt|flat|unit|suite|#)\s*\w{{1,5}}))|"
    rf"(?P<post>(?-i:(?:[A-Z]{{2}}\s+)?{_POSTCODE}))\b|(?P<town>(?-i:[A-Z][a-z][\w'-]*)(?:\s+(?-i:[A-Z][a-z][\w'-]*)){{0,2}})|"
    rf"(?P<low>[a-z][a-z'-]+)(?=\s*,?\s*(?-i:{_POSTCODE})))",
    re.I,
)
_POST_AFTER_STOP = re.compile(rf"\.\s+(?-i:{_POSTCODE})\b\.?", re.I)  # "Harrogate. HG2 0PA."
_NOT_TOWN = re.compile(
    r"^(?:and|but|so|then|the|keys|thanks|thank|please|also|it|its|it's|i|we|you|they|he|she|"
    r"that|this|there|which|who|from|on|at|in|by|for|to|is|was|will|can|could|should|would|"
    r"okay|ok|yes|no|sorry|actually|mon|tue|wed|thu|fri|sat|sun)\b",
    re.I,
)


def address_field(profile: Profile) -> bool:
    """Whether a text field keeps a street address: its key says address ("delivery_address",
    "address_line"), not an email's, an IP's or how someone is addressed."""
    return (
        profile.type == "string"
        and not profile.qualified
        and bool(re.search(r"(?:^|_)address(?:$|_)", profile.key))
        and not re.search(
            r"(?:^|_)(?:e_?mail|ip|mac|web|url|wallet|form|forms)(?:_of)?_address", profile.key
        )
    )


def street_address(text: str) -> tuple[str, int] | None:
    """The first street address in ``text`` and where it starts; None without a number or a
    unit (a street named alone is a place, not an address)."""
    for match in _STREET.finditer(text):
        core = match.group(0).rstrip(".")
        if not re.search(r"\d", core) or _YEAR.match(text, max(0, match.start() - 8)):
            continue
        named = re.sub(
            rf"^(?:{_UNIT}\s*,?\s+)?\d{{1,5}}[a-z]?\s*,?\s+", "", core, flags=re.I
        ).split()
        if len(core.split()) < 2 or (
            core != core.lower() and not all(w[:1].isupper() or w[:1].isdigit() for w in named)
        ):
            continue  # "3 nights near Hyde Park": a name is capitalised, unless all is lower case
        end = match.start() + len(core)
        while True:
            more = _AFTER.match(text, end)
            if more is None or (more.group("town") and _NOT_TOWN.match(more.group("town"))):
                stop = _POST_AFTER_STOP.match(text, end)
                if stop is None:
                    break
                end = stop.end() - (1 if stop.group(0).endswith(".") else 0)
                break
            end = more.end()
        value = re.sub(r"\s*\.\s+", ", ", text[match.start() : end].strip(" ,.;"))
        return value, match.start()
    return None


def street_cues(profile: Profile, clause: str) -> list[tuple[str, str, int]]:
    """[(address, cue, where)] for an address field, or []."""
    if not address_field(profile):
        return []
    found = street_address(clause)
    return [(found[0], "a street address", found[1])] if found else []


# The user's own place: "my new place", "we're moving", "deliver it to", "pick up from", "home"
_MINE = re.compile(
    r"\b(?:my|our)\s+(?:new\s+|own\s+)?(?:address|place|home|flat|house|apartment|studio)\b|"
    r"\b(?:i|we)(?:'m|'re| am| are|'ve| have)?\s+(?:live|living|moved|moving|move|based)\b|"
    r"\b(?:deliver|send|ship|post|bring|drop|redirect)\w*\b[^.?!]{0,30}\bto\b|"
    r"\b(?:pick ?up|collect\w*)\s+(?:it\s+)?from\b|\bhome\b",
    re.I,
)
# What an address said after these is not (or no longer) the user's
_NOT_MINE = re.compile(
    r"\b(?:used to be|old (?:address|place)|previous(?:ly)?|not (?:the|to|at)|staying with|venue|"
    r"reception|wedding|party|hotel|school|church|hall|restaurant|i work at|work(?:s|ing)? (?:at|from)|"
    r"office (?:is )?at|[A-Z]?[a-z]+'s (?:place|house|flat))\b[^.;!?]{0,40}$",
    re.I,
)
_NEWER = re.compile(
    r"\b(?:moved|moving|move)\s+(?:\w+\s+){0,3}to\b|\bnow\b|\bnew\b|\bhome\b[^.;]{0,6}$", re.I
)


def _addresses(text: str) -> list[tuple[str, int]]:
    out, at = [], 0
    while (found := street_address(text[at:])) is not None:
        out.append((found[0], at + found[1]))
        at += found[1] + len(found[0])
    return out


def own_address(
    profile: Profile, others: list[Profile], text: str, asked: bool
) -> tuple[str, int] | None:
    """The address the user gives as theirs for ``profile``: asked for, or said as their place
    ("my new place. 780 Clarkson Street"); never one said of someone or something else (a
    venue, a friend's, the office, the old one), nor one another address field's words lead
    ("bill to 9 Oak Ave" for a shipping address). Of several, the one said as the new one."""
    if not address_field(profile) or not (asked or _MINE.search(text)):
        return None
    own = set(profile.key.split("_")) - {"address"}
    theirs = (
        {w for p in others if p is not profile and address_field(p) for w in p.key.split("_")}
        - {"address"}
        - own
    )
    kept = []
    for value, start in _addresses(text):
        before = text[max(0, start - 50) : start]
        before = re.split(r"[.;!?,]|\bbut\b", before)[-1]  # its own clause
        if _NOT_MINE.search(before) or any(
            re.search(rf"\b{re.escape(w[:4])}", before, re.I) for w in theirs
        ):
            continue
        kept.append((value, start, bool(_NEWER.search(before))))
    if not kept:
        return None
    newer = [k for k in kept if k[2]]
    value, start, _ = newer[-1] if newer else kept[0]
    return value, start

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
    r"pkwy|circle|walk|rise|ffordd|heol|marg|nagar|colony|apartments|towers|park|estate|wharf"
)
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
    """Whether a text field keeps a street address (its key or description says so)."""
    return (
        profile.type == "string"
        and not profile.qualified
        and "address" in profile.key
        and not re.search(r"e_?mail|\bip\b|web|url", profile.key)
    )


def street_address(text: str) -> tuple[str, int] | None:
    """The first street address in ``text`` and where it starts; None without a number or a
    unit (a street named alone is a place, not an address)."""
    for match in _STREET.finditer(text):
        core = match.group(0).rstrip(".")
        if not re.search(r"\d", core):
            continue
        words = core.split()
        if len(words) < 2:
            continue
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

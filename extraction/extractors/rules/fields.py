"""What the extractor knows about each schema field: the words that name it (its key, its
description, its examples, and a small thesaurus of everyday synonyms), rarer words weighing
more; its embedded description and examples; whether it holds one value per named thing
(``child_age:Aditi``) and which qualifiers its description lists; what its examples teach
about where a value sits ("allergic to penicillin": a value follows "allergic to").

Built once per schema and cached by the schema's content.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from dataclasses import dataclass
from dataclasses import field as attribute
from typing import Any

import numpy as np

from extraction.extractors.rules.persons import users_name
from extraction.extractors.rules.thesaurus import THESAURUS
from memory.embedding import embed

GENERIC = frozenset(
    ["the", "a", "an", "of", "or", "and", "to", "in", "on", "at", "by", "for", "is", "are", "was", "be", "it", "its", "this", "that", "these", "those", "with", "from", "as", "per", "one", "each", "any", "all", "their", "they", "them", "his", "her", "our", "your", "you", "i", "we", "my", "me", "whether", "what", "which", "when", "where", "who", "how", "do", "does", "did", "will", "would", "can", "could", "should", "may", "might", "has", "have", "had", "not", "no", "yes", "user", "users", "customer", "customers", "patient", "patients", "buyer", "buyers", "candidate", "candidates", "guest", "guests", "traveller", "travellers", "investor", "investors", "applicant", "applicants", "subscriber", "subscribers", "policyholder", "policyholders", "cardholder", "cardholders", "student", "students", "parent", "parents", "family", "client", "clients", "caller", "person", "people", "member", "members", "wants", "want", "wanted", "fact", "value", "so", "right", "also", "new", "next", "last", "like", "about", "much", "many", "ok", "okay", "number", "there", "here", "some", "other", "than", "into", "just", "only", "very", "really", "get", "gets", "go", "goes", "make", "makes", "keep", "keeps", "well", "account", "holder", "mostly", "mainly", "somewhere", "around", "roughly", "maybe", "probably", "near", "close", "ideally", "preferably", "need", "needs", "needed", "require", "requires", "required", "enable", "enabled", "requested", "request", "allowed", "done", "made", "given", "filed", "set", "planned", "today", "tonight", "i'm", "im", "i've", "i'll", "i'd", "we're", "we've", "we'll", "it's", "that's", "you're", "there's"]
)  # fmt: skip
_QUALIFIERS = re.compile(r"\b(?P<key>[a-z][a-z0-9_]*):\s?(?P<q>[\w][\w .'-]*?)\s*[,)]")
_PER = re.compile(
    r"\b(?:one|a separate|a) (?:\w+ ){0,2}?(?:per|for each|for every) (?P<what>[a-z ]+?)"
    r"(?:\s*\(|,|\.|;|'|$|\s+(?:by|named|with|that|which|identified)\b)"
)
_PROPER_HINT = re.compile(
    r"\b(name|city|town|country|company|employer|landlord|agency|provider|insurer|builder|"
    r"developer|doctor|hospital|clinic|school|bank|brand|garage|airline|hotel|destination|"
    r"locality|localities|neighbourhood|area|place|where|which)\b"
)


TIME_UNITS = "minute|hour|day|night|week|month|year"  # a stretch of time: "two weeks", "a few days"
_PER_UNIT = {"hourly": "hour", "daily": "day", "nightly": "night", "weekly": "week",
        "monthly": "month", "yearly": "year", "annually": "annual"}  # fmt: skip
_SUFFIXES = (
    ("ations", ""),
    ("ation", ""),
    ("ionally", "ion"),  # "conditionally", "conditional" → condition
    ("ional", "ion"),
    ("vals", "v"),  # "approval", "approved" → approv; "arrival", "arrive" → arriv
    ("val", "v"),
    ("ments", ""),
    ("ment", ""),
    ("ings", ""),
    ("ing", ""),
    ("ies", "y"),
    ("ied", "y"),
    ("ed", ""),
    ("es", ""),
    ("s", ""),
)


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude stem, the same for a word's common forms ("expected", "expectation" → expect;
    "moving", "move" → mov)."""
    word = word.lower().strip("'").removesuffix("'s")
    word = _PER_UNIT.get(word, word)  # "weekly rate" is named by "a week"
    if word.endswith("ss") or len(word) <= 3:
        return word
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + replacement
            break
    if len(word) >= 6 and word.endswith("ery"):
        word = word[:-1]  # "delivery", "deliver"; "grocery", "grocer"
    return word[:-1] if len(word) >= 4 and word.endswith("e") else word


def content_words(text: str, parts: bool = False) -> list[str]:
    """``parts``: a hyphenated word's parts too ("auto-refill" says the field auto_refill)."""
    said = re.findall(r"[a-z][a-z'-]*", text.lower().replace("_", " "))
    return [stem(w) for w in said + [p for w in said if parts and "-" in w for p in w.split("-")]
            if w not in GENERIC and len(w) > 1]  # fmt: skip


# A description's everyday verbs and time words say how it is said or when, not what the field
# holds: "The language the user prefers to talk in" is not asked by "What did you talk about?",
# nor "How the user says they feel right now" by "What do you say now?". Alone they do not
# name the field (below ASKED_MIN_WORDS); beside a word that does, they still count.
_VERBS = frozenset(stem(w) for w in (
    "say", "says", "said", "tell", "tells", "told", "talk", "talks", "speak", "speaks", "try", "trying",
    "tries", "now", "currently", "still", "usually", "often", "think", "thinks", "know", "knows",
    "mention", "mentions", "mentioned", "describe", "describes", "give", "gives", "use", "uses",
))  # fmt: skip
DESCRIPTION_VERB = 0.3


@dataclass
class Template:
    """What an example teaches: the words before the value, and the kind of value."""

    before: tuple[str, ...]
    value: str
    whole: str = ""  # a lead-in that is part of the value, as written: "iPhone" 13, "Dr" Rao


@dataclass
class Profile:
    field: dict[str, Any]
    key: str
    type: str
    words: dict[str, float]
    key_words: set[str]
    qualifiers: list[str]
    qualifier_kind: str | None  # "name": people or pets, by name; "word": things, by a word
    templates: list[Template]
    person_name: bool  # the user's own name
    proper: bool  # values are proper nouns (cities, companies), not free text
    vector: np.ndarray = attribute(repr=False)
    example_vectors: np.ndarray = attribute(repr=False)
    lead_words: set[str] = attribute(default_factory=set)  # words a text value may follow

    @property
    def qualified(self) -> bool:
        return self.qualifier_kind is not None

    @property
    def about(self) -> str:
        """Its key and description as words ("weekly sessions How many … a week")."""
        return f"{self.key} {self.field.get('description', '')}".replace("_", " ")

    @property
    def how(self) -> bool:
        """Whether the field is itself a how ("How the user says they feel")."""
        return bool(re.search(r"\bhow\b", self.field.get("description") or "", re.I))


def _field_text(f: dict[str, Any]) -> str:
    return f"{f['key'].replace('_', ' ')}: {f.get('description', '')}"


VALUE_WORD = "="  # prefix marking, in a field's words, those that come from example values
_DETERMINERS = {
    "a",
    "an",
    "the",
    "my",
    "our",
    "your",
    "his",
    "her",
    "their",
    "mostly",
    "mainly",
    "somewhere",
    "around",
    "about",
    "roughly",
    "maybe",
    "probably",
    "just",
}


_PLACING = {"in", "with", "at", "on", "behind", "under", "inside", "outside", "near", "by", "beside",
            "next"}  # fmt: skip


_NAMED_WHOLE = re.compile(r"[a-z]+[A-Z]\w*|(?:Dr|Prof|Dr\.|Prof\.)$")  # "iPhone", "eBay"; a title


WH_ONLY = "the question's wh-word"  # "Where are you living?" asks a place, naming no field


def _templates(examples: list[str], qualifiers: list[str]) -> list[Template]:
    out = []
    for example in examples:
        words = re.findall(r"[\w'.₹$€£%-]+", example)
        if not words:
            continue
        lowered = [w.lower() for w in words]
        if lowered[0] in _PLACING and len(words) > 1 and example[:1].islower():
            # "with the neighbour at no. 7": a phrase that places something, whole after its
            # preposition (not cut at the digit)
            out.append(Template((lowered[0],), " ".join(words[1:])))
            continue
        cut = next((i for i, w in enumerate(words) if i and (w[:1].isupper() or w[:1].isdigit()
                    or w[:1] in "₹$€£")), None)  # fmt: skip
        if cut is None:
            preps = [
                i
                for i, w in enumerate(lowered)
                if w in ("to", "in", "at", "of", "from", "near", "with", "is", "as")
            ]
            cut = preps[-1] + 1 if preps and preps[-1] + 1 < len(words) else 0
        before = tuple(w for w in lowered[:cut] if w not in qualifiers and w not in _DETERMINERS)
        whole = words[0] if cut == 1 and _NAMED_WHOLE.match(words[0]) else ""  # "iPhone 13"
        out.append(Template(before[-2:], " ".join(words[cut:]), whole))
    return out


_BY_ITS = re.compile(r"\b(?:qualified|keyed|identified)\s+by\s+(?:the|each|a|its)\s+(\w+)'s\b")


def _lead_of(example: str) -> str:
    """An example's words before its value (the first number, amount or capitalised word after
    the first): "can you raise it to" of "can you raise it to 5,000"."""
    cut = re.search(r"(?<=\s)[A-Z0-9₹$€£]", example)
    return example[: cut.start()] if cut else ""


def thing_noun(description: str) -> str:
    """What a field keeps one fact per: "one fact per child", "qualified by the child's first
    name" (child)."""
    lowered = description.lower()
    per = _PER.search(lowered) or _BY_ITS.search(lowered)
    return ((per.group(per.lastindex or 1) if per else "").split() or [""])[0]


_RATE = re.compile(r"(?:hour|day|night|week|month|year|annum|session|lesson|visit|mile|km|kg)s?")


def _qualifier_kind(f: dict[str, Any]) -> tuple[list[str], str | None]:
    description = f.get("description", "")
    qualifiers = [m.group("q").strip() for m in _QUALIFIERS.finditer(description)
                  if m.group("key") == f["key"]]  # fmt: skip
    per = _PER.search(description.lower())
    if per and not qualifiers and _RATE.fullmatch(per.group("what").strip()):
        per = None  # "the most the client will pay a freelancer per hour": a rate, not things
    if not (per or qualifiers):
        return [], None
    what = (per.group("what") if per else "").lower()
    # People and pets are named (capitalised examples, a "Name" placeholder, "per child");
    # other things by a word ("savings", "metformin", "kitchen tap").
    people = re.search(r"\b(child|children|kid|kids|son|daughter|student|pet|dog|cat|applicant|"
                       r"person|people|passenger|guest|patient|employee)\b", what)  # fmt: skip
    named = [q for q in qualifiers if q[:1].isupper() and not re.search(r"\d", q)]  # no codes
    kind = "name" if named or (people and not qualifiers) else "word"
    kept = [q for q in qualifiers if q.lower() not in ("name", "<name>")]
    return [q if kind == "name" else q.lower() for q in kept], kind


_PARTICLES = frozenset(["out", "off", "up", "down", "over", "through"])


def field_words(f: dict[str, Any], description: bool = True) -> dict[str, float]:
    """The words that name a field: its key's (2), its description's (1), its examples' lead-in
    words, its enum choices' and qualifiers' (1), everyday synonyms (0.7)."""
    key_words = {stem(w) for w in f["key"].split("_") if w not in GENERIC and len(w) > 1}
    words = {w: 0.5 if w in _PARTICLES else 2.0 for w in key_words}  # check_out: "out" says little
    text = f.get("description", "")
    if description:  # "the current job": when, not which field (unless the key says it)
        for w in content_words(text):
            if w not in ("current", "latest", "recent"):
                words.setdefault(w, DESCRIPTION_VERB if w in _VERBS else 1.0)
    qualifiers, _ = _qualifier_kind(f)
    for template in _templates([str(e) for e in f.get("examples") or []], qualifiers):
        for w in template.before:
            if w not in GENERIC and len(stem(w)) > 2:  # not "he" of "he's in Year 2"
                words.setdefault(stem(w), 1.0)
        if not template.before and template.value[:1].isupper():
            for w in content_words(template.value):  # an example value ("Prestige") names it
                words[w] = 2.0
                words[VALUE_WORD + w] = 0.0  # marked: a word of a value, never a lead-in
    for example in f.get("examples") or []:  # "can you raise it to 5,000": "raise" too
        for w in content_words(_lead_of(str(example))):
            if len(w) > 2 and w not in _VERBS:
                words.setdefault(w, 0.7)
    for choice in f.get("choices") or []:
        for w in content_words(str(choice)):
            words[w] = 2.0  # a choice's own word says which field more surely than any
    if _qualifier_kind(f)[1] == "word":  # "savings", "debit": words of the field; names are not
        for q in qualifiers:
            words.setdefault(stem(q), 0.8)
    haystack = f["key"].replace("_", " ") + " " + text.lower()
    for concept, synonyms in THESAURUS.items():
        if re.search(rf"\b{concept}", haystack):
            for w in synonyms.split():
                words.setdefault(stem(w), 0.7)
    return words


def names_field(f: dict[str, Any], text: str) -> bool:
    """Whether ``text`` uses a word of the field (not counting its description's)."""
    words = field_words(f, description=False)
    return any(w in words for w in content_words(text))


def _profile(f: dict[str, Any], vector: np.ndarray, example_vectors: np.ndarray) -> Profile:
    qualifiers, kind = _qualifier_kind(f)
    templates = _templates([str(e) for e in f.get("examples") or []], qualifiers)
    key_words = {stem(w) for w in f["key"].split("_") if w not in GENERIC and len(w) > 1}
    # What the field is, without its examples of qualifiers ("(child_allergy:Name)").
    haystack = (
        f["key"].replace("_", " ")
        + " "
        + re.sub(r"\([^)]*\)", "", f.get("description", "")).lower()
    )
    person_name = f["type"] == "string" and users_name(f["key"], haystack)
    # Examples written in lower case ("in the blue recycling box") overrule a description's
    # hint ("Where the driver may leave parcels"): the values are phrases, not names.
    phrases = bool(templates) and not any(t.value[:1].isupper() for t in templates)
    proper = f["type"] == "string" and (
        person_name or (bool(_PROPER_HINT.search(haystack)) and not phrases)
        or any(t.value[:1].isupper() for t in templates)
    )  # fmt: skip
    return Profile(f, f["key"], f["type"], field_words(f), key_words, qualifiers, kind, templates,
                   person_name, proper, vector, example_vectors)  # fmt: skip


_cache: dict[str, list[Profile]] = {}


def profiles(fields: list[dict[str, Any]]) -> list[Profile]:
    """The fields' profiles, with rarer words weighing more (a word shared by every field tells
    nothing about which one a sentence speaks of)."""
    digest = hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()
    if digest in _cache:
        return _cache[digest]
    examples = [[str(e) for e in f.get("examples") or []] for f in fields]
    flat = [e for group in examples for e in group]
    vectors = embed([_field_text(f) for f in fields] + flat)
    out, at = [], len(fields)
    for i, f in enumerate(fields):
        ex = vectors[at : at + len(examples[i])]
        at += len(examples[i])
        out.append(_profile(f, vectors[i], ex))
    spread: dict[str, int] = {}
    for p in out:
        for w in p.words:
            spread[w] = spread.get(w, 0) + 1
    for p in out:
        p.lead_words = {
            w for w, weight in p.words.items() if weight >= 0.7 and not w.startswith(VALUE_WORD)
        }
        p.words = {w: weight / spread[w] for w, weight in p.words.items()}
    if len(_cache) > 256:
        _cache.clear()
    _cache[digest] = out
    return out


def is_value_word(profile: Profile, word: str) -> bool:
    return VALUE_WORD + word in profile.words


_TIME_COUNT = re.compile(r"(?:^|_)(?:years?|months?|weeks?|days?|hours?)(?:_|$)")
_PER_PERIOD = re.compile(r"\b(?:a|an|per|each|every)\s+(?:year|month|week|day|hour)\b", re.I)


_NO_DATE = re.compile(r"\b(?:up|out)[\s-]+(?:to|of)[\s-]+date\b|\bto date\b", re.I)


def cue_score(profile: Profile, text: str) -> tuple[float, str | None]:
    """How strongly ``text`` names the field by its words: (score, the best word)."""
    best, best_word, total = 0.0, None, 0.0
    if (profile.type == "number" and _TIME_COUNT.search(profile.key)
            and not _PER_PERIOD.search(profile.about.replace("_", " "))):  # fmt: skip
        text = _PER_PERIOD.sub(" ", text)  # "make a year" is a rate, no count of years (unless
        # the field is itself one a week: "sessions_per_week")
    if profile.type == "date":  # "Is her vaccination up to date?" names no date (but a
        text = _NO_DATE.sub(" ", text)  # field of whether jabs are up to date, yes)
    for w in set(content_words(text, parts=True)):
        weight = profile.words.get(w, 0.0)
        total += weight
        if weight > best:
            best, best_word = weight, w
    for template in profile.templates:
        phrase = " ".join(template.before)
        if len(template.before) >= 2 and phrase in text.lower():
            total += 1.0
            best_word = best_word or phrase
    return total, best_word


def similarity(profile: Profile, vector: np.ndarray) -> float:
    """Cosine of a sentence to the field's description or its closest example."""
    best = float(vector @ profile.vector)
    if len(profile.example_vectors):
        best = max(best, float((profile.example_vectors @ vector).max()))
    return best

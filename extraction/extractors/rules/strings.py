"""Text values: the phrase in a turn that is a string field's value.

- a person's name after "this is", "I'm", "my name is", "call me", or as the whole answer to
  "who am I speaking with?";
- the answer to a question about the field: the reply's first phrase without its lead-in
  ("Mostly Kothrud." → Kothrud, "At Zenlytics, for four years now." → Zenlytics);
- after the words an example puts before its value ("allergic to penicillin" teaches
  "allergic to …"), or after a word naming the field ("I work at Booking.com");
- the new side of a change ("Porto instead of Lisbon").
"""

from __future__ import annotations

import functools
import re

from extraction.extractors.rules import travel
from extraction.extractors.rules.addresses import street_cues
from extraction.extractors.rules.code_fields import CODE, code_after_word
from extraction.extractors.rules.fields import GENERIC, Profile, is_value_word, stem
from extraction.extractors.rules.providers import with_company

_LEAD = re.compile(
    r"^\W*(?:(?:yes|yeah|yep|no|nope|well|um|uh|hmm|so|oh|ah|and|then|plus|also|mostly|mainly|"
    r"mostly in|primarily|probably|maybe|perhaps|just|only|i think|i guess|i'd say|"
    r"i would say|it's|it is|its|that's|that is|that would be|it'll be|it will be|"
    r"somewhere around|somewhere in|around|about|roughly|preferably|ideally|currently|"
    r"right now|now|still|at the moment|at|in|with|mine is|mine's|ours is|it'd be|it would be|"
    r"for|from|near|by|the|a|an|my|our|i'm at|i am at|i'm with|i work at|i work for|i'm in|"
    r"we're in|we are in|we're|i'm|i am|we are|i have|we have|i've got|we've got|it was|"
    r"that was|it's called|called|definitely|always|usually|please|ok|okay|sure|hi|hello|hey|"
    r"right|correct|exactly|(?:i|we) (?:want|prefer|chose|picked)(?=\s+(?-i:[A-Z]))|(?:i|we)(?:'d|"
    r" would) (?:like|prefer)|(?:i'm|we're|i am|we are) thinking(?: of| about)?|let's (?:do|"
    r"go with|say)|(?:i'll|we'll) (?:take|go with|have))\b[,\s]*)+",
    re.IGNORECASE,
)
_TAIL = re.compile(
    r"\s*(?:\b(?:works|work|is fine|is good|sounds good|would be great|is perfect|please)\b\W*$|,(?!\d{3}\b)|;|\s-\s|—|\.\s|\bbecause\b|\bsince\b|\bas\b|\bbut\b|\bfor (?:about|around|over|"
    r"\d|a |the |two|three|four|five|six)|\bwhich\b|\bwho\b|\bif\b|\bso\b|\bthough\b|\bnow\b"
    r"|\bplease\b|\bthanks?\b|\bthank you\b|\bit started\b|\bhere\b(?!\s+\w))",
    re.IGNORECASE,
)
NAME = r"[A-Z][\w'.-]*(?:\s+(?:[A-Z][\w'.-]*|de|da|van|von|der|bin|al|el)){0,3}"
_NAME_CUES = [
    rf"(?:^|[.!?,]\s*|\b(?i:and|so)\s+)(?i:my name is|my name's|call me|this is|it's|i'm|i am|myself)\s+(?P<v>{NAME})",
    rf"^\W*(?i:hi|hello|hey)?[\w, ]{{0,20}}?,?\s*(?P<v>{NAME})\s+(?i:here|speaking|this side)\b",
    rf"^\W*(?i:yes|yeah|yep|hi|hello)?[,.!\s]*(?P<v>{NAME})[.!]?$",
]
_NOT_NAMES = set(["I", "Hi", "Hello", "Hey", "Yes", "Yeah", "No", "Thanks", "Thank", "Sure", "Okay", "Ok", "Good", "Great", "Fine", "Well", "Sorry", "Please", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December", "Mr", "Mrs", "Ms", "Dr", "Madam", "Sir", "The", "This", "That", "My", "Our", "We", "It", "Just", "Only", "Also", "And", "But", "So", "Oh", "Ah", "Actually", "Maybe", "Today", "Tomorrow", "Nice", "Lovely", "I'm", "I've", "I'd", "I'll", "Im", "Honestly", "Wow", "Cheers", "Ha", "Haha", "Hmm", "Um", "Eh", "Yay", "Ooh", "Ok", "Okay", "Anyway", "Both", "Either", "Neither", "None", "Nothing", "Works", "Sounds", "Noted", "Got", "Congrats", "Welcome"])  # fmt: skip
_PROPER = re.compile(
    r"(?<![\w.])(?:[A-Z][\w&'.-]*|[a-z]+[A-Z][\w]*)(?:\s+(?:(?:[A-Z][\w&'.-]*|\d[\w.]*|of|de|la|and|or|&)(?=\s|[,.!?;]|$)))*"
)
_CONNECTOR_TAIL = re.compile(r"(?:\s+(?:of|de|la|and|or|&))+$")


def is_ordinary(word: str) -> bool:
    """A capitalised word that is no name ("Thanks", "Monday", "Honestly")."""
    return word.strip(".,!?;:") in _NOT_NAMES or word.lower() in _COMMON


# "Yeah Maria, …", "Thanks, Mel! …": the name of the one spoken to, not part of an answer.
_VOCATIVE = re.compile(
    r"^\W*(?:yeah|yes|yep|thanks|thank you|hey|hi|hello|oh|well|ok|okay|sure|wow|nice one|aw+)"
    r"[,!.]?\s+[A-Z][a-z]+\s*[,!]\s+",
    re.I,
)
# Contractions are never names ("We're considering …" names no place).
_CONTRACTION = re.compile(
    r"(?:i|we|you|they|he|she|it|that|there|here|what|who|let|don|can|won|didn|isn|aren|wasn|"
    r"doesn|haven|hasn|couldn|wouldn|shouldn)['\u2019](?:re|m|s|ve|ll|d|t)",
    re.I,
)


# An address keeps its commas ("Unit 6, Grange Business Park, Lucan").
_ADDRESS_TAIL = re.compile(_TAIL.pattern.replace(r"$|,(?!\d{3}\b)|;|", "$|;|", 1), re.I)


# A part of a place after a comma: "Building B, 2nd floor, desk 2.07"
_PLACE_PART = re.compile(
    r",\s*(?:\d+(?:st|nd|rd|th)\s+floor|(?:floor|desk|room|level|suite|unit|wing|block|bay|building|"
    r"office|gate|platform)\s+[\w.-]+)",
    re.I,
)


def clean(phrase: str, address: bool = False) -> str:
    phrase = _VOCATIVE.sub("", phrase.strip())
    phrase = _LEAD.sub("", phrase)
    address = address or bool(_PLACE_PART.search(phrase))
    cut = (_ADDRESS_TAIL if address else _TAIL).search(phrase)
    if cut and cut.start() > 0:
        phrase = phrase[: cut.start()]
    return phrase.strip(" .!?;,:'\"()")


def proper_nouns(text: str, skip: set[str] | None = None) -> list[tuple[str, int]]:
    """Capitalised spans ("Booking.com", "Star Health", "Dr Rao"), with their offsets; the
    first word of a sentence counts only when it is not an ordinary word."""
    out = []
    for match in _PROPER.finditer(text):
        value = match.group(0).strip(" .,")
        at_start = match.start() == 0 or re.search(r"[.!?]\s*$", text[: match.start()])
        words = value.split()
        while words and (
            _CONTRACTION.fullmatch(words[0])
            or (words[0] in _NOT_NAMES and not (words[0] in _TITLES and len(words) > 1))
            or (
                words[0].lower() in GENERIC | _COMMON
                and (at_start or words[0] in _NOT_NAMES or len(words) > 1)
            )
        ):
            words = words[1:]
        if not words or (skip and " ".join(words).lower() in skip):
            continue
        value = _CONNECTOR_TAIL.sub("", " ".join(words))
        if len(value) >= 2:
            out.append((value, match.start()))
    return out


_TITLES = {"Dr", "Prof"}  # part of the name they stand before ("Dr Schulz"); Mr and Ms are not
_COMMON = set(["please", "thanks", "sorry", "good", "great", "fine", "well", "okay", "also", "just", "only", "actually", "yes", "no", "hi", "hello", "hey", "sure", "maybe", "perhaps", "probably", "yeah", "yep", "oh", "ah", "lovely", "nice", "cool", "mostly", "mainly", "shall", "should", "would", "could", "can", "will", "may", "might", "do", "does", "did", "is", "are", "was", "were", "have", "has", "what", "which", "when", "where", "who", "how", "why", "let", "lets", "let's", "any", "some", "every", "all", "if", "then", "there", "here"])  # fmt: skip


_FUNCTION = {"in", "on", "at", "with", "to", "for", "from", "into", "by", "of", "the", "a", "an",
             "is", "are", "it", "its", "my", "our"}  # fmt: skip


def with_lead(profile: Profile, phrase: str, text: str) -> str | None:
    """``phrase`` as ``text`` says it with the preposition the field's examples start with
    ("with the security guard at the gate" for examples like "with the neighbour at no. 7")."""
    leads = {e.split()[0].lower() for e in map(str, profile.field.get("examples") or [])
             if e.split() and e.split()[0].lower() in _FUNCTION - {"the", "a", "an"}}  # fmt: skip
    if not leads:
        return None
    said = re.search(rf"\b(?:{'|'.join(sorted(leads))})\s+(?:(?:the|a|an|my|our)\s+)?"
                     rf"{re.escape(phrase)}", text, re.I)  # fmt: skip
    return said.group(0) if said else None


_CUT_AT_VERB = re.compile(  # in lower case: "Let It Be", "As Good as It Gets" are titles
    r"\b(?:is|are|was|were|am|be|been|being|felt|feel|feels|seems?|seemed|looks?|looked|"
    r"sounds?|sounded|gets?|got|became|becomes?)\W*$"
)


def answer_phrase(profile: Profile, reply: str) -> str | None:
    """The reply read as the answer to a question about a text field."""
    first = re.split(r"(?<=[.!?])\s+", reply.strip())[0]
    named = re.match(r"\W*([\w'-]+)\s+(?:is|was|are)\s+(?=\w)", first)
    if named and (word := stem(named.group(1).lower())) in profile.words \
            and not is_value_word(profile, word):  # fmt: skip
        first = first[named.end() :]  # "Home is Leeds now": the field's own word, then its value
    if profile.proper and not _PLACE_PART.search(first):  # "Building B, 3rd floor, desk 3.14"
        found = proper_nouns(first)
        if found:
            return found[0][0]
        lower = reply == reply.lower() and not re.match(
            r"\W*(?:hmm+\W*)?(?:let|i|we|my|it|that)\b", reply
        )
        if len(re.findall(r"\w+", first)) > 5 and not lower:
            return None  # a sentence, not a place (unless the user writes all in lower case)
    phrase = clean(first, address="address" in profile.words)
    words = re.findall(r"\w+", phrase)
    if not words or len(words) > 10 or all(w.lower() in GENERIC for w in words):
        return None
    if _CUT_AT_VERB.search(phrase):
        return None  # "That photo is (so stunning)", "I felt (so proud)": a clause cut short
    if not profile.proper:
        phrase = with_lead(profile, phrase, first) or phrase  # "with the security guard …"
    return phrase[:1].upper() + phrase[1:] if profile.proper else phrase


@functools.lru_cache(maxsize=4096)
def _tokens(clause: str) -> tuple[tuple[str, int], ...]:
    return tuple((stem(m.group(0)), m.end()) for m in re.finditer(r"[\w'-]+", clause))


def _lead_ins(before: tuple[str, ...], clause: str) -> list[int]:
    """Where values start in the clause: after each place it has the example's lead-in words
    (compared by stem)."""
    tokens = _tokens(clause)
    want = [stem(w.strip(".,:;#")) for w in before]  # "ext. 3390": the lead-in is "ext"
    return [tokens[i + len(want) - 1][1] for i in range(len(tokens) - len(want) + 1)
            if [t for t, _ in tokens[i : i + len(want)]] == want]  # fmt: skip


def _in_a_name(clause: str, end: int) -> bool:
    """Whether the word ending at ``end`` is part of a title or a name: capitalised after the
    clause's first word (not in capitals: "DJ"), or just after a quotation mark."""
    word = re.search(r"[\w'-]+$", clause[:end])
    if not word:
        return False
    before = clause[: word.start()]
    text = word.group(0)
    if re.match(r"\s+(?:is|are|was|now)\b", clause[end:], re.I):
        return False  # "Update: School is now Ridgeway", "New Home is in Perth": a subject
    return bool(re.search(r"[\"\u201c\u2018]\s*$", before)) or (
        text[:1].isupper() and text[1:].islower() and bool(re.search(r"\w", before))
    )  # not an acronym: "booked DJ Kashif"


def _field_word_before(
    profile: Profile, tokens: tuple[tuple[str, int], ...], at: int, lead: tuple[str, ...]
) -> bool:
    """Whether a word of the field comes in the two words before a lead-in ending at ``at``
    ("leave it in the letterbox")."""
    first = next(i for i, (_, end) in enumerate(tokens) if end == at) + 1 - len(lead)
    return bool({t for t, _ in tokens[max(0, first - 2) : first]} & set(profile.words))


def after_cues(
    profile: Profile, clause: str, asked: bool = True, after: str = ""
) -> list[tuple[str, str, int]]:
    """Every value after an example's lead-in or a word of the field (below), or in "it's …" just
    ``after`` the clause (``named_then``)."""
    return _after_cues(profile, clause, asked) or named_then(profile, clause, after)


def _after_cues(profile: Profile, clause: str, asked: bool = True) -> list[tuple[str, str, int]]:
    """Every value after an example's lead-in, or after a word of the field: (value, cue, where).
    A lead-in of function words only ("in the blue box") is a cue only when the field was
    ``asked`` about or one of its words comes just before ("leave it in the letterbox"):
    otherwise "they show in transit" would be a place; for a field of phrases it is kept with
    the value, as the example has it."""
    out: list[tuple[str, str, int]] = []
    tokens = _tokens(clause)
    for template in profile.templates:
        weak = not set(template.before) - _FUNCTION  # "in the blue box": "in" leads it
        if not template.before:
            continue
        for at in _lead_ins(template.before, clause):
            if weak and not asked and not _field_word_before(profile, tokens, at, template.before):
                continue  # "two parcels, both show in transit"
            rest = re.sub(r"^\s*(?:to|at|in|on|for|from|with|of|as|by|is|are)\b", "", clause[at:])
            rest = re.sub(
                r"^[\s.:#]*(?:(?:is|was|now|still|then)\b\s*)*", "", rest
            )  # "ext is now 4486"
            if CODE.fullmatch(template.value):  # "4821", "MC-204417"
                code = CODE.match(rest.strip())
                value = code.group(0) if code else None
            else:
                value = _value_from(profile, rest, template.value[:1].isupper())
                if value and weak and not profile.proper:  # the example's phrase, whole
                    value = with_lead(profile, value, clause) or value
            if value and template.whole:  # "iphone 13": "iPhone 13"; "Dr Schulz"
                value = f"{template.whole} {value}"
            if value:
                out.append((value, "example: " + " ".join(template.before), at))
    key = r"\s+".join(re.escape(w) for w in profile.key.split("_"))
    mine = re.search(
        rf"(?:\b(?:my|our)\s+|^\W*(?:(?:yes|yeah|yep|ok|okay|and|also|so|the)\W+)*)"  # not "his …"
        rf"{key}(?:'s name)?\s+(?:is|are|was|=|:)\s+(?P<v>[^.,;!?]+)",
        clause,
        re.I,
    )
    if mine and not out:
        value = _value_from(profile, mine.group("v"), profile.proper)
        if value:
            out.append((value, f"my {profile.key.replace('_', ' ')} is", mine.start("v")))
    if not out and (coded := code_after_word(profile, clause)):
        out.append(coded)  # "staff number E44810" for a field of staff IDs
    held = with_company(profile, clause) if not out else None
    if held and (value := _value_from(profile, held[0], True, loose=False)):
        out.append((value, "with a company", held[1]))  # "I'm with British Gas but …"
    if not out:
        out += kinds_named(profile, clause)
    if out or not profile.proper:
        return out
    if travel.TRAVEL_TOLD.search(clause) and not travel.about_travel(profile):
        return out  # "I went to Woodhaven, a small town in the Midwest": where they went
    # "still in Denver for now", for a field of where they live
    here = travel.STILL_IN.search(clause) if travel.lives_there(profile) else None
    if here and (value := _value_from(profile, clause[here.end() :], True, loose=False)):
        return [(value, "still in", here.end())]
    present = {t for t, _ in _tokens(clause)}
    for word in sorted(profile.words, key=profile.words.get, reverse=True):  # type: ignore[arg-type]
        if word not in present or word not in profile.lead_words or is_value_word(profile, word):
            continue
        for at in _lead_ins((word,), clause):
            if _in_a_name(clause, at) or _US.match(clause, at) or _A_TIME.search(clause[:at]):
                continue  # "We love "Home Alone"", "a job at Home Depot": no home of theirs;
                # "Applied last week at VFS": a time, not "a week in Kerala";
                # "Switch us to Growth": a plan the agent is asked for, no company they moved to
            rest = re.sub(r"^\s*(?:at|for|with|in|from|is|to|as|by|on)\b", "", clause[at:])
            value = _value_from(profile, rest, True, loose=False)
            later = word in ("mov", "relocat") and travel.LATER.search(rest)
            if value and not (later and not travel.about_a_move(profile)):
                return [(value, f"word: {word}", at)]  # not "moving to York in June" (yet)
    return out


_US, _A_TIME = re.compile(r"\s*(?:us|me|them)\b", re.I), re.compile(r"\b(?:last|next|this|that|every)\s+\w+\W*$", re.I)  # fmt: skip
# "New job, so new insurance. It's Blue Cross now.": the next clause says what the named thing is.
_IT_IS = re.compile(r"\s*(?:changed|too|recently|last \w+|this \w+)?\s*[,.;:-]+\s*(?:and\s+|so\s+)?"
                    r"(?:it's|it is|its|that's|now it's|they're)\s+(?:now\s+)?(?:with\s+)?(?:an?\s+)?", re.I)  # fmt: skip


def named_then(profile: Profile, clause: str, after: str) -> list[tuple[str, str, int]]:
    """A named value in "it's …" just after a word of the field with no value of its own ("my
    insurance changed, it's Blue Cross now"; "New laptop, it's a MacBook Air now."): a word of
    its key, or of its kind when its values are names ("Changed jobs, it's Ocado now")."""
    text = clause + after
    for word in re.finditer(r"[a-z]+", clause.lower()):
        said = _IT_IS.match(text, word.end())
        named = stem(word.group(0)) in (profile.lead_words if profile.proper else profile.key_words)
        value = (_value_from(profile, text[said.end() :], True, loose=False)
                 if said and named and text[said.end() :][:1].isupper() else None)  # fmt: skip
        if value:
            return [(value, f"word: {stem(word.group(0))}, then it's", word.start())]
    return []


_NOT_KINDS = {"same", "other", "previous", "current", "old", "first", "second", "whole", "usual"}
# Words that say how big, how much or how good a thing is, not which kind it is: "the bigger
# goal", "such a useful language", "the ideal data analyst role" (its kind: "data analyst").
_DEGREE = frozenset(["big", "bigger", "biggest", "small", "smaller", "smallest", "large", "larger", "largest", "huge", "little", "tiny", "main", "real", "true", "important", "useful", "better", "best", "greater", "greatest", "major", "minor", "ultimate", "overall", "final", "ideal", "perfect", "long", "longer", "short", "shorter", "amazing", "awesome", "wonderful", "fantastic", "beautiful", "special", "favourite", "favorite", "exciting", "interesting", "tough", "hard", "difficult", "easy", "easier", "simple", "fun", "lovely", "nice", "cool", "bad", "worse", "worst", "whole", "entire", "such", "very", "really", "quite", "more", "most", "less", "least", "own", "new", "different", "various", "similar", "shared", "common"])  # fmt: skip


def kinds_named(profile: Profile, clause: str) -> list[tuple[str, str, int]]:
    """The value named as a kind of the field's head noun: "the data analyst role" for a field
    ``role_applied``, "the Starter plan" for ``plan``, "the Lake Como area" for ``hotel_area``
    (the key's nouns; "applied", "preferred" are not). Values of proper fields are capitalised."""
    out: list[tuple[str, str, int]] = []
    if profile.qualified:  # "the savings account" names which account, not its value
        return out
    for head in (w for w in profile.key.split("_") if len(w) > 2 and not w.endswith(("ed", "ing"))):
        for match in re.finditer(
            rf"\b(?:the|a|an)\s+((?:[\w-]+\s+){{1,4}}?){head}s?\b", clause, re.I
        ):
            words = match.group(1).split()
            while words and words[0].lower() in _DEGREE:  # "the ideal data analyst role"
                words.pop(0)
            if not words or any(w.lower() in GENERIC or w.lower() in _NOT_KINDS or w.lower() in _COMMON
                   or w.lower() == head or w.isdigit() for w in words):  # fmt: skip
                continue
            if profile.proper and not all(w[:1].isupper() for w in words):
                continue
            out.append((" ".join(words), f"a kind of '{head}'", match.start(1)))
    return out


def after_cue(profile: Profile, clause: str) -> tuple[str, str] | None:
    found = street_cues(profile, clause) or after_cues(profile, clause)
    return (found[0][0], found[0][1]) if found else None


def _value_from(profile: Profile, rest: str, proper: bool, loose: bool = True) -> str | None:
    if proper or profile.proper:
        found = proper_nouns(rest)
        if found and found[0][1] <= 12:
            return found[0][0]
        plain = re.match(r"\s*([a-z][\w'-]*(?:\s+[a-z][\w'-]*)?)\s*(?:[,.;!?]|$)", rest)
        words = plain.group(1).split() if plain and loose else []
        if (
            profile.proper
            and words
            and not any(w in GENERIC or w in _COMMON or w.endswith("ly") for w in words)
        ):
            return " ".join(w.capitalize() for w in words)  # "in bangalore" → Bangalore
        if profile.proper:
            return None
    value = clean(rest)
    words = re.findall(r"\w+", value)
    if not words or len(words) > 6:
        return None
    return value


def replaced(clause: str, old_values: list[str]) -> tuple[str, str] | None:
    """("Porto", "Lisbon") when the clause puts a new value in place of an old one."""
    for old in old_values:
        if len(old) < 3 or old.lower() not in clause.lower():
            continue
        o = re.escape(old)
        for pattern in (rf"(?P<new>{_PROPER.pattern}|[\w ]{{2,30}}?)\s+instead of\s+{o}",
                        rf"(?:from|not)\s+{o}\s*(?:,\s*)?(?:to|but|it's|now)\s+(?P<new>{_PROPER.pattern}|[\w ]{{2,30}})",
                        rf"{o}\s+(?:is out|is off|anymore|any more|no longer)[,;.\s]+(?:\w+\s+){{0,3}}?(?P<new>{_PROPER.pattern})"):  # fmt: skip
            match = re.search(pattern, clause, re.I)
            if match:
                new = clean(match.group("new"))
                if new and new.lower() != old.lower():
                    return new, old
    return None


# What a relative's occasion is called: "my mum's 60th", "my brother's wedding".
_EVENT = re.compile(
    r"\d+(?:st|nd|rd|th)?|birthday|wedding|anniversary|retirement|graduation|funeral|"
    r"christening|engagement|party|leaving|farewell|surprise|hen|stag|baby|shower|memorial"
)


def their_occasion(profile: Profile, reply: str, end: int) -> bool:
    """ "What's the occasion?" — "My mum's 60th": a relative's occasion that is the answer, not
    their value of the field ("my husband's job is …") nor what they are ("my wife's a nurse")."""
    after = re.match(r"\s+([a-z0-9]+)", reply[end:], re.I) if reply[:end].endswith("'s") else None
    word = after.group(1).lower() if after else ""
    return bool(_EVENT.fullmatch(word)) and stem(word) not in profile.words

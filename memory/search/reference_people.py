"""The people of a conversation, for reference resolution (``references``): who "she", "he" or
"they" can be. A person is introduced the way people are: after a possessive or article ("my
sister Kavya", "our recruiter Kenji"), after a title ("Ms Takahashi"), bare before a verb of
saying or coming ("Tom phoned"), or after a role and "is" ("the technician today is Mike");
in lower case, as speech-to-text writes names, after a possessive and a relation ("my partner
jess") or a title ("mrs doyle"). Pure functions over turns already read; no model."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

WORD = re.compile(r"[A-Za-z][\w'-]*|\d[\d,.:]*")


class _Turn(Protocol):
    @property
    def text(self) -> str: ...


_FEMALE = frozenset(["she", "her", "hers", "sister", "mother", "mom", "mum", "wife", "daughter", "aunt", "grandmother", "niece", "girlfriend", "lady", "woman", "ms", "mrs", "miss", "gran", "nan"])  # fmt: skip
_MALE = frozenset(["he", "him", "his", "brother", "father", "dad", "husband", "son", "uncle", "grandfather", "nephew", "boyfriend", "man", "mr"])  # fmt: skip
_TITLES = frozenset(["Mr", "Mrs", "Ms", "Miss", "Dr", "Prof"])
_NOT_NAMES = frozenset(["I", "I'm", "I've", "I'll", "I'd", "Dr", "Mr", "Mrs", "Ms", "Prof", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December", "The", "A", "An", "And", "But", "Or", "So", "Also", "Please", "Okay", "OK", "Yes", "No", "Hmm", "Can", "Could", "Would", "What", "When", "Where", "Who", "Why", "How", "Is", "Are", "Do", "Does", "Did", "My", "Our", "Your", "His", "Her", "Their", "There", "This", "That", "Then", "Thanks", "Thank", "Got", "Noted", "Done", "Sure", "Great", "Oh", "Ugh", "By", "Another", "Or"])  # fmt: skip
_ARTICLES = frozenset(["the", "my", "our", "your", "his", "her", "their"])
# Speech-to-text writes names in lower case ("my partner jess is flying on the 16th", "mrs doyle
# downstairs"): a lower-case word is a name right after one of these, unless it is a common word.
_RELATIONS = frozenset(["sister", "brother", "mother", "mum", "mom", "father", "dad", "wife", "husband", "partner", "son", "daughter", "aunt", "uncle", "niece", "nephew", "cousin", "grandmother", "grandfather", "gran", "nan", "grandad", "grandson", "granddaughter", "girlfriend", "boyfriend", "fiance", "fiancee", "friend", "neighbour", "neighbor", "flatmate", "housemate", "stepdaughter", "stepson"])  # fmt: skip
_SPOKEN_TITLES = frozenset(["mr", "mrs", "ms", "miss", "dr"])
_POSSESSIVES = _ARTICLES - {"the"}
_COMMON = frozenset(["and", "who", "is", "was", "has", "had", "got", "gets", "says", "said", "thinks", "reckons", "wants", "needs", "lives", "works", "goes", "went", "came", "comes", "does", "did", "can", "can't", "could", "will", "won't", "would", "just", "really", "also", "too", "here", "there", "then", "now", "still", "already", "always", "never", "usually", "again", "today", "tonight", "tomorrow", "yesterday", "called", "named", "uh", "um", "er", "erm", "like", "yeah", "well", "actually", "though", "both", "downstairs", "upstairs", "next", "door", "back", "home", "old", "new", "little", "big", "eldest", "youngest", "oldest", "younger", "older", "best", "good", "dear", "poor", "own", "for", "from", "with", "at", "in", "on", "to", "of", "about", "over", "as", "but", "or", "so", "she", "he", "her", "him", "his", "they", "them", "their", "it", "its", "the", "a", "an", "my", "our", "your", "this", "that", "when", "where", "what", "not", "isn't", "wasn't", "doesn't", "didn't", "loves", "likes", "hates", "knows", "keeps", "takes", "plays", "uses", "moved", "paid", "pays", "bought", "booked", "lost", "left", "asked", "told", "rang", "phoned", "texted", "sent", "bless", "lol", "haha", "bit", "lot", "one", "two", "gonna", "wanna", "reckon", "might", "may", "should", "must", "shall", "sort", "kind", "isn", "wasn", "doesn", "didn"])  # fmt: skip
_INTRODUCING = frozenset(["is", "was", "called", "named", "it's"])  # "the technician is Mike"
# "Tom phoned earlier", "Priya from accounts said": a bare name is a person before these.
_PERSON_VERBS = frozenset(["said", "says", "phoned", "called", "rang", "emailed", "texted", "messaged", "asked", "wants", "wanted", "mentioned", "told", "thinks", "thought", "needs", "needed", "from", "reckons", "suggested", "recommended", "promised", "explained", "left", "dropped", "came", "popped", "will", "can't", "cannot", "won't"])  # fmt: skip


def people(turns: Sequence[_Turn], participants: set[str]) -> list[tuple[int, str, str | None]]:
    """(turn index, name, "she" / "he" / None) for every person introduced the way people are
    ("my sister Kavya", "our recruiter Kenji", "the mechanic Suresh", "our SRE lead Priyanka"):
    a capitalised word after a possessive or article and up to two other words; after a title
    ("Ms Takahashi"); bare before a verb of saying or coming ("Tom phoned"); or after a role
    and "is" / "called" ("the technician today is Mike"). The gender comes from a kinship word
    or title before it, else from the first he / she after it in the sentence."""
    out = []
    for index, turn in enumerate(turns):
        for sentence in re.split(r"(?<=[.!?])\s+", turn.text):
            tokens = WORD.findall(sentence)
            for position, token in enumerate(tokens):
                following = tokens[position + 1].lower() if position + 1 < len(tokens) else ""
                bare = ((following in _PERSON_VERBS or following.startswith(("he'", "she'")))
                        and not (position and tokens[position - 1][0].isupper()))  # fmt: skip
                spoken = _spoken_name(tokens, position)
                if spoken:  # "my partner jess": a lower-case name after a relation or title
                    token = spoken
                written = not ((position == 0 and not bare) or not token[0].isupper()
                               or token.isupper() or token in _NOT_NAMES)  # fmt: skip
                if not (spoken or written) or token.lower() in participants:
                    continue
                before = [w.lower() for w in tokens[max(0, position - 3) : position]]
                # "The technician today is Mike", "our new PA is called Dana"
                introduced = (position > 1 and tokens[position - 1].lower() in _INTRODUCING
                              and any(w.lower() in _ARTICLES for w in tokens[max(0, position - 5) : position - 1]))  # fmt: skip
                title = (
                    spoken
                    or bare
                    or introduced
                    or (position > 0 and tokens[position - 1] in _TITLES)
                )
                if not title and not _ARTICLES & set(before):
                    continue
                if not title and any(w[0].isupper() and not w.isupper() for w in tokens[max(0, position - 2) : position] if w.lower() not in _ARTICLES):  # fmt: skip
                    continue  # part of a longer proper noun ("the Hotel Alma"; not "our SRE lead")
                # A kinship word or title says the gender ("his neighbour, Brenda": not "his").
                said = set(before) - {"his", "her", "hers", "he", "him", "she"}
                gender = "she" if said & _FEMALE else "he" if said & _MALE else None
                if gender is None:
                    after = next((w.lower() for w in tokens[position + 1 :] if w.lower() in {"she", "he", "her", "him", "his"}), None)  # fmt: skip
                    gender = None if after is None else "she" if after in _FEMALE else "he"
                out.append((index, token, gender))
    return out


def _spoken_name(tokens: list[str], position: int) -> str | None:
    """The name a lower-case word gives a person ("Jess" for "my partner jess's"), when it
    comes after a title ("mrs doyle") or a possessive and a relation, and is not a common word
    or a form of a verb; else None."""
    token = tokens[position]
    if position == 0 or not token.islower():
        return None
    previous = tokens[position - 1].lower()
    if previous not in _SPOKEN_TITLES and not (
        previous in _RELATIONS and position > 1 and tokens[position - 2].lower() in _POSSESSIVES
    ):
        return None
    word = token[:-2] if token.endswith("'s") else token
    named = (word.isalpha() and len(word) >= 3 and word not in _COMMON
             and not word.endswith(("ing", "ed", "ly")))  # fmt: skip
    return word.capitalize() if named else None


def named_before(query: str, end: int, participants: set[str], turns: Sequence[_Turn] = ()) -> bool:
    """Whether the query names a person before ``end``: one of the two sides, or a capitalised
    word past a sentence's first that ``turns`` (the conversation) does not use for something
    other than a person ("ring Elm Tree — what did he want?": Elm Tree is a surgery). The
    conversation is read only when the query has such a word."""
    said = set()
    for sentence in re.split(r"(?<=[.!?])\s+", query[:end]):
        # A sentence's first word is capitalised anyway; "Don't" is no name, "Melanie's" is.
        for i, w in enumerate(re.sub(r"'s$", "", w) for w in WORD.findall(sentence)):
            if _participant(w, participants):
                return True
            if (
                i > 0
                and w[0].isupper()
                and not w.isupper()
                and "'" not in w
                and w not in _NOT_NAMES
                and w.removesuffix("s") not in _NOT_NAMES  # "Wednesdays"
            ):
                said.add(w.lower())
    if not said or not turns:
        return bool(said)
    return bool(said - _things(turns, participants))


def _participant(word: str, participants: set[str]) -> bool:
    """One of the two sides, by name or its short form ("Mel" for Melanie)."""
    lowered = word.lower()
    return lowered in participants or (
        len(lowered) >= 3 and any(p.startswith(lowered) for p in participants)
    )


def _things(turns: Sequence[_Turn], participants: set[str]) -> set[str]:
    """The capitalised words the conversation uses past a sentence's start that name no person
    in it (places, shops, products), lower-case."""
    said = {w.lower() for turn in turns for sentence in re.split(r"(?<=[.!?])\s+", turn.text)
            for w in WORD.findall(sentence)[1:] if w[0].isupper() and not w.isupper()}  # fmt: skip
    persons = {name.lower() for _, name, _ in people(turns, participants)}
    return {w for w in said - persons if not _participant(w, participants)}


def named_in(query: str, start: int) -> set[str]:
    """The capitalised words of ``query`` from ``start`` on ("will he talk Jack through it?":
    Jack), which a pronoun before them does not mean."""
    return {w for w in WORD.findall(query[start:]) if w[0].isupper() and w not in _NOT_NAMES}


def gender_of(pronoun: str) -> str:
    return "she" if pronoun.lower() in {"she", "her", "hers"} else "he"

"""Reference resolution (DESIGN §7): what a user's turn points back at in the conversation.

"Do that again but for the other account", "no, the previous one", "same as last time", "what
did she say?" name nothing a search could match; the turn they point at is in the session (or
the user's last session, or a fact). ``references_resolve`` reads the cue and picks that turn:

- *the other X*: of the turns naming X, the one least like the latest (which is "this" one),
  plus the request "that" repeats;
- *the previous / earlier / first one*: the option offered before the latest offer (or the
  first of the series);
- *that X*: the latest turn naming X;
- *again / once more / repeat*: the user's latest request;
- *he / she / him / her*: the person last named with that pronoun (or a word that says it:
  sister, husband, …) and the turn naming them;
- *same as last time / before*: the user's last request in their previous session;
- *my usual X / as always*: the current fact whose key names X.

Pure functions over turns already read (newest last); no model, no SQL. Each referent turn
comes with its neighbour (an answer with its question, a request with its answer), so the
agent sees the exchange.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

WORD = re.compile(r"[A-Za-z][\w'-]*|\d[\d,.:]*")
_STOP = frozenset(["a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "for", "with", "about", "from", "by", "into", "over", "is", "are", "was", "were", "be", "been", "am", "do", "does", "did", "done", "doing", "what", "when", "where", "who", "whom", "which", "why", "how", "have", "has", "had", "i", "you", "he", "she", "it", "we", "they", "me", "him", "her", "us", "them", "my", "your", "his", "its", "our", "their", "this", "that", "these", "those", "there", "here", "can", "could", "would", "should", "will", "shall", "may", "might", "must", "not", "no", "yes", "any", "some", "please", "just", "also", "so", "then", "than", "too", "very", "really", "okay", "ok", "hmm", "um", "well", "now", "again", "same", "other", "one", "ones", "previous", "earlier", "first", "last", "before", "after", "like", "as", "time", "thing", "things", "once", "more", "let", "let's", "lets", "go", "going", "want", "wanted", "tell", "told", "say", "said", "remind", "me", "mentioned", "actually", "prefer", "anything", "something", "situation", "around", "available", "needs", "need"])  # fmt: skip
_FEMALE = frozenset(["she", "her", "hers", "sister", "mother", "mom", "mum", "wife", "daughter", "aunt", "grandmother", "niece", "girlfriend", "lady", "woman", "ms", "mrs"])  # fmt: skip
_MALE = frozenset(["he", "him", "his", "brother", "father", "dad", "husband", "son", "uncle", "grandfather", "nephew", "boyfriend", "man", "mr"])  # fmt: skip
_NOT_NAMES = frozenset(["I", "I'm", "I've", "I'll", "Dr", "Mr", "Mrs", "Ms", "Prof", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December", "The", "A", "An", "And", "But", "Or", "So", "Also", "Please", "Okay", "OK", "Yes", "No", "Hmm", "Can", "Could", "Would", "What", "When", "Where", "Who", "Why", "How", "Is", "Are", "Do", "Does", "Did", "My", "Our", "Your", "His", "Her", "Their", "There", "This", "That", "Then", "Thanks", "Thank", "Got", "Noted", "Done", "Sure", "Great", "Oh", "Ugh", "By", "Another", "Or"])  # fmt: skip
_ACTION_VERBS = frozenset(["add", "book", "buy", "cancel", "change", "move", "transfer", "pay", "send", "ship", "schedule", "set", "scale", "request", "ask", "order", "renew", "update", "upgrade", "reserve", "arrange", "email", "call", "file", "submit", "apply", "deploy", "restart", "raise", "lower", "increase", "reduce", "extend", "swap", "switch", "sell", "open", "close", "block", "unblock", "top", "refill"])  # fmt: skip

_MORE = frozenset(
    ["else", "other", "another", "more", "next", "alternative", "alternatives", "instead"]
)
_ASKS = frozenset(
    [
        "do",
        "does",
        "did",
        "is",
        "are",
        "was",
        "were",
        "what",
        "when",
        "where",
        "who",
        "whom",
        "why",
        "how",
        "which",
        "whose",
    ]
)

OTHER = re.compile(r"\bother (one|ones|[a-z]+)\b", re.I)
PREVIOUS = re.compile(
    r"\b(previous|earlier|first|original|one before that|before that|go back)\b", re.I
)
THAT = re.compile(r"\b(?:that|this) ([a-z]+)\b", re.I)
AGAIN = re.compile(r"\b(again|once more|one more time|repeat|same thing)\b", re.I)
LAST_TIME = re.compile(r"\b(last time|as before|same as before|last chat|last session|last call|like before)\b", re.I)  # fmt: skip
USUAL = re.compile(r"\b(?:usual|regular|normal|same old) ([a-z]+(?: [a-z]+)?)|\bas (?:always|usual)\b", re.I)  # fmt: skip
PRONOUN = re.compile(r"\b(she|her|hers|he|him|his)\b", re.I)


@dataclass(frozen=True)
class TurnView:
    """A turn as resolution reads it; ``key`` names it for the caller (``session:seq``)."""

    key: str
    role: str
    text: str


@dataclass
class Resolution:
    kind: str | None = None
    turns: list[TurnView] = field(default_factory=list)  # the referents, most important first
    fact_keys: list[str] = field(default_factory=list)
    words: list[str] = field(default_factory=list)  # what to add to the query for search


def _words(text: str) -> list[str]:
    return [w.lower() for w in WORD.findall(text)]


def _content(text: str) -> set[str]:
    return {w for w in _words(text) if w not in _STOP and len(w) > 1}


def _stem(word: str) -> str:
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def _names(turn: TurnView, noun: str) -> bool:
    stem = _stem(noun.lower())
    return any(_stem(w) == stem for w in _words(turn.text))


def _substantive(turn: TurnView) -> bool:
    return len(_content(turn.text)) >= 3


def _is_request(turn: TurnView) -> bool:
    """A user turn asking for something to be done (not a question about something)."""
    if turn.role != "user":
        return False
    words = _words(turn.text)
    if words and words[0] in _ASKS:
        return False  # "Do you ship to Canada?" asks about shipping; it asks for nothing
    body = [w for w in words if w not in {"please", "can", "could", "would", "you", "kindly", "now", "ok", "okay", "and"}]  # fmt: skip
    return bool(body) and (body[0] in _ACTION_VERBS or any(w in _ACTION_VERBS for w in words[:4]))


def _with_neighbour(turns: list[TurnView], index: int) -> list[TurnView]:
    """The turn and the other half of its exchange: a user turn's answer, an answer's question."""
    out = [turns[index]]
    other = index + 1 if turns[index].role == "user" else index - 1
    if 0 <= other < len(turns) and turns[other].role != turns[index].role:
        out.append(turns[other])
    return out


def _latest(turns: list[TurnView], test: object) -> int | None:
    for index in range(len(turns) - 1, -1, -1):
        if test(turns[index]):  # type: ignore[operator]
            return index
    return None


def _kind_noun(turns: list[TurnView], focus: int) -> str | None:
    """For "the other one": the word of the focus turn that the most other turns also name (the
    kind of thing there are several of)."""
    counts: dict[str, int] = {}
    for word in _content(turns[focus].text):
        if word.isalpha():
            counts[word] = sum(1 for t in turns[:focus] if _names(t, word))
    best = max(counts.items(), key=lambda kv: (kv[1], len(kv[0])), default=None)
    return best[0] if best and best[1] >= 2 else None


def _other(turns: list[TurnView], noun: str) -> Resolution:
    focus = _latest(turns, _is_request)
    if noun in {"one", "ones"}:
        inferred = _kind_noun(turns, focus) if focus is not None else None
        if inferred is None:
            return Resolution("other")
        noun = inferred
    naming = [i for i, t in enumerate(turns) if _names(t, noun)]
    if not naming:
        return Resolution("other")
    this = focus if focus is not None and focus in naming else naming[-1]
    mine = _content(turns[this].text) - {noun, _stem(noun)}
    candidates = [i for i in naming if i != this and turns[i].role == "user"] or [
        i for i in naming if i != this
    ]
    if not candidates:
        return Resolution("other")
    # "The other" shares least with "this" one; among equals, the later.
    other = min(candidates, key=lambda i: (len(_content(turns[i].text) & mine), -i))
    found = _with_neighbour(turns, other)
    if focus is not None:
        found = [turns[focus], *found]
    words = sorted(_content(turns[other].text))[:12]
    return Resolution("other", found, words=words)


def _offers(turns: list[TurnView]) -> list[int]:
    """The latest series of things offered one at a time: assistant turns separated only by
    short user turns asking for another ("anything else?", "what other option?")."""
    last = _latest(turns, lambda t: t.role == "assistant" and _substantive(t))
    if last is None:
        return []
    series = [last]
    index = last - 1
    while index >= 0:
        turn = turns[index]
        if turn.role == "user" and len(_words(turn.text)) <= 6 and set(_words(turn.text)) & _MORE:
            index -= 1
            continue
        if turn.role == "assistant" and _substantive(turn):
            series.insert(0, index)
            index -= 1
            continue
        break
    return series


def _previous(turns: list[TurnView], cue: str) -> Resolution:
    series = _offers(turns)
    if not series:
        return Resolution("previous")
    chosen = (
        series[0]
        if cue.lower() in {"first", "original"}
        else series[-2]
        if len(series) > 1
        else series[0]
    )
    return Resolution(
        "previous", _with_neighbour(turns, chosen), words=sorted(_content(turns[chosen].text))[:12]
    )


def _that(turns: list[TurnView], noun: str) -> Resolution:
    naming = [i for i, t in enumerate(turns) if _names(t, noun)]
    if not naming:
        return Resolution("that")
    # The latest turn that says something about it (a user's, when the assistant only echoed it).
    users = [i for i in naming if turns[i].role == "user"]
    chosen = users[-1] if users and naming[-1] - users[-1] <= 1 else naming[-1]
    return Resolution("that", _with_neighbour(turns, chosen), words=[noun])


def _again(turns: list[TurnView]) -> Resolution:
    chosen = _latest(turns, _is_request)
    if chosen is None:
        return Resolution("again")
    return Resolution(
        "again", _with_neighbour(turns, chosen), words=sorted(_content(turns[chosen].text))[:12]
    )


def _people(turns: list[TurnView], participants: set[str]) -> list[tuple[int, str, str | None]]:
    """(turn index, name, "she" / "he" / None) for every person introduced the way people are
    ("my sister Kavya", "our recruiter Kenji", "the mechanic Suresh"): a capitalised word after
    a possessive or article and up to two lower-case words. The gender comes from a kinship word
    before it, else from the first he / she after it in the sentence."""
    out = []
    for index, turn in enumerate(turns):
        for sentence in re.split(r"(?<=[.!?])\s+", turn.text):
            tokens = WORD.findall(sentence)
            for position, token in enumerate(tokens):
                if (position == 0 or not token[0].isupper() or token.isupper() or token in _NOT_NAMES
                        or token.lower() in participants):  # fmt: skip
                    continue
                before = [w.lower() for w in tokens[max(0, position - 3) : position]]
                if not any(
                    w in {"my", "our", "your", "the", "his", "her", "their"} for w in before
                ):
                    continue
                if any(w[0].isupper() for w in tokens[max(0, position - 2) : position] if w.lower() not in {"my", "our", "the", "your", "his", "her", "their"}):  # fmt: skip
                    continue  # part of a longer proper noun ("the Hotel Alma")
                gender = "she" if set(before) & _FEMALE else "he" if set(before) & _MALE else None
                if gender is None:
                    after = next((w.lower() for w in tokens[position + 1 :] if w.lower() in {"she", "he", "her", "him", "his"}), None)  # fmt: skip
                    gender = None if after is None else "she" if after in _FEMALE else "he"
                out.append((index, token, gender))
    return out


def _pronoun(turns: list[TurnView], pronoun: str, participants: set[str]) -> Resolution:
    gender = "she" if pronoun.lower() in {"she", "her", "hers"} else "he"
    people = _people(turns, participants)
    known = {name: g for _, name, g in people if g}
    exact = [p for p in people if known.get(p[1]) == gender]
    unknown = [p for p in people if p[1] not in known]
    if not (exact or unknown):
        return Resolution("pronoun")
    name = (exact or unknown)[-1][1]
    indexes = sorted({i for i, n, _ in people if n == name}, reverse=True)[:2]
    found = [t for i in indexes for t in _with_neighbour(turns, i)]
    return Resolution("pronoun", found, words=[name])


def _last_time(history: list[TurnView]) -> Resolution:
    chosen = _latest(history, _is_request)
    if chosen is None:
        chosen = _latest(history, lambda t: t.role == "user" and _substantive(t))
    if chosen is None:
        return Resolution("last_time")
    return Resolution(
        "last_time",
        _with_neighbour(history, chosen),
        words=sorted(_content(history[chosen].text))[:12],
    )


def _usual(noun: str | None, facts: dict[str, str]) -> Resolution:
    if not noun:
        return Resolution("usual", fact_keys=list(facts)[:3])
    wanted = {_stem(w) for w in _content(noun)} | {w[:5] for w in _content(noun)}
    keys = [
        k
        for k in facts
        if wanted
        & ({_stem(p) for p in re.split(r"[_:]", k)} | {p[:5] for p in re.split(r"[_:]", k)})
    ]
    return Resolution("usual", fact_keys=keys, words=[facts[k] for k in keys])


def references_resolve(
    query: str,
    turns: list[TurnView],
    *,
    history: list[TurnView] = (),  # type: ignore[assignment]
    facts: dict[str, str] | None = None,
    participants: set[str] = frozenset(),  # type: ignore[assignment]
) -> Resolution:
    """What ``query`` points back at. ``turns``: the session's recent turns, oldest first, the
    query itself left out; ``history``: the user's previous session's turns, oldest first;
    ``facts``: current facts, key → value text; ``participants``: lower-case names of the two
    sides (never "he" or "she" in their own conversation)."""
    facts = facts or {}
    if match := USUAL.search(query):
        resolution = _usual(match.group(1), facts)
        if resolution.fact_keys:
            return resolution
    if LAST_TIME.search(query) and history:
        return _last_time(history)
    if match := OTHER.search(query):
        return _other(turns, match.group(1).lower())
    if match := PREVIOUS.search(query):
        first = re.search(r"\b(first|original)\b", query, re.I)
        return _previous(turns, (first or match).group(1))
    if AGAIN.search(query):
        return _again(turns)
    if (match := PRONOUN.search(query)) and not THAT.search(query):
        return _pronoun(turns, match.group(1), participants)
    if (match := THAT.search(query)) and match.group(1).lower() not in _STOP:
        return _that(turns, match.group(1).lower())
    if match := PRONOUN.search(query):
        return _pronoun(turns, match.group(1), participants)
    return Resolution()

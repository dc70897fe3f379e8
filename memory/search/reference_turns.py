"""The turns reference resolution reads (``references``): a turn as it sees one, its words, and
whether it asks for something to be done. Pure functions over text; no model, no SQL."""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory.search.reference_cues import ASKS, ASKS_FOR, NEEDS

WORD = re.compile(r"[A-Za-z][\w'-]*|\d[\d,.:]*")
STOP = frozenset(["a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "for", "with", "about", "from", "by", "into", "over", "is", "are", "was", "were", "be", "been", "am", "do", "does", "did", "done", "doing", "what", "when", "where", "who", "whom", "which", "why", "how", "have", "has", "had", "i", "you", "he", "she", "it", "we", "they", "me", "him", "her", "us", "them", "my", "your", "his", "its", "our", "their", "this", "that", "these", "those", "there", "here", "can", "could", "would", "should", "will", "shall", "may", "might", "must", "not", "no", "yes", "any", "some", "please", "just", "also", "so", "then", "than", "too", "very", "really", "okay", "ok", "hmm", "um", "well", "now", "again", "same", "other", "one", "ones", "previous", "earlier", "first", "last", "before", "after", "like", "as", "time", "thing", "things", "once", "more", "let", "let's", "lets", "go", "going", "want", "wanted", "tell", "told", "say", "said", "remind", "me", "mentioned", "actually", "prefer", "anything", "something", "situation", "around", "available", "needs", "need"])  # fmt: skip
ACTION_VERBS = frozenset(["add", "book", "buy", "cancel", "change", "move", "transfer", "pay", "send", "ship", "schedule", "set", "scale", "request", "ask", "order", "renew", "update", "upgrade", "reserve", "arrange", "email", "call", "file", "submit", "apply", "deploy", "restart", "raise", "lower", "increase", "reduce", "extend", "swap", "switch", "sell", "open", "close", "block", "unblock", "top", "refill", "check", "run", "test", "freeze", "pause", "downgrade", "push", "put", "enter", "calculate", "work", "find", "look", "try", "get", "give", "register", "print", "copy", "resend", "reset", "remove", "delete", "replace", "fix", "repair", "install", "quote", "claim", "return", "refund", "hold", "keep", "log", "report", "confirm", "compare", "issue", "drop", "bring", "make"])  # fmt: skip


@dataclass(frozen=True)
class TurnView:
    """A turn as resolution reads it; ``key`` names it for the caller (``session:seq``)."""

    key: str
    role: str
    text: str


def tokens(text: str) -> list[str]:
    return [w.lower() for w in WORD.findall(text)]


def keywords(text: str) -> set[str]:
    return {w for w in tokens(text) if w not in STOP and len(w) > 1}


def singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def mentions(turn: TurnView, noun: str) -> bool:
    stem = singular(noun.lower())
    return any(singular(w) == stem for w in tokens(turn.text))


def substantive(turn: TurnView) -> bool:
    return len(keywords(turn.text)) >= 3


def is_request(turn: TurnView) -> bool:
    """A user turn asking for something to be done (not a question about something)."""
    if turn.role != "user":
        return False
    words = tokens(turn.text)
    if words and words[0] in ASKS:
        return False  # "Do you ship to Canada?" asks about shipping; it asks for nothing
    body = [w for w in words if w not in {"please", "can", "could", "would", "you", "kindly", "now", "ok", "okay", "and", "hi", "hello", "hey"}]  # fmt: skip
    if body and (body[0] in ACTION_VERBS or any(w in ACTION_VERBS for w in words[:4])):
        return True
    # A sentence that asks, says for what ("yes please" only accepts; "I need a coffee first"
    # asks nothing) and is no question ("Will do. Do I need to bring anything?").
    for sentence in re.split(r"(?<=[.!?])\s+", turn.text):
        said = tokens(sentence)
        if said and said[0] not in ASKS and ((ASKS_FOR.search(sentence) and len(keywords(sentence)) >= 2)
                                             or (NEEDS.search(sentence) and len(keywords(sentence)) >= 5)):  # fmt: skip
            return True
    return False


def with_neighbour(turns: list[TurnView], index: int) -> list[TurnView]:
    """The turn and the other half of its exchange: a user turn's answer, an answer's question,
    in the same session (``turns`` may hold two; a key is ``session:seq``)."""
    out, turn = [turns[index]], turns[index]
    other = index + 1 if turn.role == "user" else index - 1
    if 0 <= other < len(turns) and turns[other].role != turn.role and turns[other].key.split(":")[0] == turn.key.split(":")[0]:  # fmt: skip
        out.append(turns[other])
    return out


def latest(turns: list[TurnView], test: object) -> int | None:
    for index in range(len(turns) - 1, -1, -1):
        if test(turns[index]):  # type: ignore[operator]
            return index
    return None

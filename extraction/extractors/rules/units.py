"""Memory units from the rules extractor: the informative sentences of every turn, made
self-contained (first and second person resolved to names, relative dates made absolute, the
turn's date in front)."""

from __future__ import annotations

import datetime

from core.text import sentences
from extraction.extractors.base import AcuCandidate, WindowTurn
from extraction.text import absolutise, format_date, is_filler, is_question, resolve_pronouns


def compress(segment: list[WindowTurn]) -> list[AcuCandidate]:
    acus: list[AcuCandidate] = []
    for turn in segment:
        today = turn.occurred_at.date()
        for sentence in sentences(turn.text):
            if is_question(sentence) or is_filler(sentence):
                continue
            acus.append(
                AcuCandidate(
                    self_contained(sentence, turn.speaker, turn.listener, today),
                    turn.session_id,
                    turn.seq,
                    turn.seq,
                    turn.occurred_at,
                )
            )
    return acus


def self_contained(sentence: str, speaker: str, listener: str, day: datetime.date) -> str:
    text = resolve_pronouns(absolutise(sentence.strip(), day), speaker=speaker, listener=listener)
    capitalised = speaker[:1].upper() + speaker[1:]
    if speaker != capitalised and text.startswith(capitalised):  # "the user", not "The user"
        text = speaker + text[len(capitalised) :]
    if not text.endswith((".", "!", "?")):
        text += "."
    if text.startswith(speaker):
        return f"On {format_date(day)}, {text}"
    return f"On {format_date(day)}, {speaker} said: {text}"

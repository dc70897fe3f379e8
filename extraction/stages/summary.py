"""The rolling summary: extractive for the rules extractor, so it can only repeat what was said.

Each window contributes its most informative memory units; they compete with the sentences
already in the summary under the agent's token cap, newer ones with a small advantage, so old
content is folded away rather than appended forever. Output is in date order.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import Any

from core.text import sentences
from extraction.extractors.rules.acts import RELATIONS, RELATIVE
from extraction.extractors.rules.amounts import money_in
from extraction.extractors.rules.fields import names_field, stem
from extraction.text import ABSOLUTE_DATE, MONTHS, find_date, format_date
from extraction.values import find_numbers, value_signature
from memory.tokens import count_tokens
from schemas.validation import Category, FieldType

_DATED = re.compile(r"^On (\d{1,2}) (\w+) (\d{4}),")


def _date_of(sentence: str) -> datetime.date:
    match = _DATED.match(sentence)
    if match and match.group(2).lower() in MONTHS:
        return datetime.date(
            int(match.group(3)), MONTHS.index(match.group(2).lower()) + 1, int(match.group(1))
        )
    return datetime.date.min


# "Caroline said: …": who said a unit, before what was said.
_SAID = re.compile(r"^\s*(?:[A-Z][\w.'-]*\s+){1,3}said:\s*")


def _said_at(sentence: str) -> int:
    """Where what a summary sentence says starts: after the date it is dated with and who said it."""
    start = _body_start(sentence)
    return start + (m.end() if (m := _SAID.match(sentence[start:])) else 0)


def _what_said(sentence: str) -> str:
    """A summary sentence without its frame: the date it is dated with and who said it."""
    return sentence[_said_at(sentence) :]


def _values(sentence: str) -> frozenset[str]:
    """What a summary sentence states, without its frame: not the date it is dated with or who
    said it, and a date's day and year not counted again as numbers."""
    body = _what_said(sentence)
    days = {n for match in ABSOLUTE_DATE.finditer(body) for n in re.findall(r"\d+", match.group(0))}
    return frozenset(v for v in value_signature(body) if not (v[:2] == "n:" and v[2:] in days))


def _score(sentence: str, newest: datetime.date, everywhere: frozenset[str]) -> float:
    """Salience: the values and names a sentence states that the rest of the history does not
    all share (the people talking are named everywhere, so they say nothing), its length up to
    a point, and a year's age as much as one value."""
    age_days = (
        (newest - _date_of(sentence)).days if _date_of(sentence) != datetime.date.min else 3650
    )
    return (
        len(_values(sentence) - everywhere)
        + min(count_tokens(sentence), 40) / 20
        - age_days / 365
        - (1.0 if _DEICTIC.match(_what_said(sentence)) else 0.0)
    )


def _everywhere(pool: list[str]) -> frozenset[str]:
    """The names in more than a tenth of the pool (at least three sentences): the people whose
    conversation it is."""
    counts: dict[str, int] = {}
    for sentence in pool:
        for value in _values(sentence):
            if value.startswith("name:"):
                counts[value] = counts.get(value, 0) + 1
    return frozenset(v for v, n in counts.items() if n >= max(3, len(pool) / 10))


# What a transcript puts in square brackets is not what anyone said: "[laughs]", "[inaudible]",
# "[shares an image: a photo of a parade]". The summary keeps what was said.
_ASIDE = re.compile(r"\s*\[[^\[\]\n]{0,400}\]")


# What opens a reply without saying anything: "Yeah, here's one", "Oh wow, it was …".
_PARTICLE = re.compile(
    r"(?i:(?:yeah|yea|yes|yep|oh|ah|aw+|wow|haha|lol|hey|well|so|ok|okay|hmm|um|totally|"
    r"definitely|absolutely|true|sure)\b[,!.]*\s+)+(?=\w)"
)
# What points at something said or shown before it ("Here's one I did", "It was Matt"): without
# the turn it answers it tells little, so it weighs less than a sentence that stands alone.
_DEICTIC = re.compile(r"(?i:here's|here is|here are|this is|that's|that is|that was|this was|"
                      r"it was|it is|it's|they are|they're|those are|these are)\b")  # fmt: skip


def _said(sentence: str) -> str:
    """The sentence without its bracketed asides and the particles it opens with; "" when
    nothing else is left of it."""
    text = re.sub(r"([.!?])\s*\.$", r"\1", _ASIDE.sub("", sentence).strip())  # "City! [...]."
    start = _said_at(text)
    if particle := _PARTICLE.match(text, start):
        rest = text[particle.end() :]
        text = text[:start] + rest[:1].upper() + rest[1:]
    return text if re.search(r"\w", _what_said(text)) else ""


def _parts(sentence: str) -> tuple[str, str]:
    """(frame, text): "On 9 March 2026," and what follows it, written as briefly as it says the
    same: without "X said:" when the text names X anyway, and without an "as of" that repeats
    the frame's day ("Jon is as of 27 May 2023 reading" → "Jon is reading")."""
    dated = _DATED.match(sentence)
    if not dated:
        return "", sentence
    text = sentence[dated.end() :].lstrip()
    speaker = _SAID.match(text)
    if speaker and re.search(
        rf"\b{re.escape(speaker.group(0).split()[0])}\b", text[speaker.end() :]
    ):
        text = text[speaker.end() :]
    day = " ".join(dated.groups())
    return dated.group(0), re.sub(rf"\bas of {re.escape(day)}\s+", "", text)


def _expanded(summary: str) -> list[str]:
    """A stored summary's sentences, each with its date again: a sentence said on the same day
    as the one before it is stored without the frame (``_compact``)."""
    out, frame = [], ""
    for sentence in sentences(summary):
        dated = _DATED.match(sentence)
        if dated:
            frame = dated.group(0)
        elif frame:
            sentence = f"{frame} {sentence}"
        out.append(sentence)
    return out


def _compact(chosen: list[str]) -> str:
    """The chosen sentences in date order, each day's frame written once."""
    out: list[str] = []
    last = None
    for sentence in chosen:
        frame, text = _parts(sentence)
        # Without its frame, a sentence must still read as one to ``sentences`` (a capital or a
        # digit after the last one's stop), or the next fold would take two for one.
        alone = bool(out) and out[-1].endswith((".", "!", "?")) and _STARTS.match(text)
        out.append(text if frame and frame == last and alone else f"{frame} {text}".strip())
        last = frame
    return " ".join(out)


_STARTS = re.compile(r"[\"'(\[]?[A-Z0-9]")


def summary_fold(previous: str, new_units: list[str], *, max_tokens: int) -> str:
    """The previous summary and the new units, folded into ``max_tokens``: the sentences that
    say the most (``_score``), counted at what they cost written briefly (``_compact``)."""
    pool = [s for s in dict.fromkeys(_said(s) for s in _expanded(previous) + new_units) if s]
    if not pool:
        return ""
    newest = max(_date_of(s) for s in pool)
    everywhere = _everywhere(pool)
    ranked = sorted(pool, key=lambda s: _score(s, newest, everywhere), reverse=True)
    chosen: list[str] = []
    frames: set[str] = set()
    used = 0
    for sentence in ranked:
        frame, text = _parts(sentence)
        shared = frame in frames and bool(_STARTS.match(text))  # written without it
        cost = count_tokens(text) + (0 if shared else count_tokens(frame))
        if used + cost <= max_tokens:
            chosen.append(sentence)
            frames.add(frame)
            used += cost
    chosen.sort(key=lambda s: (_date_of(s), pool.index(s)))
    folded = _compact(chosen)
    while count_tokens(folded) > max_tokens:  # the estimate was short: the least salient goes
        chosen.remove(min(chosen, key=lambda s: _score(s, newest, everywhere)))
        folded = _compact(chosen)
    return folded


@dataclass(frozen=True)
class Version:
    """One version of a fact as the summary check needs it (active or superseded)."""

    key: str
    field: str
    value: Any
    value_text: str
    active: bool
    valid_from: datetime.datetime
    ended: datetime.datetime | None = None


def _spans(type_: str, sentence: str, start: int) -> list[tuple[Any, int, int]]:
    """(normalised value, start, end) of every value of ``type_`` the sentence states."""
    if type_ == FieldType.MONEY:  # written any way: "₹50 lakh", "50,00,000", "18,499"
        found = money_in(sentence[start:], None, bare=True)
        return [(m.amount, start + m.start, start + m.end) for m in found]
    if type_ == FieldType.NUMBER:
        return [(n, s, e) for n, s, e in find_numbers(sentence) if s >= start]
    if type_ == FieldType.DATE:
        out = []
        for match in ABSOLUTE_DATE.finditer(sentence, start):
            day = find_date(match.group(0), _date_of(sentence))
            if day is not None:
                out.append((day.isoformat(), match.start(), match.end()))
        return out
    return []


def _norm(type_: str, version: Version) -> Any:
    value = version.value
    if type_ == FieldType.MONEY and isinstance(value, dict):
        return float(value.get("amount") or 0)
    if type_ == FieldType.NUMBER and isinstance(value, int | float):
        return float(value)
    if type_ in (FieldType.STRING, FieldType.ENUM):
        return version.value_text.lower()
    return value


def _uncovered(
    sentence: str, start: int, fields: list[dict[str, Any]], versions: list[Version]
) -> bool:
    """Whether the sentence states a value the facts speak for: an amount or a date (when the
    schema has fields of that type), a number beside a word or thing of a number field, a
    choice of an enum field, or a value a text field holds or held. The facts say such values,
    current and with their history; a summary that repeats them adds nothing and, the moment
    one changes or was misread, contradicts them. What someone else paid or owns stays (theirs,
    and said so)."""
    body = sentence[start:]
    if _states_superseded(sentence, start, fields, versions):
        return True  # "her old roommate still lives in Austin": no sentence repeats an old value
    if _theirs_before_value(sentence, start, fields):  # "Priya's cousin paid …"
        return False
    types = {f["type"] for f in fields}
    for type_ in (FieldType.MONEY, FieldType.DATE):
        if type_ in types and _spans(type_, sentence, start):
            return True
    lowered = body.lower()
    amounts = {a for v in versions if _type(fields, v) == FieldType.MONEY
               and (a := _norm(FieldType.MONEY, v)) >= 10}  # fmt: skip
    if any(n in amounts for n, _, _ in _spans(FieldType.NUMBER, sentence, start)):
        return True  # "they were 85 with delivery": an amount a money fact holds or held, bare
    if FieldType.NUMBER in types and any(
        _COUNTS.match(sentence, end) and not _LABEL.search(sentence, 0, begin)
        for _, begin, end in _spans(FieldType.NUMBER, sentence, start)
    ):
        return True  # "3 bedrooms", "15 waiters for 150 guests": a count, the facts' to say
    if _spans(FieldType.NUMBER, sentence, start) and any(
        f["type"] == FieldType.NUMBER
        and (names_field(f, body) or _names_thing(f, versions, lowered))
        for f in fields
    ):
        return True  # "atorvastatin 10": a number beside a word or thing of a number field
    for field in fields:
        if field["type"] == FieldType.ENUM and any(
            re.search(rf"\b{re.escape(str(c).lower())}\b", lowered)
            for c in field.get("choices") or []
        ):
            return True
    if any(f["type"] == FieldType.STRING and _names_thing(f, versions, lowered) for f in fields):
        return True  # "Yes, thiocolchicoside 4 mg twice a day": the medication's fact says it
    texts = {v.value_text.lower() for v in versions if v.field not in _NAME_FIELDS and len(v.value_text) >= 3
             and _type(fields, v) == FieldType.STRING}  # fmt: skip
    return any(re.search(rf"(?<!\w){re.escape(t)}(?!\w)", lowered) for t in texts)


# A number that counts something: a word follows it ("150 guests", "4 mg"), not a function
# word or the end ("Day 3.", "flat number 5 in Baner", "at 5 pm": labels and times).
_COUNTS = re.compile(
    r"\s*(?!(?:in|on|at|to|and|or|of|for|the|a|an|with|from|by|is|was|are|were|am|pm|"
    r"a\.m|p\.m|o'clock)\b)[a-z]{2,}",
    re.I,
)
_LABEL = re.compile(
    r"(?i)\b(?:day|no|number|room|flat|unit|order|page|step|floor|gate|seat|table|"
    r"platform|ref|#)\.?\s*$"
)  # "Day 3 went well": a name, not a count
# Someone the summary names by their relation to the user ("Laura Chen's old roommate").
_THEIRS = re.compile(rf"\b[A-Z]\w*'s\s+(?:\w+\s+)?(?:{RELATIONS})s?\b")


def _theirs_before_value(sentence: str, start: int, fields: list[dict[str, Any]]) -> bool:
    """Whether the sentence is about someone else's value: a relative or friend named before
    the first value it states ("Priya's cousin paid ₹50 lakh"). One named after the value is
    not its owner ("up to £18,000, he would have to talk it over with his wife")."""
    body = sentence[start:]
    other = [m.start() for rx in (RELATIVE, _THEIRS) if (m := rx.search(body))]
    if not other:
        return False
    types = {f["type"] for f in fields} | {FieldType.NUMBER}
    values = [s - start for t in types for _, s, _ in _spans(t, sentence, start)]
    values += [m.start() for f in fields if f["type"] == FieldType.ENUM
               for c in f.get("choices") or [] if (m := re.search(rf"(?i)\b{re.escape(str(c))}\b", body))]  # fmt: skip
    return min(other) < min(values, default=len(body))


def _states_superseded(
    sentence: str, start: int, fields: list[dict[str, Any]], versions: list[Version]
) -> bool:
    """Whether the sentence states, of anyone, a value a fact held and holds no longer: a
    superseded value appears in the summary only as history (``_history``), never beside the
    current one, whoever the sentence is about."""
    active = {(v.key, v.value_text.lower()) for v in versions if v.active}
    stale = [v for v in versions if not v.active and (v.key, v.value_text.lower()) not in active]
    lowered = sentence[start:].lower()
    for version in stale:
        type_ = _type(fields, version)
        if type_ in (FieldType.STRING, FieldType.ENUM) and len(version.value_text) >= 3:
            if re.search(rf"(?<!\w){re.escape(version.value_text.lower())}(?!\w)", lowered):
                return True
        elif type_ in (FieldType.MONEY, FieldType.NUMBER, FieldType.DATE):
            said = {value for value, _, _ in _spans(type_, sentence, start)}
            if _norm(type_, version) in said and not (
                type_ == FieldType.NUMBER and _norm(type_, version) < 10
            ):
                return True
    return False


def _names_thing(field: dict[str, Any], versions: list[Version], lowered: str) -> bool:
    """Whether the text names one of the things a field keeps a fact per ("atorvastatin")."""
    things = {
        v.key.partition(":")[2].lower()
        for v in versions
        if v.field == field["key"] and ":" in v.key
    }
    said = {stem(w) for w in re.findall(r"[\w'-]+", lowered)}  # "shoe size" names "shoes"
    return any(
        t and (re.search(rf"\b{re.escape(t)}\b", lowered) or stem(t) in said) for t in things
    )


_NAME_FIELDS = {"name", "full_name", "first_name", "customer_name", "user_name"}


def _type(fields: list[dict[str, Any]], version: Version) -> str | None:
    return next((f["type"] for f in fields if f["key"] == version.field), None)


def _body_start(sentence: str) -> int:
    """Where a summary sentence's text starts, after the date it is dated with."""
    dated = _DATED.match(sentence)
    return dated.end() if dated else 0


def _history(fields: list[dict[str, Any]], versions: list[Version]) -> list[str]:
    """One sentence per fact that changed: its last value before the current one, and since
    when the current one holds ("Budget: ₹50 lakh until 9 March 2026; ₹80 lakh since."). Not of
    an ephemeral field: how the user felt yesterday is not history worth a line."""
    labels = {f["key"]: f["key"].replace("_", " ") for f in fields
              if f.get("category") != Category.EPHEMERAL}  # fmt: skip
    chains: dict[str, list[Version]] = {}
    for version in versions:
        chains.setdefault(version.key, []).append(version)
    out = []
    for key, chain in chains.items():
        active = [v for v in chain if v.active]
        old = [
            v for v in chain if not v.active and v.value_text not in {a.value_text for a in active}
        ]
        if not active or not old or chain[0].field not in labels:
            continue
        before, now = old[-1], active[0]
        until = before.ended or now.valid_from
        name, _, qualifier = key.partition(":")
        label = labels[name] + (f" ({qualifier})" if qualifier else "")
        out.append(f"{label[:1].upper()}{label[1:]}: {before.value_text} until "
                   f"{format_date(until.date())}; {now.value_text} since.")  # fmt: skip
    return out


def summary_consistent(
    text: str, fields: list[dict[str, Any]], versions: list[Version], *, max_tokens: int
) -> str:
    """The summary, made unable to contradict the facts.

    It never states a value the facts speak for (an amount, a date, a choice, a text value of a
    field; see ``_uncovered``): a sentence that does either repeats a fact or contradicts it.
    What changed is said as history, from the facts themselves ("Budget: ₹50 lakh until 9 March
    2026; ₹80 lakh since."), first; the rest of the summary is what the schema does not hold,
    within the token cap.
    """
    history = _history(fields, versions)
    kept = [s for s in _expanded(text) if not _uncovered(s, _body_start(s), fields, versions)]
    history = [h for h in history if count_tokens(h) <= max_tokens]
    used = sum(count_tokens(h) for h in history)
    while history and used > max_tokens // 2:  # history takes at most half the summary
        used -= count_tokens(history.pop())
    rest = summary_fold(" ".join(kept), [], max_tokens=max_tokens - used)
    return " ".join([*history, rest]).strip()

"""Reference resolution (DESIGN §7): what a user's turn points back at in the conversation.

"Do that again but for the other account", "no, the previous one", "same as last time", "what
did she say?" name nothing a search could match; the turn they point at is in the session (or
the user's last session, or a fact). ``references_resolve`` reads the cue (``reference_cues``)
and picks that turn:

- *the other X / the other one*: of the turns naming X, the one least like the latest (which is
  "this" one), plus the request "that" repeats;
- *the previous / earlier / first / second one*: the option offered before the latest offer (or
  the first, second… of the series); *my previous teacher*, *how it was before*: a former
  state (what was so before, or the change that ended it), not an offer;
- *that X*: the latest turn naming X; *is that… / does that apply… / about that - / change
  that so…*: the statement just made (and, among the runners-up, those before it);
- *again / once more / redo / send another*: the user's latest request (in the previous
  session when this one has none), and the one the query's words name, else the latest one
  done; "what was it again?" asks to be reminded, and is not this cue, nor is "forgot my pin
  again" (it recurs);
- *he / she / they*: the person last named with that pronoun (a kinship word, a title, the
  first pronoun after the name) and the turns naming them; a pronoun after a name the query
  itself says ("Melanie … her family") is that name's, and no cue;
- *same as last time / like we did for… / the way we did the piano*: the user's request in
  their previous session (by the query's words, when they name one);
- *my usual X / the card I normally use*: the standing facts it may mean, by their words and
  their meaning (``reference_candidates.facts_meant``);
- *the cheaper one / the one with the balcony / cheapest pls*: one of the things offered (a
  choice by its description, never in a question: "Why did she choose the agency?").

After the rule's referent, the other turns the cue could mean (``reference_candidates.likely``),
up to six referent turns in all: on blind probe sets the first rules, alone, put the referent in
context 0.53 to 0.70 of the time (ADR 0010, "referents beyond the rule").

Pure functions over turns already read (newest last); no model, no SQL. Each referent turn
comes with its neighbour (an answer with its question, a request with its answer), so the
agent sees the exchange.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memory.search.reference_candidates import (
    DONE,
    MAX_REFERENT_TURNS,
    OFFER,
    Similar,
    facts_meant,
    likely,
    matching,
)
from memory.search.reference_cues import (
    AGAIN,
    BIT,
    COPIED,
    DEMONSTRATIVE,
    DESCRIBED,
    DESCRIBED_SOFT,
    FORMER_THING,
    LAST_TIME,
    MORE,
    ORDINAL,
    OTHER,
    PREVIOUS,
    PRONOUN,
    QUESTION,
    REMINDED,
    SAME,
    THAT,
    THEY,
    USUAL,
    USUALLY,
    recurs,
)
from memory.search.reference_people import gender_of, named_before, named_in, people
from memory.search.reference_turns import (
    STOP,
    TurnView,
    is_request,
    keywords,
    latest,
    mentions,
    singular,
    substantive,
    tokens,
    with_neighbour,
)


@dataclass
class Resolution:
    kind: str | None = None
    turns: list[TurnView] = field(default_factory=list)  # the referents, most important first
    fact_keys: list[str] = field(default_factory=list)
    words: list[str] = field(default_factory=list)  # what to add to the query for search
    not_meant: list[str] = field(default_factory=list)  # turns the cue rules out ("the other")


def _kind_noun(turns: list[TurnView], focus: int) -> str | None:
    """For "the other one": the word of the focus turn that the most other turns also name (the
    kind of thing there are several of)."""
    counts: dict[str, int] = {}
    for word in keywords(turns[focus].text):
        if word.isalpha():
            counts[word] = sum(1 for t in turns[:focus] if mentions(t, word))
    best = max(counts.items(), key=lambda kv: (kv[1], len(kv[0])), default=None)
    return best[0] if best and best[1] >= 2 else None


def _other(turns: list[TurnView], noun: str) -> Resolution:
    focus = latest(turns, is_request)
    # Without the other thing found, the request "that" repeats is still what the turn points at.
    alone = Resolution("other", [turns[focus]] if focus is not None else [])
    if noun in {"one", "ones", "1"}:
        inferred = _kind_noun(turns, focus) if focus is not None else None
        if inferred is None:
            return alone
        noun = inferred
    naming = [i for i, t in enumerate(turns) if mentions(t, noun)]
    if not naming:
        return alone
    this = focus if focus is not None and focus in naming else naming[-1]
    mine = keywords(turns[this].text) - {noun, singular(noun)}
    candidates = [i for i in naming if i != this and turns[i].role == "user"] or [
        i for i in naming if i != this
    ]
    if not candidates:
        return alone
    # "The other" shares least with "this" one; among equals, the later.
    other = min(candidates, key=lambda i: (len(keywords(turns[i].text) & mine), -i))
    found = with_neighbour(turns, other)
    if focus is not None:
        found = [turns[focus], *found]
    said = keywords(turns[other].text)
    # What was said about "this" one (more like it than like the other) the cue rules out; a
    # request about it (and its answer) stays: "do that again for the other" repeats it.
    theirs = said - {noun, singular(noun)}
    asked = {i + d for i, t in enumerate(turns) if is_request(t) for d in (0, 1)}
    about = {
        i: keywords(turns[i].text) for i in naming if i not in (other, this) and i not in asked
    }
    ruled_out = [turns[i].key for i, has in about.items() if len(has & mine) > len(has & theirs)]
    return Resolution("other", found, words=sorted(said)[:12], not_meant=ruled_out)


def _offers(turns: list[TurnView]) -> list[int]:
    """The latest series of things offered: assistant turns that offer (a suggestion, a price, a
    time, a number). Offered one at a time, they are separated only by short user turns asking
    for another ("anything else?"); else, each within four turns of the next (questions between)."""
    offering = [i for i, t in enumerate(turns) if t.role == "assistant" and substantive(t)
                and (OFFER.search(t.text) or re.search(r"\d", t.text))]  # fmt: skip
    if not offering:
        last = latest(turns, lambda t: t.role == "assistant" and substantive(t))
        return [] if last is None else [last]
    asked = [offering[-1]]
    index = offering[-1] - 1
    while index >= 0:
        turn = turns[index]
        if turn.role == "user" and len(tokens(turn.text)) <= 6 and set(tokens(turn.text)) & MORE:
            index -= 1
        elif turn.role == "assistant" and substantive(turn):
            asked.insert(0, index)
            index -= 1
        else:
            break
    if len(asked) > 1:
        return asked
    series = [offering[-1]]
    for index in reversed(offering[:-1]):
        if series[0] - index > 4:
            break
        series.insert(0, index)
    return series


def _previous(turns: list[TurnView], cue: str) -> Resolution:
    series = _offers(turns)
    if not series:
        return Resolution("previous")
    nth = {"second": 1, "third": 2}.get(cue.lower(), 0)
    if cue.lower() in {"second", "third"} or cue.lower().startswith(("first", "1st", "origin", "initial", "start", "begin")):  # fmt: skip
        chosen = series[min(nth, len(series) - 1)]
    else:
        chosen = series[-2] if len(series) > 1 else series[0]
    return Resolution(
        "previous", with_neighbour(turns, chosen), words=sorted(keywords(turns[chosen].text))[:12]
    )


def _that(turns: list[TurnView], noun: str) -> Resolution:
    naming = [i for i, t in enumerate(turns) if mentions(t, noun)]
    if not naming:
        return Resolution("that")
    # The latest turn that says something about it (a user's, when the assistant only echoed it).
    users = [i for i in naming if turns[i].role == "user"]
    chosen = users[-1] if users and naming[-1] - users[-1] <= 1 else naming[-1]
    return Resolution("that", with_neighbour(turns, chosen), words=[noun])


def _again(query: str, turns: list[TurnView]) -> Resolution:
    """The latest request, and another: the one the query's own words name ("redo that sum for
    £2,400", "the same reminder for Friday"), else the latest one done ("Sent: …", "Booked")."""
    chosen = latest(turns, is_request)
    if chosen is None:
        return Resolution("again")
    named = matching(query, turns, is_request)
    if named is None:  # the latest request its answer says was done
        named = next((i for i in range(len(turns) - 2, -1, -1)
                      if is_request(turns[i]) and DONE.search(turns[i + 1].text)), None)  # fmt: skip
    found = [*with_neighbour(turns, chosen), *(with_neighbour(turns, named) if named not in (None, chosen) else [])]  # fmt: skip
    return Resolution("again", found, words=sorted(keywords(turns[chosen].text))[:12])


def _pronoun(
    turns: list[TurnView],
    pronoun: str,
    participants: set[str],
    later: set[str] = frozenset(),  # type: ignore[assignment]
) -> Resolution:
    """The person last named with that pronoun's gender (else with none known); ``later``: the
    names the query says after the pronoun, which it does not mean while others are there."""
    gender = gender_of(pronoun)
    everyone = people(turns, participants)
    found = [p for p in everyone if p[1] not in later] or everyone
    known = {name: g for _, name, g in found if g}
    exact = [p for p in found if known.get(p[1]) == gender or pronoun == "they"]
    unknown = [p for p in found if p[1] not in known]
    if not (exact or unknown):
        return Resolution("pronoun")
    name = (exact or unknown)[-1][1]
    indexes = sorted({i for i, n, _ in found if n == name}, reverse=True)[:2]
    return Resolution(
        "pronoun", [t for i in indexes for t in with_neighbour(turns, i)], words=[name]
    )


def _last_time(query: str, history: list[TurnView]) -> Resolution:
    """The request of the previous session the query names by its words ("same as last time
    for the basement flat"), else its latest request."""
    chosen = matching(query, history, is_request)
    if chosen is None:
        chosen = latest(history, is_request)
    if chosen is None:
        chosen = latest(history, lambda t: t.role == "user" and substantive(t))
    if chosen is None:
        return Resolution("last_time")
    return Resolution(
        "last_time",
        with_neighbour(history, chosen),
        words=sorted(keywords(history[chosen].text))[:12],
    )


def _same(query: str, turns: list[TurnView], history: list[TurnView]) -> Resolution | None:
    """ "That same check", "the same as my Christmas set": the turn, in this session or the last,
    the query's own words name; None when they name none."""
    pool = [*history, *turns]
    if (chosen := matching(query, pool, is_request)) is None:
        return None
    found = with_neighbour(pool, chosen)
    return Resolution("same", found, words=sorted(keywords(found[0].text))[:12])


def references_resolve(
    query: str,
    turns: list[TurnView],
    *,
    history: list[TurnView] = (),  # type: ignore[assignment]
    facts: dict[str, str] | None = None,
    participants: set[str] = frozenset(),  # type: ignore[assignment]
    similar: Similar | None = None,
) -> Resolution:
    """What ``query`` points back at. ``turns``: the session's recent turns, oldest first, the
    query itself left out; ``history``: the user's previous session's turns, oldest first;
    ``facts``: current facts, key → value text; ``participants``: lower-case names of the two
    sides (never "he" or "she" in their own conversation); ``similar``: how like the query
    each text is in meaning, for a habit no word of a fact names. The rule's referent comes first;
    after it, the other turns the cue could mean (``reference_candidates.likely``)."""
    resolution, among, gender = _rule(query, turns, history, facts or {}, participants, similar)
    resolution.turns = list({t.key: t for t in resolution.turns}.values())  # once each, in order
    if resolution.kind and resolution.kind != "usual":
        first = bool(re.search(r"\b(first|1st|original|very start|start|initial)\b", query, re.I))
        runners = likely(
            query, among, resolution.kind, is_request=is_request, gender=gender,
            taken=[t.key for t in resolution.turns], first=first, avoid=resolution.not_meant,
        )  # fmt: skip
        if resolution.kind in ("last_time", "same"):
            runners = _as_exchanges(runners, among, len(resolution.turns))
        resolution.turns += runners
    if resolution.kind != "usual" and USUALLY.search(query):
        # "tell him to get in the way he normally does": the pronoun's turns, and the standing
        # facts the habit may be (two), in the referents' room
        keys = facts_meant(query, turns, facts or {}, similar)[:2]
        resolution.turns = resolution.turns[: MAX_REFERENT_TURNS - len(keys)]
        resolution.fact_keys += keys
        resolution.kind = resolution.kind or ("usual" if keys else None)
    return resolution


def _as_exchanges(runners: list[TurnView], among: list[TurnView], taken: int) -> list[TurnView]:
    """Each runner-up with the other half of its exchange (what was asked, what was done), in
    the room the rule's referents left: "same as last time" means an exchange."""
    place, out = {t.key: i for i, t in enumerate(among)}, dict[str, TurnView]()
    for turn in runners:
        for half in with_neighbour(among, place[turn.key]):
            if len(out) < MAX_REFERENT_TURNS - taken:
                out.setdefault(half.key, half)
    return list(out.values())


def _rule(
    query: str,
    turns: list[TurnView],
    history: list[TurnView],
    facts: dict[str, str],
    participants: set[str],
    similar: Similar | None,
) -> tuple[Resolution, list[TurnView], str | None]:
    """The cue's rule: its resolution, the turns its runners-up come from, the pronoun's gender."""
    # "the usual bedding, same as last time": what was done then (the habit's facts join it)
    if LAST_TIME.search(query) and history:
        return _last_time(query, history), history, None
    if USUAL.search(query) and (keys := facts_meant(query, turns, facts, similar)):
        return Resolution("usual", fact_keys=keys, words=[facts[k] for k in keys]), [], None
    if match := OTHER.search(query):
        return _other(turns, (match.group(1) or match.group(2) or "one").lower()), turns, None
    if SAME.search(query) and (same := _same(query, turns, history)):
        return same, [*history, *turns], None
    # "book that one the same as you just did": named by no word of its own, the latest request
    # ("the same one I'm always on" is a standing preference, below)
    copies = SAME.search(query) and not USUALLY.search(query)
    # "which friend has the same birthday as me?" asks; "ok do what you did for Spotify" copies
    if copies and REMINDED.search(query) and not COPIED.search(query):
        copies = None
    asks_again = bool(AGAIN.search(query)) and not recurs(query)  # not "forgot my pin again"
    repeat = (asks_again and not REMINDED.search(query)) or copies
    if FORMER_THING.search(query) and not repeat:  # "my previous teacher": a former state
        return Resolution("former"), [*history, *turns], None
    pronoun = PRONOUN.search(query)
    # "first, would they…": "first" is no ordinal
    person = pronoun or re.search(r"(?<=\bfirst)\W+(?:\w+ )?(they|them)\b", query, re.I)
    if (match := PREVIOUS.search(query)) and not (match.group(1).lower() == "first" and person
                                                  and not named_before(query, person.start(), participants)):  # fmt: skip
        nth = ORDINAL.search(query)
        return _previous(turns, (nth or match).group(1)), turns, None
    if repeat:
        again = _again(query, turns)
        if not again.turns and history:  # "the same again", nothing asked yet in this session
            return _last_time(query, history), [*history, *turns], None
        return again, [*history, *turns], None
    that = THAT.search(query)
    if (match := pronoun) and named_before(query, match.start(), participants, turns):
        match = None  # "What has Melanie done with her family?": "her" is Melanie, named here
    if match and (not that or match.start() < that.start()):  # the cue said first leads
        return _pronoun(turns, match.group(1), participants, named_in(query, match.end())), turns, gender_of(match.group(1))  # fmt: skip
    if that and that.group(1).lower() not in STOP:
        return _that(turns, that.group(1).lower()), turns, None
    if match:
        return _pronoun(turns, match.group(1), participants, named_in(query, match.end())), turns, gender_of(match.group(1))  # fmt: skip
    they = THEY.search(query)
    they = they if they and not named_before(query, they.start(), participants, turns) else None
    if asks_again and not they:  # reminded ("what was the time again?"): a guess
        return _again(query, turns), turns, None
    if BIT.search(query):
        return Resolution("that"), turns, None
    if DESCRIBED.search(query) or (DESCRIBED_SOFT.search(query) and not QUESTION.search(query)):
        return Resolution("one"), turns, None
    if DEMONSTRATIVE.search(query):
        said = latest(turns, lambda t: t.role == "assistant" and substantive(t))
        return Resolution("that", [] if said is None else [turns[said]]), turns, None
    if they:
        return _pronoun(turns, "they", participants), turns, "they"
    return Resolution(), [], None

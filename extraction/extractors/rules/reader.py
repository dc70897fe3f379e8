"""Reading a user turn in its dialogue: which values it states, for which fields, how surely.

Every typed value in the turn is a candidate for the fields of its type. A field earns points
when the sentence names it (its words, rarer ones weigh more), when the value's own unit names
it ("60 days", "three of us"), when the sentence means it (the embedder), when the agent just
asked about it, and when it is the only field of that type. The best field takes the value if
its points pass a bar. A value someone else owns ("my cousin paid 1.1 crore"), a value negated
in place ("90 days, not 60") or one asked about ("is it under 40 lakh?") takes none.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from extraction.extractors.base import WindowTurn
from extraction.extractors.rules.acts import (
    CORRECTION,
    accepts,
    clauses,
    denies,
    hedged,
    is_question,
    moved_to,
    own_after,
    tentative,
    third_party,
    to_come,
    wish_points,
)
from extraction.extractors.rules.date_fields import (
    SAME_DAY,
    near_known,
    said_back_writes,
    weakly_moved,
    wrong_time,
)
from extraction.extractors.rules.fields import Profile, cue_score, similarity
from extraction.extractors.rules.measures import (
    a_stretch_of_its_period,
    in_field_unit,
    in_thousands,
    unit_points,
)
from extraction.extractors.rules.mentions import Mention, its_thing, lead_in, names_one, own_words
from extraction.extractors.rules.prompts import Prompt
from extraction.extractors.rules.states import status_said
from extraction.extractors.rules.stretch import ceiling, over_limit

ACCEPT = 1.0  # points a field needs to take a value
ANSWER_BONUS = 1.6  # the agent just asked about this field (first sentence of the reply)
LATE_ANSWER_BONUS = 0.6  # … in a later sentence of the reply
ONLY_FIELD_BONUS = 0.6  # the schema's only field of this type
SIMILARITY_WEIGHT = 1.2
PROPOSAL_BONUS = 2.0  # the user repeats a value the agent proposed
TOPIC_BONUS = 1.0
STATE_BONUS = 1.0  # a status said as where its thing stands (states.status_said)
MOVED_BONUS = 1.0  # "moved it to Friday the 13th": a new date for a field that has one
_ELLIPSIS = re.compile(r"^\W*(?:and\s+|but\s+)?(?:mine|ours)\b", re.I)  # not "hers": someone else's
SAME_DAY_PENALTY = 0.8  # "today", "tonight": a time of day more often than a field's date  # the agent's turn or the sentence names one of the field's things


@dataclass
class Claim:
    profile: Profile
    value: Any
    source: str
    turns: list[WindowTurn]
    order: tuple[int, int]
    why: dict[str, Any]
    qualifier: str | None = None
    clause: str = ""
    span: tuple[int, int] = (0, 0)

    @property
    def key(self) -> str:
        return f"{self.profile.key}:{self.qualifier}" if self.qualifier else self.profile.key


@dataclass
class Dropped:
    value: Any
    reason: str
    turn: WindowTurn
    profile: Profile | None = None  # the field it would have been (someone else's value)


@dataclass
class Context:
    """What one user turn is read with."""

    index: int
    turn: WindowTurn
    prompt: Prompt | None
    fields: list[Profile]
    vectors: dict[str, np.ndarray]
    dropped: list[Dropped] = field(default_factory=list)
    mentions: dict[str, list[Mention]] = field(default_factory=dict)  # sentence → its values
    offered: list[Claim] = field(default_factory=list)  # values the user asks for ("Monday?")
    things: dict[str, list[str]] = field(
        default_factory=dict
    )  # field → the things it has facts per
    relations: dict[str, str] = field(default_factory=dict)  # "wife" → "Sneha"
    current: dict[str, str] = field(default_factory=dict)  # the facts as read so far
    reply: WindowTurn | None = None  # the agent's next turn ("Morning Declan."), if it is next

    def said_before(self, mention: Mention, sentence: str) -> list[Mention]:
        return [m for m in self.mentions.get(sentence, []) if m.start < mention.start]

    @functools.cached_property
    def words(self) -> frozenset[str]:
        """Every field's words: a capitalised one with "'s" is no one's ("Budget's 15k")."""
        return frozenset(w for p in self.fields for w in p.words)


_TOLD_A_LIE = re.compile(r"\b(?:no|sorry|wait|i tell a lie|scratch that|i mean|actually)\W*$", re.I)
_MAKE_THAT = re.compile(r"\W*(?:(?:actually|sorry|no|oh|wait)\W+)*(?:make (?:that|it)|"
                        r"scratch that|i mean|i meant|correction)\b", re.I)  # fmt: skip
# "not more than 1,150", "no higher than 40", "nothing over 2 lakh": a bound, not a negation.
_BOUND = re.compile(
    r"\b(?:not|no|nothing|never)\s+(?:a\s+\w+\s+)?(?:more|higher|greater|bigger|less|lower|fewer|"
    r"smaller|over|above|beyond|under|below|past|exceeding)(?:\s+than)?\s+(?:about\s+|around\s+)?$"
)


# "Online didn't work for us", "Tuesday doesn't suit", "Monday I cannot": turned down after
_NO_GOOD = re.compile(
    r"\s*(?:(?:just|really)\s+)?(?:didn't|doesn't|don't|won't|isn't|wasn't|is not|was not|"
    r"will not|does not|did not)\s+(?:really\s+)?(?:work|suit|an option|good|possible|help)"
    r"|,?\s*(?:i|we)\s+(?:can't|cannot|can not|couldn't)(?=\s*(?:[,.;!]|$|make it))", re.I)  # fmt: skip
# "800 is above our budget", "£2,000's too much": a value turned down as it is said.
_TOO_MUCH = re.compile(
    r"\s*(?:(?:an hour|a month|a week|a night|per \w+)\s+)?(?:is|'s|are|was|sounds|seems)\s+"
    r"(?:(?:a bit|a little|way|far|much|well|just)\s+)?(?:too (?:much|high|expensive|steep|"
    r"pricey|dear|far|late|early)|(?:above|over|beyond|outside|out of)\s+(?:our|my|the)\s+"
    r"(?:budget|range|price range|limit))",
    re.I,
)


def put_up(ctx: Context, mention: Mention) -> bool:
    """Whether the agent's turn put the value up: "800 is above our budget" turns the agent's
    800 down; "£1,200 a month is too much" of one's own rent does not."""
    prompt = ctx.prompt
    return prompt is not None and any(
        same_value(m.value, mention.value) for _, m, _ in prompt.proposals + prompt.stated
    )


_NEGATED = re.compile(r"\b(not|never|isn't|wasn't|no longer|instead of|rather than|except|no need for|"
                      r"no)\s+(?:\w+\s+){0,2}$")  # fmt: skip


def negated(clause: str, start: int) -> bool:
    before = clause[:start].lower()
    return not _BOUND.search(before) and bool(_NEGATED.search(before))


def score(ctx: Context, profile: Profile, mention: Mention, clause: str, sentence: str,
          first_sentence: bool) -> tuple[float, dict[str, Any]]:  # fmt: skip
    """Points for ``profile`` taking ``mention``, with the reasons."""
    own = own_words(ctx.mentions.get(sentence, []), mention, clause, sentence, ctx.fields)
    words, word = cue_score(profile, own)
    if words < 0.3 and own == clause and not its_thing(profile, sentence[: mention.start]):
        wider, wider_word = cue_score(profile, sentence)
        if wider * 0.6 > words:
            words, word = wider * 0.6, wider_word
    why: dict[str, Any] = {}
    points = words + wish_points(profile.about, own)  # "and I'd like it raised to £1,000"
    if word:
        why["word"] = word
    earlier = [m for m in ctx.said_before(mention, sentence) if m.type == mention.type]
    if earlier and clause == sentence == own:  # "out on the 12th of March, back on the 19th"
        lead, lead_word = cue_score(profile, lead_in(sentence, earlier[-1].end, mention.start))
        points += lead
        if lead_word:
            why["lead-in"] = lead_word
    vector = ctx.vectors.get(sentence)
    if vector is not None:
        sim = similarity(profile, vector)
        points += SIMILARITY_WEIGHT * sim
        why["similarity"] = round(sim, 2)
    if mention.type in ("number", "money"):
        unit = unit_points(profile, mention)
        if unit:
            why["unit"] = mention.after
        points += unit
    prompt = ctx.prompt
    offered = prompt is not None and any(
        o is profile and m.type == mention.type for o, m, _ in prompt.proposals
    )
    if prompt is not None and (prompt.asked or offered):
        best = prompt.best(mention.type)
        if best is profile or offered:  # asked about it, or offered a value of it: a counter-offer
            # the reply's first value of the type answers; later ones less ("70, two people dropped")
            # one value per thing: "Aditi is 7 and Vihaan just turned 3" answers twice
            first = first_sentence and (profile.qualified or not any(
                m.type == mention.type and m.start < mention.start
                for m in ctx.said_before(mention, sentence)
            ))  # fmt: skip
            # "He earns 52k. Mine went up to 74k": a possessive that stands for what was asked
            bonus = ANSWER_BONUS if first or _ELLIPSIS.match(sentence) else LATE_ANSWER_BONUS
            points += bonus
            why["answers"] = (
                prompt.asked[0][2] if prompt.asked and prompt.asked[0][0] is profile else "question"
            )
    today = ctx.turn.occurred_at.date()  # the only field that can take it: no last visit ahead
    if [p for p in ctx.fields if p.type == profile.type and not (
            mention.type == "date" and wrong_time(p.key, p.about, str(mention.value), today))] == [profile]:  # fmt: skip
        points += ONLY_FIELD_BONUS
    asked = prompt.turn.text if prompt else ""
    if status_said(profile, ctx.fields, mention, sentence, asked, ctx.current, ctx.things):
        points += STATE_BONUS  # "I got my money back": the one status that can be refunded
        why["state"] = mention.how
    if (
        mention.type in ("date", "money", "number")
        and profile.key in ctx.current
        and moved_to(sentence[: mention.start])
    ):
        points += MOVED_BONUS
        why["moved"] = True
    if mention.type == "date" and ("answers" not in why or (prompt and prompt.kind == "yn")) and SAME_DAY.search(mention.how):  # fmt: skip
        # "after 6 today works" says when, not which date ("yeh. but dont call me today": no answer)
        points -= SAME_DAY_PENALTY * (2 if "answers" in why else 1)
    known = ctx.things.get(profile.key, [])  # its things, or the people it has facts of
    # a person named is a topic only with the field's own word ("her salary is 13.5 now")
    if (
        profile.qualified
        and (profile.qualifier_kind == "word" or word)
        and names_one(
            [*profile.qualifiers, *known], (prompt.turn.text if prompt else "") + " " + sentence
        )
    ):
        points += TOPIC_BONUS  # "a new sertraline prescription" — "upped it to 100"
        why["topic"] = "names one of its things"
    if prompt is not None:
        for owner, proposed, _ in prompt.proposals:
            if owner is profile and same_value(proposed.value, mention.value):
                points += PROPOSAL_BONUS
                why["repeats proposal"] = True
    return points, why


def same_value(a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return a.strip().lower() == b.strip().lower()
    return bool(a == b)


def source_of(ctx: Context, profile: Profile, value: Any, clause: str) -> str:
    """confirmed: the user accepts the value the agent proposed; inferred: hedged."""
    prompt = ctx.prompt
    agreed = prompt is not None and accepts(ctx.turn.text) and not denies(ctx.turn.text)
    if (
        agreed
        and prompt is not None
        and any(o is profile and same_value(m.value, value) for o, m, _ in prompt.proposals)
    ):
        return "confirmed"
    return "inferred" if hedged(clause) else "explicit"


def typed_claims(
    ctx: Context, sentence_mentions: list[tuple[str, int, list[Mention]]]
) -> list[Claim]:
    """The claims a user turn's typed values make (money, numbers, dates, enum choices)."""
    out: list[Claim] = []
    ctx.mentions = {sentence: mentions for sentence, _, mentions in sentence_mentions}
    for s_index, (sentence, s_start, mentions) in enumerate(sentence_mentions):
        if _asks(ctx, sentence):
            # "Monday is possible?": the user's own offer, written if the agent takes it up
            for mention in (
                m for m in mentions if not negated(sentence, m.start)
            ):  # "instead of 15"
                candidates = [p for p in ctx.fields if p.type == mention.type and (
                    mention.type != "enum" or mention.value in (p.field.get("choices") or []))]  # fmt: skip
                scored = sorted(((*score(ctx, p, mention, sentence, sentence, s_index == 0), p)
                                 for p in candidates), key=lambda r: -r[0])  # fmt: skip
                asking = clauses(sentence)[-1][0] <= mention.start  # in the clause that asks
                # a lower bar: the agent taking it up is the rest of the evidence
                if scored and asking and scored[0][0] >= ACCEPT / 2 and not third_party(sentence):
                    points, why, best = scored[0]
                    why.update(
                        {
                            "cue": mention.how,
                            "points": round(points, 2),
                            "offered by the user": True,
                        }
                    )
                    ctx.offered.append(Claim(best, mention.value, "explicit", [ctx.turn],
                                             (ctx.index, s_start + mention.start), why, clause=sentence))  # fmt: skip
                else:
                    ctx.dropped.append(Dropped(mention.value, "said in a question", ctx.turn))
            continue
        spans = clauses(sentence)
        for mention in mentions:
            a, b = next(((a, b) for a, b in spans if a <= mention.start < b), (0, len(sentence)))
            clause = sentence[a:b]
            if (negated(sentence, mention.start) or _NO_GOOD.match(sentence, mention.end)
                    or to_come(sentence, mention.start, mention.end)
                    or (_TOO_MUCH.match(sentence, mention.end) and put_up(ctx, mention))):  # fmt: skip
                ctx.dropped.append(Dropped(mention.value, "negated", ctx.turn))
                continue
            over = over_limit(sentence, mention.end)  # "800 is above our budget"
            candidates = [p for p in ctx.fields if p.type == mention.type and (
                mention.type != "enum" or mention.value in (p.field.get("choices") or []))
                and not (over and ceiling(p))
                and not (mention.type == "date" and wrong_time(p.key, p.about, str(mention.value), ctx.turn.occurred_at.date()))
                and not a_stretch_of_its_period(p, mention)]  # fmt: skip
            if not candidates:
                continue
            # the first sentence with a value ("Yes. It was 85."), or "Actually, make that …"
            leading = not any(m.type == mention.type for _, _, ms in sentence_mentions[:s_index] for m in ms) or bool(CORRECTION.match(sentence)
                      or (s_index and _TOLD_A_LIE.search(sentence_mentions[s_index - 1][0])))  # fmt: skip
            scored = sorted(((*score(ctx, p, mention, clause, sentence, leading), p) for p in candidates),
                            key=lambda r: -r[0])  # fmt: skip
            points, why, best = scored[0]
            if "repeats proposal" in why and denies(ctx.turn.text) and not accepts(ctx.turn.text):
                ctx.dropped.append(Dropped(mention.value, "the proposal, refused", ctx.turn))
                continue  # "Can't do Tuesday."
            owner = third_party(clause, ctx.words, best.qualified)
            if owner and owner.start() < mention.start - a and not _subject_of(best, clause, owner, ctx.relations) \
                    and points >= ACCEPT / 2 and "repeats proposal" not in why \
                    and not own_after(clause, owner.end(), mention.start - a):  # fmt: skip
                ctx.dropped.append(
                    Dropped(
                        mention.value,
                        f"someone else's ('{owner.group(0)}')",
                        ctx.turn,
                        best if why.get("word") or why.get("unit") else None,
                    )
                )
                continue
            before = [c for c in out if c.profile.type == mention.type and c.span[1] < s_start]
            if points < ACCEPT and before and _MAKE_THAT.match(sentence):  # "…to £5,000.
                points, best = ACCEPT, before[-1].profile  # Actually, make that £4,000"
                why["corrects"] = str(before[-1].value)
            if points < ACCEPT or weakly_moved(mention, why, ctx.current.get(best.key), points):
                near = said_back_writes(mention, points / ACCEPT, sentence, best.words)
                ctx.dropped.append(Dropped(mention.value, f"no field: best {best.key} {points:.2f}" + " (written if the agent says it back)" * near, ctx.turn))  # fmt: skip
                ctx.offered += [Claim(best, mention.value, "explicit", [ctx.turn], (ctx.index, s_start + mention.start), {**why, "near": True}, clause=sentence)] * near  # fmt: skip
                continue
            owner = third_party(clause, ctx.words, best.qualified)
            local = mention.start - a  # the value's place in its clause
            if (
                owner
                and owner.start() < local
                and best.qualifier_kind != "name"  # "my son Tobi" is who a child's fact is about
                and not _subject_of(best, clause, owner, ctx.relations)  # "my mother is 62"
                and "repeats proposal" not in why
                and not own_after(clause, owner.end(), local)
            ):
                ctx.dropped.append(
                    Dropped(mention.value, f"someone else's ('{owner.group(0)}')", ctx.turn, best)
                )
                continue
            why.update({"cue": mention.how, "points": round(points, 2)})
            asked = ctx.prompt and ("answers" in why or "repeats proposal" in why)
            turns = [ctx.prompt.turn, ctx.turn] if ctx.prompt and asked else [ctx.turn]
            value = in_field_unit(best, mention)
            if value != mention.value:
                why["converted"] = f"{mention.value} {mention.after.split()[0]}"
            if mention.type == "date":  # "the 13th" for a flight held for the 12th of a later month
                phrase, today = sentence[mention.start : mention.end], ctx.turn.occurred_at.date()
                value = near_known(value, phrase, ctx.current.get(best.key), today,
                                   ctx.prompt.turn.text if ctx.prompt else "", ctx.turn.text)  # fmt: skip
                why.update({"moved within its month": True} if value != mention.value else {})
            if in_thousands(best, mention, ctx.current):
                value = {**value, "amount": value["amount"] * 1000}
                why["converted"] = f"{mention.value['amount']:g}: thousands, as the field's amounts"
            out.append(Claim(best, value, source_of(ctx, best, mention.value, clause),
                             turns, (ctx.index, s_start + mention.start), why,
                             clause=clause, span=(s_start + mention.start, s_start + mention.end)))  # fmt: skip
    return out


def _subject_of(
    profile: Profile, clause: str, owner: re.Match[str], relations: dict[str, str]
) -> bool:
    """Whether the other person is whom the field keeps facts about: a child named ("my son
    Tobi"), a relation the field lists ("my mother", for member_age:mother)."""
    listed = any(q.lower() in owner.group(0).lower() for q in profile.qualifiers)
    if profile.qualifier_kind != "name":
        return listed  # "my mother is 62", for member_age:mother
    named = re.match(r"\s*(?:,|is\b|'s\b)?\s*[A-Z][a-z]+", clause[owner.end() :])  # "my son Tobi"
    pronoun = owner.group(0).lower() in ("he", "she", "him", "her", "his")  # the one just named
    known = any(re.search(rf"\b{r}\b", owner.group(0), re.I) for r in relations)  # "my wife"
    return bool(named or listed or pronoun or known or re.match(r"[A-Z][a-z]+'s", owner.group(0)))


def _asks(ctx: Context, sentence: str) -> bool:
    """Asks ("Monday is possible?"); not "It's 50 lakhs, right?" nor "Maybe 8k?" (unsure)."""
    states = re.search(r"\b(right|correct|isn't it|no)\?\s*$", sentence, re.I)
    answering = ctx.prompt is not None and bool(ctx.prompt.asked)
    return is_question(sentence) and not states and not tentative(sentence, answering)

"""The offline default extractor: it reads dialogue with deterministic rules and the bundled
embedder, with no network.

Facts come from what the user says, read against what the agent just said: the agent's
question tells which field a short reply answers ("Which neighbourhoods?" — "Mostly Kothrud."),
its proposal is confirmed by a yes and dropped by a no or by silence. Each typed value in a
user turn goes to the field whose words, examples, unit and meaning fit it best, or to none (a
cousin's flat, a colleague's offer, a booking reference). Hedges are ``inferred``; a correction
keeps the later value; a field with one fact per named thing gets its qualifier from the
sentence or from a reference to one said before ("the same for the other account"). Every fact
carries why it was written (``FactCandidate.why``): the cue, the field's points, the words and
similarity that decided it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from core.text import sentences
from extraction.extractors.base import AcuCandidate, FactCandidate, Usage, WindowTurn
from extraction.extractors.rules.acts import DEFERS, accepts, acknowledges, denies
from extraction.extractors.rules.affiliation import affiliation_claims
from extraction.extractors.rules.amounts import Amount, money_in
from extraction.extractors.rules.aside import told_before_asking
from extraction.extractors.rules.booleans import boolean_claims
from extraction.extractors.rules.code_fields import as_the_field_asks
from extraction.extractors.rules.currency import (
    clock_currency,
    currencies_named,
    default_currency,
    dollar_meant,
    fill_currency,
    local_currency,
)
from extraction.extractors.rules.date_fields import a_step_before, another_occasion, in_held_month
from extraction.extractors.rules.embedded import embed_sentences
from extraction.extractors.rules.ended import ended_things
from extraction.extractors.rules.fields import Profile, content_words, profiles
from extraction.extractors.rules.keep import (
    a_things_code,
    cited_alone,
    fills_only,
    holds,
    implausible,
    keep_last_per_field,
    one_reading,
    read_back_of_another,
    said_as_a_code,
)
from extraction.extractors.rules.listed import party_claims, recount
from extraction.extractors.rules.meant import meant_choice
from extraction.extractors.rules.measures import counted_in, money_said
from extraction.extractors.rules.mentions import A_BARE_NO, asks_having, typed_mentions
from extraction.extractors.rules.naming import capitalise_names, unpack_names
from extraction.extractors.rules.owners import (
    WORD,
    agreed_on,
    inside,
    nth_offer,
    picked,
    snap_to_offer,
    taken_up,
)
from extraction.extractors.rules.prompts import CLOSER, Prompt, proposes, read_prompt
from extraction.extractors.rules.qualify import Qualifiers
from extraction.extractors.rules.ranges import range_claims, ranged
from extraction.extractors.rules.reader import Claim, Context, typed_claims
from extraction.extractors.rules.readings import near_held
from extraction.extractors.rules.relatives import kin_claims
from extraction.extractors.rules.spelled import spell_out
from extraction.extractors.rules.stretch import stretch
from extraction.extractors.rules.texts import (
    answer_claims,
    cue_claims,
    name_claims,
    shaped_claims,
)
from extraction.extractors.rules.things import in_a_things_value, qualified_text_claims
from extraction.extractors.rules.told import updates
from extraction.extractors.rules.typos import mend_typing
from extraction.extractors.rules.units import compress
from extraction.extractors.rules.withdrawn import NEVER_MIND, withdrawn

__all__ = ["RulesExtractor"]


class RulesExtractor:
    name = "rules"

    def extract_facts(self, turns: list[WindowTurn], fields: list[dict[str, Any]], usage: Usage,
                      known: Mapping[str, str] | None = None) -> list[FactCandidate]:  # fmt: skip
        fields_ = profiles(fields) if fields else []
        if not fields_ or not turns:
            return []
        # "sixty-two thousand" as digits, "thursdys" and "dont" as meant
        turns = [replace(t, text=mend_typing(spell_out(t.text))) for t in turns]
        if any(p.qualifier_kind == "name" for p in fields_ if p.qualified):
            turns = unpack_names(capitalise_names(turns))  # "my wife sneha", "Leo's one"
        vectors = embed_sentences(turns, fields_)
        current: dict[str, str] = dict(known or {})
        qualifiers = Qualifiers(fields_, current, turns)
        clock = clock_currency(turns)  # the user's clock's, computed once for both below
        local = local_currency(turns, current, clock)  # the place's, or the clock's
        dollar = dollar_meant(turns, current, local)  # what "$" is here, when not the US dollar
        named = currencies_named(turns, dollar)  # the currencies the conversation names
        reader = _Reader(fields_, vectors, default_currency(current, fields, named, clock))
        claims: list[Claim] = []
        prompt: Prompt | None = None
        answered: Prompt | None = None  # the agent turn the user's last turn answered
        deferred: Prompt | None = None  # a yes/no question the user put off ("let me think")
        deferred_at = 0
        foreign: Profile | None = None  # the field of someone else's value the user just said
        offered: list[Claim] = []  # what the user's last turn asked for, waiting for the agent
        # the session; where the user's last turn's claims begin, and memory before them
        session, mark, held = None, 0, dict(current)
        for index, turn in enumerate(turns):
            if turn.session_id != session:
                prompt, session, offered, deferred, answered = None, turn.session_id, [], None, None
                mark = len(claims)  # a new session calls off nothing of the last
            if turn.role == "assistant":
                claims += [c for c in taken_up(offered, turn, index) if not implausible(c)]
                offered = []
                reader.note_money(turn.text)
                before = turns[index - 1].text if index and turns[index - 1].role == "user" else ""
                prompt = read_prompt(
                    turn, fields_, vectors, reader.currency, qualifiers.vocab, before
                )
                stretch(prompt, fields_, current, reader.currency)  # a price above the ceiling
                ranged(prompt, fields_)  # "21 April to 5 May": a start field's and an end's
                near_held(prompt, fields_, current)  # "Hop on... 36.1.": a held weight again
                # "my wife has 14" — "And you?": the same field, the user's own
                if foreign is not None and _AND_YOU.search(turn.text):
                    prompt.asked.insert(0, (foreign, 2.0, "'and you?' after someone else's"))
                    prompt.kind = prompt.kind or "wh"
                qualifiers.hear(turn.text)
                continue
            if turn.role != "user":
                continue
            if NEVER_MIND.match(turn.text):  # "Actually never mind, I found it": the request is off
                claims = withdrawn(claims, mark, current, held)
            mark, held = len(claims), dict(current)
            if (
                prompt is None
                and index
                and turns[index - 1].role == "user"
                and _AGAIN.match(turn.text)
            ):
                prompt = answered  # "19,450" — "sorry, I meant 9,450": the same question again
            if (
                deferred
                and index - deferred_at <= 6
                and not (prompt and prompt.kind)
                and _DECIDED.match(turn.text)
            ):
                prompt, deferred = deferred, None  # "Assemble it?" — "let me think" … "ok yes"
            ctx = Context(
                index,
                turn,
                prompt,
                fields_,
                vectors,
                things=qualifiers.vocab,
                relations=qualifiers.relations,
                current=current,
                reply=_reply(turns, index),
            )
            found = keep_last_per_field(
                fills_only(qualifiers.settle(reader.read(ctx, current, qualifiers), ctx), current),
                ctx.turn.text,
                current,
            )
            found = [c for c in range_claims(ctx, found) if not implausible(c)]  # before memory
            usage.notes += [{"kind": "not written", "value": str(d.value)[:200], "detail": d.reason,
                             "turns": [d.turn.ref()]} for d in ctx.dropped]  # fmt: skip
            for claim in found:
                current[claim.key] = str(claim.value)
            claims += found + ended_things(ctx, current)  # "Actually I stopped it last week"
            offered = [
                c
                for c in ctx.offered
                if not c.profile.qualified
                and c.key not in {f.key for f in found if f.order > c.order}  # "booked on the 27th"
                and not (  # "Can't do Tuesday. Wednesday?" to an exit interview offered Tuesday
                    c.profile.type == "date"
                    and prompt
                    and not c.why.get("word")
                    and another_occasion(prompt.turn.text, c.profile.words)
                )
            ]
            foreign = next((d.profile for d in reversed(ctx.dropped) if d.profile), None)
            if prompt and prompt.kind == "yn" and DEFERS.search(turn.text):
                deferred, deferred_at = prompt, index
            answered, prompt = prompt, None
        if prompt is not None and turns[-1].role == "assistant":  # the window ends on the agent:
            last = replace(turns[-1], role="user", text="")  # what it said stands unchallenged
            ctx = Context(len(turns), last, prompt, fields_, vectors, things=qualifiers.vocab,
                          relations=qualifiers.relations, current=current, reply=None)  # fmt: skip
            claims += [
                c
                for c in fills_only(qualifiers.settle(_confirmations(ctx, []), ctx), current)
                if not implausible(c)
            ]
        claims += [c for c in qualifiers.the_only(claims) if not implausible(c)]
        fill_currency(claims, named, current, dollar, local)
        codes = qualifiers.coded, qualifiers.vocab
        return [_fact(c) for c in claims if not said_as_a_code(c, turns) and not a_things_code(c, *codes)]  # fmt: skip

    def compress(self, segment: list[WindowTurn], usage: Usage) -> list[AcuCandidate]:
        return compress(segment)


class _Reader:
    def __init__(
        self, fields: list[Profile], vectors: dict[str, np.ndarray], currency: str | None
    ) -> None:
        self.fields = fields
        self.vectors = vectors
        self.currency = currency
        self.money: Amount | None = None

    def note_money(self, text: str) -> None:
        found = [a for a in money_in(text, self.currency) if a.explicit]
        if found:
            self.money = found[-1]
            self.currency = found[-1].currency or self.currency

    def read(self, ctx: Context, current: dict[str, str], qualifiers: Qualifiers) -> list[Claim]:
        prompt = ctx.prompt
        asked_money = bool(
            prompt
            and (
                (prompt.asked and prompt.asked[0][0].type == "money")
                or any(p.type == "money" for p, _, _ in prompt.proposals)
            )
        )
        # "Current mileage?" — "like 87k": a count in thousands, not money
        counted = bool(prompt and prompt.asked and prompt.asked[0][0].type == "number")
        having = bool(prompt and asks_having(prompt.turn.text))  # "Any insurance?" — "Nope."
        said: list[tuple[str, int, Any]] = []
        offset = 0
        context = self.money or counted_in(
            prompt.asked[0][0] if prompt and prompt.asked else None, current
        )
        for sentence in sentences(ctx.turn.text):
            at = max(ctx.turn.text.find(sentence, offset), 0)
            offset = at
            money_before = any(m.type == "money" for _, _, found in said for m in found)
            # "He earns 52k. Mine went up to 74,000": money again, once the reply spoke of it
            valued = any(
                found for _, _, found in said
            )  # "Yes. It was 85 …": the first value answers
            bare = (  # "They knocked 50 off the excess": a money field named is money said
                (asked_money and not valued) or money_said(sentence, self.fields) or money_before
                or any(p.type == "money" and p.key_words & set(content_words(sentence))
                       for p in self.fields)
            )  # fmt: skip
            found = typed_mentions(sentence, ctx.turn.occurred_at.date(), self.fields, self.currency,
                                   bare_money=bare, context=context, counted=counted and not asked_money)  # fmt: skip
            said.append(
                (sentence, at, [m for m in found if having or not m.how.startswith(A_BARE_NO)])
            )
        self.note_money(ctx.turn.text)
        if prompt and prompt.proposals:  # "Thursday please": the Thursday offered
            said = [
                (s, at, [snap_to_offer(m, s, prompt.proposals) for m in found])
                for s, at, found in said
            ]
        claims = one_reading(typed_claims(ctx, said))
        recount(claims, ctx.turn.text)  # "How many travelling?" — "me, my wife and our two kids"
        first = len(said[0][0]) if said else 0
        typed_first = any(c.span[0] < first and "answers" in c.why for c in claims)  # with a value
        taken = {c.profile.key for c in claims if not c.profile.qualified}
        for extra in (name_claims(ctx), affiliation_claims(ctx, taken), kin_claims(ctx, taken),
                      party_claims(ctx, taken)):  # fmt: skip
            claims += [c for c in extra if c.profile.key not in taken]
        taken |= {c.profile.key for c in claims}
        claims += shaped_claims(ctx, taken)
        claims += boolean_claims(ctx, taken)
        named = qualified_text_claims(qualifiers, ctx, taken)
        claims = [c for c in claims if not in_a_things_value(c, named)] + named
        taken |= {c.profile.key for c in named}
        claims += answer_claims(ctx, taken, current, typed_first)
        taken |= {c.profile.key for c in claims}
        claims += cue_claims(ctx, taken, current)
        # "And return, 4730882214.": no count, and no block on the agent's count after it
        claims = [c for c in claims if not a_things_code(c, qualifiers.coded, qualifiers.vocab)]
        claims += _confirmations(ctx, claims)
        claims += meant_choice(ctx, claims)  # "So bones and joints, I suppose?": orthopaedics
        return [cited_alone(c, prompt) for c in claims]


# A value said as the new one: "the total is €1,350 instead of €1,500", "now £118".
_AND_YOU = re.compile(
    r"(?:^|[.!?]\s+)(?:and|what about|how about)\s+(?:you|yourself|yours)\s*\?\s*$", re.I
)
# A decision said later on a question put off: "ok yes, go on then", "no, leave it".
_DECIDED = re.compile(
    r"^\W*(?:(?:ok|okay|right|hmm)\W+)?(?:yes|yeah|yep|no|nope|go on|go ahead|do it)\b", re.I
)
_AGAIN = re.compile(
    r"\W*(?:(?:sorry|oops)\W*)*(?:i mean|i meant|correction|no wait|typo|make that)\b"
    r"|\W*(?:sorry|oops)\W*\d",  # "sorry, 9,450"
    re.I,
)


def _confirmations(ctx: Context, claims: list[Claim]) -> list[Claim]:
    """The agent's proposals the user accepts without repeating them ("Yes, that's fine."), and
    what the agent said of the user ("Your new card is active") unless the user objects:
    confirmed when acknowledged, inferred when passed over."""
    prompt = ctx.prompt
    if prompt is None:
        return []
    text = ctx.turn.text
    refused = denies(text)
    agreed = accepts(
        text, weak=bool(prompt.kind) or prompt.offers
    )  # "Great." accepts an offer, not a statement
    stated = {c.profile.key for c in claims}
    out: list[Claim] = []
    offered = prompt.proposals if prompt.kind != "alt" and agreed and not refused else []
    if (nth := nth_offer(prompt.proposals, text)) and not refused:  # "the second one"
        offered = [nth]
    # "Your debit is £145 a month. I'd suggest £118." — "Yes": the value its sentence offers,
    # unless the reply picks the other by its words ("… to your card. Or store credit?" — "card")
    said = set(WORD.findall(text.lower())) - {"take"}
    offered = sorted(offered, key=lambda o: (not picked(o[1], offered, said),
                                             not proposes(o[1].sentence or "")))  # fmt: skip
    if not offered and prompt.kind != "alt":  # "the simva yeah": one of them, by its thing
        offered = [(p, m, c) for p, m, c in prompt.proposals if p.qualified and agreed_on(m, text)]
    # "¥8,800, so ¥2,640 per session": the last said; "conditionally approved" holds "approved"
    # (things under one key keep their order: each value goes with the thing said beside it)
    kept = [t for t in prompt.stated if not inside(t, prompt.stated)]
    if refused and not any(
        CLOSER.match(s) for s in sentences(prompt.turn.text)
    ):  # "No" to "Anything else?"
        # "€420 a week. Do you want the waiver? — no waiver": the rate still holds
        asked = {p.key for p, _, _ in prompt.asked[:1]}
        kept = [t for t in kept if asked and t[0].key not in asked
                and not (t[1].sentence or "").rstrip().endswith("?")] + told_before_asking(prompt)  # fmt: skip
    told = [t for t in kept[::-1] if not t[0].qualified] + [t for t in kept if t[0].qualified]
    for profile, mention, cue in offered + told:
        fills = any(mention is m for m in prompt.given) and not updates(
            profile, mention.sentence or ""
        )  # a value the agent gives by the field's name fills an empty field only (a
        # measurement read out in the field's unit updates it: "37.9 kilograms"); one of a
        # thing, that thing's ("three passengers" of the second ticket), once it is settled
        if fills and not profile.qualified and profile.key in ctx.current:
            continue
        if profile.key in stated or any(
            o.profile is profile and not profile.qualified for o in out
        ):
            continue
        offer = any(o is profile and m is mention for o, m, _ in offered)
        mention = in_held_month(mention, ctx.current.get(profile.key), ctx.turn.occurred_at)
        if cue == "the field asked about" and a_step_before(mention, ctx.current.get(profile.key), prompt.turn.text, ctx.turn.occurred_at):  # fmt: skip
            continue  # "They have a tasting slot a week on Saturday?" with the wedding held ahead
        if holds(ctx.current, profile, mention, offered + told) and not (
            offer and (mention.sentence or "").rstrip().endswith("?")
        ):  # the agent repeating what memory holds adds nothing (nor a new source), unless it
            continue  # asks it back ("So 25 lakh?" — "Yes": a hedge confirmed)
        if (
            not offer
            and read_back_of_another(ctx.current, profile, mention.value)
            and not updates(profile, mention.sentence or "")
        ):  # "Noted, two freelancers.": another field's value, read back (not "your new limit
            continue  # of £4,000 is approved", the requested limit granted)
        confirmed = offer or acknowledges(text) or agreed
        how = ("accepts the agent's proposal" if offer else "the agent said it; the user acknowledged"
               if confirmed else "the agent said it, unchallenged")  # fmt: skip
        turns = [prompt.turn, ctx.turn] if offer else [prompt.turn]  # a "thanks" is no source
        repeats = profile.qualified and not proposes(mention.sentence or "?")  # a read-back
        why = {"cue": how, "proposal": mention.how, "field": cue, "agent": True, "fills": fills,
               "repeats": repeats}  # fmt: skip
        out.append(Claim(profile, mention.value, "confirmed" if confirmed else "inferred", turns,
                         (ctx.index, 0), why, clause=mention.sentence or prompt.turn.text,
                         span=(mention.start, mention.end)))  # fmt: skip
    return out


def _fact(claim: Claim) -> FactCandidate:
    turn = claim.turns[-1]
    why = {k: v for k, v in claim.why.items() if v is not None}
    return FactCandidate(claim.key, as_the_field_asks(claim.profile, claim.value), claim.source, turn.occurred_at,
                         [t.ref() for t in claim.turns], why=why, ends=bool(why.pop("ends", False)))  # fmt: skip


def _reply(turns: list[WindowTurn], index: int) -> WindowTurn | None:
    """The agent's turn right after the user's at ``index``, in the same session."""
    after = turns[index + 1] if index + 1 < len(turns) else None
    if after is None or after.role != "assistant" or after.session_id != turns[index].session_id:
        return None
    return after

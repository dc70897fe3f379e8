"""Fields with one fact per named thing (``account:savings``, ``child_age:Aditi``): which one
a value is about, and references to one said before.

A value's qualifier is the nearest one said with it: before it in its stretch of the turn
("Aarav goes into grade 3 and Myra into grade 1"), else after it ("25,000 a month from the
savings account"), else the one the agent's question named ("Will Aarav need the bus?"), else
"the other" of two, else the one a pronoun or "that one" points back to. A field knows the
qualifiers its description lists, those stored, the kinds said beside its noun ("a current
account"), and, for people, the names said in the conversation. "The same for the other
account" copies the field's last value to the qualifier it points at.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from extraction.extractors.base import WindowTurn
from extraction.extractors.rules.acts import RELATIONS
from extraction.extractors.rules.codes import code_answer, code_pattern, codes_in, same_shape
from extraction.extractors.rules.fields import GENERIC, Profile, stem, thing_noun
from extraction.extractors.rules.learnt import dosed, kinds_said, named_in_reply
from extraction.extractors.rules.naming import (
    BODY_PARTS,
    RELATION_NAMED,
    coded,
    names,
    never_the_user,
    user_first_name,
)
from extraction.extractors.rules.reader import Claim, Context, Dropped
from extraction.extractors.rules.same_for import OTHER, PRONOUN, same_for
from extraction.extractors.rules.strings import proper_nouns
from extraction.extractors.rules.subjects import KIND_WORDS, subjects

_YOUR = re.compile(
    rf"\byour\b(?!\s+(?:\w+\s+)?(?:{RELATIONS})s?\b|\s+\w+'s\b)", re.I
)  # not "your son's"
_VALUE_FOR = re.compile(r"\s+for\s+(?!now\b|the (?:moment|time being)\b)")
_AFTER_REFERENCE = re.compile(r"\b(same as|like|as for|than|as with)\s+$", re.I)
_RELATION_WORDS = sorted(set(RELATIONS.split("|")))
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|(?i:me|my|mine))\b")
_SAID_WITH = ("said before it", "said after it")
_TAKEN_BACK = re.compile(r"\b(?:no|sorry|i mean|actually|wait)\W*$", re.I)
_NOT_THE_THING = re.compile(
    r"(?i:\b(?:mr|mrs|ms|miss|dr|prof|sir)\.?\s+$)|(?i:\b(?:on|at|from|via|in|into|near)\s+)(?:[A-Z][\w'-]*\s+)*$"
)


class Qualifiers:
    def __init__(
        self, fields: list[Profile], current: Mapping[str, str], turns: list[WindowTurn]
    ) -> None:
        self.fields = {p.key: p for p in fields if p.qualified}
        self.names = names(turns)
        self.relations = {  # relation word → the name it stands for ("wife" → "Sneha")
            m.group(1).lower(): m.group(2)
            for t in turns
            for m in RELATION_NAMED.finditer(t.text)
            if m.group(2) in self.names
        }
        nouns = {k: thing_noun(p.field.get("description", "")) for k, p in self.fields.items()}
        self.nouns = nouns
        # fields whose things go by a number or code ("one fact per order, by its order number")
        self.coded = {k: nouns[k] for k, p in self.fields.items() if p.qualifier_kind == "word"
                      and coded(p.field.get("description", ""), p.qualifiers)}  # fmt: skip
        self.undashed = any(  # a schema that writes its codes "without spaces or dashes"
            re.search(r"\bwithout\b[^.]*\b(?:dash|hyphen)", p.field.get("description", ""))
            for p in self.fields.values()
        )
        # a coded field's examples in its description are placeholders, not things of this user
        self.vocab: dict[str, list[str]] = {
            k: [] if k in self.coded else list(p.qualifiers) for k, p in self.fields.items()
        }
        for words in self.vocab.values():  # a field per body part knows them all
            if set(words) & BODY_PARTS:
                words += sorted(BODY_PARTS - set(words), key=len, reverse=True)
        for key, profile in self.fields.items():  # fields of one noun share their kinds
            for other, noun in nouns.items():
                if noun and noun == nouns[key] and profile.qualifier_kind == "word":
                    self._add(key, *self.vocab[other])
        self.aliases: dict[str, dict[str, str]] = {}  # coded field → name said → its code
        self.stored: dict[str, set[str]] = {}  # field → the things memory holds a value for
        for key in current:
            name, _, qualifier = key.partition(":")
            if qualifier and name in self.vocab:
                self.stored.setdefault(name, set()).add(qualifier)
                self._add(
                    name,
                    qualifier.lower() if self.fields[name].qualifier_kind == "word" else qualifier,
                )
        for turn, reply in zip(turns, [*turns[1:], None], strict=True):
            self._kinds(turn.text)
            if reply is not None and turn.role == "assistant" and reply.role == "user":
                self._answered(turn.text, reply.text)
        for key in self.coded:  # "I've put $2,860 on 90114": a number shaped as its claims are
            self._add(key, *(c for t in turns for c in same_shape(t.text, self.vocab[key])))
        self.heard: list[str] = []  # qualifiers and names said, most recent last
        self.last: dict[str, Claim] = {}  # field → its last qualified claim
        self.pending: list[Claim] = []  # values whose thing was not said (yet)
        self.asked_about = ""  # the user's last turn

    def _add(self, key: str, *words: str) -> None:
        for word in words:
            if key in self.coded and re.search(r"\d", word):
                word = word.upper()  # a code: one spelling ("inc-20417" stored, "INC-20417" said)
                if self.undashed and not re.fullmatch(
                    r"[A-Z]{2,5}-\d{3,}", word
                ):  # not "INC-20417"
                    word = word.replace("-", "")  # "plate without spaces or dashes"
            if word and word not in self.vocab[key]:
                self.vocab[key].append(word)

    def _add_code(self, key: str, code: str, name: str | None) -> None:
        """A code of the field, and the name said with it ("Innova Crysta, KA 51 MD 7788")."""
        self._add(key, code)
        if name:
            self.aliases.setdefault(key, {})[name.lower()] = code

    def _pattern(self, key: str, word: str, plural: bool = False) -> str:
        """How a known thing is found in lower-cased text (a code with or without its spaces)."""
        if key in self.coded and re.search(r"\d", word):
            return rf"\b{code_pattern(word.lower())}\b"
        return rf"\b{re.escape(word.lower())}{'(?:s|es)?' if plural else ''}\b"

    def _kinds(self, text: str) -> None:
        """ "a savings account and a current account": savings and current are accounts;
        "order #10492", "ticket INC-20417": codes of a field whose things go by one."""
        for key, noun in self.coded.items():
            for code, name in codes_in(text, noun):
                self._add_code(key, code, name)
        for key, noun in self.nouns.items():
            if noun and self.fields[key].qualifier_kind == "word" and key not in self.coded:
                self._add(
                    key, *kinds_said(text, noun), *dosed(self.fields[key], text, self.vocab[key])
                )

    def _answered(self, question: str, reply: str) -> None:
        """ "What was in the parcel?" — "trainers. nike ones": the reply names the thing; "And
        the registration?" — "LR17 KXD. It's a 2017 one": the reply gives its code."""
        for key, noun in self.coded.items():
            answer = code_answer(question, reply, noun)
            if answer:
                self._add_code(key, *answer)
        for key, noun in self.nouns.items():
            if noun and self.fields[key].qualifier_kind == "word" and key not in self.coded:
                self._add(key, *named_in_reply(self.fields[key], noun, question, reply))

    def hear(self, text: str) -> None:
        lowered = text.lower()
        found: list[tuple[int, str]] = []
        for key, words in self.vocab.items():
            for word in words:
                found += [(m.start(), word) for m in re.finditer(self._pattern(key, word), lowered)]
        for name, at in proper_nouns(text):
            first = name.split()[0].strip(".,!?")
            if first in self.names:
                found.append((at, first))
        for _, word in sorted(found):
            self._note(word)

    def _note(self, word: str) -> None:
        if word in self.heard:
            self.heard.remove(word)
        self.heard.append(word)

    def settle(self, claims: list[Claim], ctx: Context) -> list[Claim]:
        text = ctx.turn.text
        out: list[Claim] = []
        users = sorted(c.span for c in claims if not c.why.get("agent"))
        for claim in claims:
            if not claim.profile.qualified or claim.qualifier:
                out.append(claim)
                continue
            if claim.why.get("agent"):  # said by the agent: its qualifier is in its own sentence
                spans = sorted(
                    c.span for c in claims if c.why.get("agent") and c.clause == claim.clause
                )
                found = self.find(claim, claim.clause, spans, ctx, agent=True)
                if not found:  # "Up you get, Biscuit... 37.6 kilos.": the one its turn names
                    found = self._named_in_turn(claim)
            else:
                found = self.find(claim, text, users, ctx)
                twin = next(
                    (c for c in out if c.profile is claim.profile and c.value == claim.value), None
                )
                if twin and twin.qualifier and (not found or found[0][1] not in _SAID_WITH):
                    found = [(twin.qualifier, "said again")]  # "it's four now. four milligrams."
            if not found:
                ctx.dropped.append(
                    Dropped(claim.value, f"{claim.profile.key}: which one is not said", ctx.turn)
                )
                self.pending.append(claim)
                continue
            for qualifier, how in found:  # "the blender and the rug are in transit": both
                copy = claim if qualifier == found[0][0] else replace(claim, why=dict(claim.why))
                copy.qualifier = qualifier
                copy.why["qualifier"] = how
                out.append(copy)
        out += same_for(self, ctx, out)
        self.asked_about = text
        self.hear(text)
        for claim in out:
            if claim.qualifier:
                self.last[claim.profile.key] = claim
                self._note(claim.qualifier)
        return out

    def find(self, claim: Claim, text: str, spans: list[tuple[int, int]], ctx: Context,
             agent: bool = False) -> list[tuple[str, str]]:  # fmt: skip
        """[(qualifier, how it was found)]: one, or those named together ("X and Y are …")."""
        start, end = claim.span
        before = max([b for a, b in spans if b <= start and (a, b) != claim.span] + [0])
        after = min([a for a, b in spans if a >= end and (a, b) != claim.span] + [len(text)])
        stop = re.search(r"[.!?](?:\s|$)", text[end:after])  # not past the value's sentence
        after = end + stop.end() if stop else after
        me = (
            None
            if agent or never_the_user(self.nouns.get(claim.profile.key, ""))
            else user_first_name(ctx)
        )
        stretches = [
            (text[before:end], "said before it", True),
            (text[end:after], "said after it", False),
        ]
        if _VALUE_FOR.match(text, end):  # "lower for Kamala, upper for Arjun": the thing after
            stretches.reverse()
            if agent and re.match(r"\s+for\s+you\b", text[end:], re.I):
                you = user_first_name(ctx) if claim.profile.qualifier_kind == "name" else None
                return [(you, "'for you' in the agent's turn")] if you else []
        for learn in (False, True):  # things it knows first, then things named as the subject
            for stretch, label, last in stretches:
                found = self.named(claim.profile, stretch, last, me, learn)
                if found:
                    together = self._together(claim.profile, stretch, found) if last else []
                    return [(q, label) for q in [*together, found]]
        qualifier, how = self._fallback(claim, text, ctx, agent)
        return [(qualifier, how)] if qualifier else []

    def _named_in_turn(self, claim: Claim) -> list[tuple[str, str]]:
        """The one thing of the field the agent's turn names before the value's sentence."""
        text = claim.turns[0].text
        before = text[: max(text.find(claim.clause), 0)]
        # a code the user's turn before gave: "Second, 4629015537." — "CC, confirmed."
        asked = self.asked_about if claim.profile.key in self.coded else ""
        for stretch, how in ((before, "named earlier in the agent's turn"),
                             (asked, "the one the user's turn before named")):  # fmt: skip
            first = self.named(claim.profile, stretch, False)
            if first is not None and self.named(claim.profile, stretch, True) == first:
                return [(first, how)]
            if first is not None:
                return []
        return []

    def _together(self, profile: Profile, stretch: str, last: str) -> list[str]:
        """Qualifiers joined to the last one by "and" ("the blender and the rug are …")."""
        match = re.search(
            rf"(?:\bthe\s+)?([\w-]+)\s*,?\s+and\s+(?:the\s+)?{re.escape(last)}\b", stretch, re.I
        )
        if not match or match.group(1).lower() in KIND_WORDS | GENERIC or stem(match.group(1).lower()) \
                in profile.key_words or re.search(r"(?:\d\s*|^\s+)$", stretch[: match.start(1)]):  # fmt: skip
            return []  # "2 parcels, and …": its noun; "12 kilos and Rolo's …": a value's unit
        word = match.group(1)
        if profile.qualifier_kind == "name":
            return [word] if word in self.names else []
        self._add(profile.key, word.lower())
        return [word.lower()] if word.lower() != last.lower() else []

    def _fallback(
        self, claim: Claim, text: str, ctx: Context, agent: bool = False
    ) -> tuple[str | None, str]:
        """The agent's own claims only by "it" / "that one" / "the other"."""
        prompt = None if agent else ctx.prompt
        if prompt is not None and not claim.why.get("reference"):
            named = self.named(claim.profile, prompt.turn.text, True)
            if named:
                return named, "named in the agent's turn"
            me = (
                None
                if never_the_user(self.nouns.get(claim.profile.key, ""))
                else user_first_name(ctx)
            )
            if claim.profile.qualifier_kind == "name" and me and _YOUR.search(prompt.turn.text):
                return me, "'your' in the agent's turn"
        clause = claim.clause or text
        if OTHER.search(clause) and (other := self.other(claim.profile)):
            return other, "'the other'"
        # "my husband Piotr. I am 38. He is 41 — no, sorry, 42": the one the turn named last before it
        back = PRONOUN.search(clause) or _TAKEN_BACK.search(text[: claim.span[0]])
        if back or len(self._said(claim.profile)) == 1:  # or the only one
            told = back and self.named(claim.profile, text[: claim.span[0]], True)
            stored = agent or "answers" in claim.why or "state" in claim.why  # "all sorted now"
            recent = (
                told or self._recent(claim.profile) or (stored and self._only_stored(claim.profile))
            )
            if recent:
                return recent, "the one said last"
        return None, ""

    def named(
        self, profile: Profile, stretch: str, last: bool, me: str | None = None, learn: bool = False
    ) -> str | None:
        """The qualifier said in ``stretch`` (the last one, or the first); ``me``: whom "I"
        and "my" name there (the user, for a field about people); ``learn``: also a thing named
        as what the value is about, not yet known ("the kitchen tap is …")."""
        found: list[tuple[int, str]] = []
        lowered = stretch.lower()
        if profile.qualifier_kind == "name" and me:
            found += [(m.start(), me) for m in _FIRST_PERSON.finditer(stretch)]
        if profile.qualifier_kind == "word" and learn and profile.key not in self.coded:
            learnt = subjects(profile, stretch)
            self._add(profile.key, *(phrase for _, phrase in learnt))
            found += learnt
        for word in self.vocab[profile.key]:
            for match in re.finditer(self._pattern(profile.key, word, plural=True), lowered):
                if not _AFTER_REFERENCE.search(lowered[: match.start()]):
                    found.append((match.start(), word))
        for name, code in self.aliases.get(profile.key, {}).items():  # "Km reading of Innova?"
            found += [(m.start(), code) for m in re.finditer(rf"\b{re.escape(name)}\b", lowered)]
        if profile.qualifier_kind == "name":
            for match in re.finditer(r"\b[A-Z][a-z][\w'-]*", stretch):
                word, before = match.group(0).removesuffix("'s"), stretch[: match.start()]
                prev = re.search(r"([A-Z][a-z][\w'-]*)\s+$", before)
                if (
                    word in self.names
                    and not (prev and prev.group(1) in self.names)  # "Amara Osei": Amara
                    and not _NOT_THE_THING.search(before)  # "on Royal Canin"
                    and not _AFTER_REFERENCE.search(before.lower())
                ):
                    found.append((match.start(), word))
            for relation, name in self.relations.items():  # "wife is 12 LPA": Sneha
                for match in re.finditer(
                    rf"\b{re.escape(relation)}(?:'s)?\b(?!,?\s+{name})", lowered
                ):
                    found.append((match.start(), name))
            if any(
                w.lower() in _RELATION_WORDS for w in self.vocab[profile.key]
            ):  # member_age:mother
                pattern = rf"\b(?:my|our|his|her)\s+({'|'.join(_RELATION_WORDS)})\b"
                found += [(m.start(1), m.group(1)) for m in re.finditer(pattern, lowered)]
        if not found:
            return None
        found.sort()
        return found[-1][1] if last else found[0][1]

    def the_only(self, claims: list[Claim]) -> list[Claim]:
        """Values said before the thing they are for was named ("It's €420 a week … That's
        contract EH-2291"): when the whole window names one thing for the field, theirs, unless
        a later value for it was written."""
        out = []
        for claim in self.pending:
            if claim.profile.qualifier_kind == "name":
                continue  # the user is one of the people too
            thing = self._recent(claim.profile) if len(self._said(claim.profile)) == 1 else None
            later = [c for c in claims if c.profile is claim.profile and c.order > claim.order]
            if thing is None or any(
                c.qualifier and c.qualifier.lower() == thing.lower() for c in later
            ):
                continue
            claim.qualifier = thing
            claim.why["qualifier"] = "the only one the conversation names"
            out.append(claim)
        return out

    def _said(self, profile: Profile) -> set[str]:
        """The field's things said so far in the window (or the only one it knows)."""
        vocab = {w.lower() for w in self.vocab[profile.key]}
        said = {w.lower() for w in self.heard if w.lower() in vocab}
        return said or (vocab if len(vocab) == 1 else set())

    def _recent(self, profile: Profile) -> str | None:
        vocab = {w.lower() for w in self.vocab[profile.key]}
        for word in reversed(self.heard):
            if word.lower() in vocab or (profile.qualifier_kind == "name" and word in self.names):
                return word
        return None

    def _only_stored(self, profile: Profile) -> str | None:
        """ "Let us weigh him first: 37.9 kg": the one thing memory holds a value for."""
        only = self.stored.get(profile.key, set())
        return next(iter(only)) if len(only) == 1 else None

    def other(self, profile: Profile) -> str | None:
        recent = (self._recent(profile) or "").lower()
        options = [w for w in self.vocab[profile.key] if w.lower() != recent]
        if profile.qualifier_kind == "name" and len(options) != 1:
            options = [w for w in self.heard if w in self.names and w.lower() != recent][-1:]
        return options[0] if len(options) == 1 else None

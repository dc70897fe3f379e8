"""Text values of fields with one fact per thing, read clause by clause with the thing they are
about: "Father has type 2 diabetes", "your kitchen tap is loose at the base", "hummus and pita
to start, and the lemon bars for dessert", "Ana is lactose intolerant"."""

from __future__ import annotations

import re

from core.text import sentences
from extraction.extractors.rules.acts import (
    CHANGE_VERBS,
    away,
    clauses,
    hedged,
    is_question,
    third_party,
)
from extraction.extractors.rules.fields import Profile, similarity
from extraction.extractors.rules.naming import never_the_user
from extraction.extractors.rules.qualify import Qualifiers
from extraction.extractors.rules.reader import Claim, Context
from extraction.extractors.rules.strings import clean
from memory.embedding import embed


def qualified_text_claims(things: Qualifiers, ctx: Context, taken: set[str]) -> list[Claim]:
    """Text values of fields with one fact per thing, clause by clause: "Father has type 2
    diabetes", "your kitchen tap is loose at the base", "Hummus and pita to start, and the
    lemon bars for dessert", "Ana is lactose intolerant"."""
    out: list[Claim] = []
    text = ctx.turn.text
    for profile in ctx.fields:
        if profile.type != "string" or not profile.qualified or profile.key in taken:
            continue
        for start, clause in _clauses(text):
            if is_question(clause):
                continue
            at = 0  # "Biscuit is a cocker spaniel and Otis is a greyhound": one after another
            while (found := _text_value(things, profile, clause[at:])) is not None:
                qualifier, value, how, end = found
                why = {"cue": how, "qualifier": "said with it"}
                rest = clause[at:]
                owner = third_party(rest)  # "my sister's cat Simba is on …": not the user's
                grown = (  # "my sister dana is picking up today": no child's, no pet's
                    owner is not None
                    and never_the_user(things.nouns.get(profile.key, ""))
                    and bool(_GROWN.search(owner.group(0)))
                    and bool(re.match(rf"\W*{re.escape(qualifier)}\b", rest[owner.end() :], re.I))
                )
                # "My neighbour's claim was €4,000, his car is much bigger": a thing of theirs
                theirs = (
                    profile.qualifier_kind == "word"
                    and bool(_HIS.match(rest))
                    and bool(third_party(text[:start]))
                )
                if not (owner and (away(owner, rest.find(value)) or grown)) and not theirs:
                    out.append(Claim(profile, value, "inferred" if hedged(clause) else "explicit", [ctx.turn],
                                     (ctx.index, start + at), why, qualifier=qualifier, clause=clause,
                                     span=(start + at, start + len(clause))))  # fmt: skip
                at += max(end, 1)
            last = next((w for w in reversed(things.heard) if w in things.vocab[profile.key]), None)
            if not at and last and (it := _CHANGED_IT.search(clause)) and not third_party(clause):
                # "Still on lisinopril 10 mg?" — "They bumped it to 20 mg."
                value = clean(it.group("v"))
                out.append(Claim(profile, value, "inferred" if hedged(clause) else "explicit", [ctx.turn],
                                 (ctx.index, start), {"cue": "what it was changed to", "qualifier": "the one just said"},
                                 qualifier=last, clause=clause, span=(start, start + len(clause))))  # fmt: skip
    return _one_field_each(_of_the_field(out))


_CHANGED_IT = re.compile(
    rf"\b(?:{CHANGE_VERBS}|bumped|moved)\s+(?:it|that|them)\s+(?:up\s+|down\s+)?to\s+(?P<v>\d[^.;!?]*?)"
    r"(?=\s+(?:last|this|yesterday|today|recently|at my|at the|from|when|after|because)\b|\s*[,.;!?]|\s*$)",
    re.I,
)  # "They upped it to 10 mg last week": 10 mg


def in_a_things_value(claim: Claim, named: list[Claim]) -> bool:
    """A number another field read inside the text a thing's value holds ("They upped it to
    10 mg" for a medicine's dose): the thing's, not a pain score's."""
    if claim.profile.type != "number" or claim.profile.qualified:
        return False
    return any(n.span[0] <= claim.span[0] < n.span[1] and claim.value in
               [float(d) for d in re.findall(r"\d+(?:\.\d+)?", str(n.value))] for n in named)  # fmt: skip


# grown-ups a field kept per child or pet is never about ("my sister dana is picking up today")
_GROWN = re.compile(r"\b(?:sister|brother|mum|mom|mother|dad|father|wife|husband|partner|friend|"
                    r"neighbou?r|boss|colleague|aunt|uncle|cousin|grand(?:ma|pa|mother|father))\b", re.I)  # fmt: skip
_HIS = re.compile(r"\W*(?:his|her|their)\b", re.I)
_SAME = re.compile(r"(?:the\s+)?same(?:\s+(?:as\b.*|again|too|thing))?", re.I)
_ALSO = re.compile(r"\s+(?:too|as well|also)$", re.I)


def _of_the_field(claims: list[Claim]) -> list[Claim]:
    """ "Clover is the same" is a reference, not a breed; "Tom is vegan too" is "vegan"."""
    for claim in claims:
        claim.value = _ALSO.sub("", str(claim.value))
    return [c for c in claims if not _SAME.fullmatch(str(c.value))]


_KIND_FIELD = re.compile(r"\b(?:type|kind|breed|species|model|make|sort|what it is)\b", re.I)


def _one_field_each(claims: list[Claim]) -> list[Claim]:
    """ "Biscuit is my chocolate lab" read by two fields of one fact per pet (breed, diet): the
    value goes to the field of what it is when the clause says what it is ("is my …"), else to
    the one it means most (the embedder: the value and its clause against each field)."""
    groups: dict[tuple[str, str, int], list[Claim]] = {}  # (qualifier, value, where) → claims
    for claim in claims:
        groups.setdefault((str(claim.qualifier), str(claim.value), claim.span[0]), []).append(claim)
    if all(len(g) == 1 for g in groups.values()):
        return claims
    keep: list[Claim] = []
    for (_, value, _), group in groups.items():
        if len(group) == 1:
            keep += group
            continue
        # "Biscuit is my chocolate lab" says what it is: a field of its kind (breed, model, type)
        said = re.search(rf"\b{re.escape(str(group[0].qualifier))}\s+(?:is|are)\s+(?:a|an|my|our|"
                         r"the|his|her|their)\b", group[0].clause)  # fmt: skip
        kinds = [c for c in group if said and _KIND_FIELD.search(c.profile.about)]
        if len(kinds) == 1:
            keep += kinds
            continue
        value_v, clause_v = embed([value, group[0].clause])
        keep.append(max(group, key=lambda c: similarity(c.profile, value_v)
                        + similarity(c.profile, clause_v)))  # fmt: skip
    return keep


def _numbered(profile: Profile) -> bool:
    """A text field whose examples hold numbers ("214 for Kabir"): a bare number may be its value."""
    return any(re.search(r"\d", str(e)) for e in profile.field.get("examples") or [])


def _text_value(things: Qualifiers, profile: Profile, clause: str) -> tuple[str, str, str, int] | None:  # fmt: skip
    words = sorted(things.vocab[profile.key], key=len, reverse=True)
    names = sorted(things.names, key=len, reverse=True) if profile.qualifier_kind == "name" else []
    options = "|".join(re.escape(w) for w in [*words, *names] if len(w) >= 3)
    if not options:
        return None
    said = rf"(?P<q>{options})\w*"
    # "Lisinopril, 10 mg every morning", "metformin 500 mg twice a day": a thing, then its value
    # (not a name's: "3 for Aarav, 2 for Myra")
    with_value = (
        rf"(?i:\b(?:my|the|on)\s+)?(?i:{said})[,:]?\s+(?P<v>\d[^.;!?]*)" if not names else "(?!)"
    )
    for pattern, how in (
        (
            rf"(?i:\b(?:the|your|my|our|his|her)?\s*){said}(?i:'s)?\s+(?i:is|are|was|has|have|had|"
            rf"needs?|takes?|gets?|can't (?:have|eat)|doesn't eat|is allergic to)\s+(?P<v>[^.;!?]+)",
            "what it is or has",
        ),
        (rf"(?P<v>[^.;!?]+?)\s+(?i:as|for|to)\s+(?i:the\s+)?{said}\b", "what it is for"),
        (
            rf"(?i:{CHANGE_VERBS})\s+(?i:my|our|the)?\s*"
            rf"{said}(?i:'s)?\s+(?i:up\s+|down\s+)?(?i:to)\s+(?P<v>[^.;!?]+)",
            "what it was changed to",
        ),
        (with_value, "said with its value"),
    ):
        match = re.search(pattern, clause)
        if match:
            said_value = match.group("v")
            nxt = re.search(rf"(?:,|\band\b|\bbut\b)\s+(?i:the\s+)?(?:{options})\b|(?:,|\band\b|\bbut\b)\s*(?i:she|he|it|they)\b"
                            r"|(?i:\s+(?:and|but)\s+(?:(?:my|our|his|her|their)\s+\w+\s+)?(?:is|are|was|has|have|had|weighs|needs|takes|gets|seems|looks)\b)",
                            said_value)  # fmt: skip
            said_value = said_value[: nxt.start()] if nxt else said_value  # "… and Pepper is …"
            value = clean(_last_phrase(said_value) if how == "what it is for" else said_value)
            q = match.group("q")
            if (
                value
                and len(value.split()) <= 8
                and value.lower() != q.lower()
                and not _HOW_IT_IS.fullmatch(value)
                and (re.search(r"[^\W\d_]", value) or _numbered(profile))  # "3 for Aarav": a count
            ):
                qualifier = q if profile.qualifier_kind == "name" else q.lower()
                qualifier = next(
                    (
                        w
                        for w in things.vocab[profile.key]
                        if w.lower().startswith(qualifier.lower())
                    ),
                    qualifier,
                )
                return qualifier, value, how, match.start("v") + len(said_value)
    return None


# "Biscuit's fine", "Maya's doing great": how it is, no value of a field
_HOW_IT_IS = re.compile(
    r"(?:(?:all|just|really|very|so|pretty|doing|being)\s+)*(?:fine|ok|okay|good|great|well|alright|"
    r"all right|lovely|brilliant|perfect|sorted|better|worse|grand|not|no|yes|there|here|it|that|"
    r"the one|one)"
    r"(?:\s+(?:thanks|thank you|now|too|again))?",
    re.I,
)
_VERBISH = re.compile(
    r"\b(?:for|with|on|voted|chose|choose|chosen|picked|pick|want|wants|wanted|like|likes|'d like|"
    r"have|having|get|take|taking|go|going|is|are|was|were|be|do|doing)\b|[:,]",
    re.I,
)


def _last_phrase(text: str) -> str:
    """The noun phrase that ends ``text``: "Team voted for the Mediterranean bowls" → "the
    Mediterranean bowls"."""
    cuts = [m.end() for m in _VERBISH.finditer(text)]
    return text[cuts[-1] :] if cuts else text


def _clauses(text: str) -> list[tuple[int, str]]:
    out = []
    for sentence in sentences(text):
        at = text.find(sentence)
        for a, b in clauses(sentence):
            out.append((at + a, sentence[a:b].strip(" ,")))
    return out

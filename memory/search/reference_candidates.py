"""The runners-up of reference resolution: when a turn points back ("the other one", "what did
she say?", "the first option you mentioned"), the rule in ``references`` picks one referent;
these are the other turns of the session the cue could mean, best first, so the agent sees them
too when the rule's pick is wrong (ADR 0010, "referents beyond the rule").

A turn is scored by a linear model over a few features (``RUNNER_FEATURES``): what the cue says
it must be (a request for *again* / *other* / *same*, an offer for *previous*, a turn that names
a person of that gender for a pronoun, a turn with a number or code for *that number*), the
probe's own words it shares (cue words left out), whether it says something at length, whether
it is beside the rule's referent, each weighed by kind of cue; then a little by recency. The
weights are constants (``RUNNER_WEIGHTS``), fitted once by ``python -m bench.anaphora.fit`` on
the probe sets already read; nothing is learned at run time. The room is always filled. Pure
functions over turns already read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Protocol

MAX_REFERENT_TURNS = 6  # of /v1/context's 8 retrieved items; search keeps the rest

_WORD = re.compile(r"[a-z][a-z'-]*|\d[\d,.:]*")
_CUE_WORDS = frozenset(["other", "one", "ones", "previous", "earlier", "first", "original", "before", "again", "same", "that", "this", "those", "these", "thing", "things", "usual", "usually", "normally", "always", "regular", "last", "time", "remind", "mentioned", "said", "told", "gave", "offered", "suggested", "option", "you", "your", "me", "my", "what", "was", "is", "the", "a", "an", "it", "do", "did", "can", "could", "please", "too", "also", "as", "well", "she", "he", "her", "him", "his", "they", "them", "their", "and", "to", "for", "of", "on", "in", "with", "so", "ok", "okay", "yeah", "yes", "um", "uh", "erm", "er", "then", "just", "go", "ahead", "want", "would", "like", "know", "again?"])  # fmt: skip
_STANDING = re.compile(
    r"usual|regular|normal|preferred|default|favou?rite|go_to|home|standing", re.I
)
_FACT_DROP = _CUE_WORDS - {"time", "last", "first"}  # "my usual time" names the fact
OFFER = re.compile(r"\b(i'?d suggest|i suggest|i (?:can|could) (?:offer|do|book)|we (?:can|could) (?:offer|do)|how about|what about|option|alternatively|instead|available|i'?ve got|we'?ve got|we have|there'?s|you could|would you like|shall i|recommend|cheapest|package|slot|start with|free (?:on|at|next))\b|[£$€]\s?\d|\b\d{1,2}(?:[:.]\d\d)?\s?(?:am|pm)\b|\b\d{1,2}[:.]\d\d\b", re.I)  # fmt: skip
_ANOTHER = re.compile(r"\b(also|another|second|there'?s|the rest|and then|alternative|instead)\b", re.I)  # fmt: skip
_COUNT = re.compile(r"\b(two|three|four|both|couple|pair|twins?|as well|too)\b", re.I)
_IDENTIFIER = re.compile(r"\b(?=[A-Z0-9-]*\d)[A-Z0-9][A-Z0-9-]{2,}\b|\d[\d ]{4,}\d|[£$€]\s?\d|\b\d+(?:\.\d+)?\s?(?:ml|mg|g|kg|mcg|iu|tablets?|drops?|%)(?!\w)", re.I)  # fmt: skip
# Names and numbers not at a sentence's start: a turn with two of them introduces specific things.
_SPECIFIC = re.compile(r"(?<![.!?]\s)(?<!^)\b(?!I\b)[A-Z][a-z]+|\d+")
_SAME = {"invoice": "bill", "billing": "bill", "invoic": "bill"}
DONE = re.compile(r"\b(here'?s the|here is the|i'?ve|i have|we'?ve|done|booked|sent|added|removed|reinstalled|changed|fixed|updated|set up|arranged|cancelled|ordered|applied)\b", re.I)  # fmt: skip
_FORMER = re.compile(r"\b(before|used to|old|original|still (?:shows?|has|have|on)|on file|any ?more|no longer|instead of|swapped|replaced|previously|originally|at the moment|currently|last (?:term|year|time|week|month|season|spring|summer|autumn|winter)|booked (?:for|in)|(?:i|we|he|she|it|you|they) (?:was|were) (?:at|in|with|on)|was in|were with|was with|(?:you|he|she|i|we|they) had|moved|changed|switched|now (?:i'?m|it'?s|we'?re|she'?s|he'?s|they'?re))\b", re.I)  # fmt: skip
# A change ("I've swapped the colour", "my new number is…"): what came before it was so before.
_CHANGE = re.compile(r"\b(chang(?:e|ed|ing)|swap(?:ped)?|switch(?:ed)?|updat(?:e|ed)|moved|replac(?:e|ed)|new (?:number|address|email|one|colou?r|date|time|plan))\b", re.I)  # fmt: skip
# What kind of thing the query names, and what such a thing looks like in a turn: "those
# numbers" a run of digits, "the price" an amount, "the old house" an address.
_HINTS = [
    (re.compile(r"\b(numbers?|phone|mobile|code|pin|readings?|figures|digits|reference|ref|reg)\b", re.I),
     re.compile(r"\d[\d ]{3,}\d|\b(?=[A-Z]*\d)[A-Z0-9]{4,}\b")),
    (re.compile(r"\b(price|cost|quote|fee|total|bill|charge|amount|rate)\b", re.I), re.compile(r"[£$€]\s?\d")),
    (re.compile(r"\b(address|house|flat|home|street|postcode|building|office|premises)\b", re.I),
     re.compile(r"\b\d+[A-Za-z]? [A-Z][a-z]+ (?:Lane|Road|Street|Close|Avenue|Way|Drive|Row|Court|Place|Crescent|Gardens|Terrace|Hill|Park|Square|Grove|Mews|Rd|St)\b|\b[A-Z]{1,2}\d{1,2}[A-Z]? ?\d[A-Z]{2}\b")),
    (re.compile(r"\be-?mail\b", re.I), re.compile(r"@\w")),
    (re.compile(r"\b(?:link|url|website|web ?page|page|site)\b", re.I), re.compile(r"https?://|www\.|\b[a-z0-9-]+\.(?:com|co|org|net|io|app|dev|uk)\b/?", re.I)),
    (re.compile(r"\b(?:what|which|that|the) time\b", re.I), re.compile(r"\b\d{1,2}(?:[:.]\d\d)?\s?(?:am|pm)\b|\b\d{1,2}:\d\d\b", re.I)),
]  # fmt: skip
# Words too common to say which turn is meant ("the same as I had done for the basement").
_MATCH_DROP = _CUE_WORDS | {"had", "have", "has", "done", "does", "got", "get", "were", "are", "will", "i'm", "i've", "i'd", "there", "which", "who", "when", "where", "how", "some", "any", "all", "not", "but", "now", "need", "can't", "don't"}  # fmt: skip
_GROUP = re.compile(r"\b[A-Z][a-z]+(?:, [A-Z][a-z]+)*,? (?:and|&) [A-Z][a-z]+")  # "Ella and Finn"
# "did he say…", "what did they ask for": the query asks what someone said; "Craig says he…",
# "Mr Patel has asked that…": a turn reports it
_ASKS_SAID = re.compile(r"\b(?:say|said|tell|told|ask|asked|mention|mentioned|want|wanted)\b", re.I)
_REPORTS = re.compile(r"\b(?:says|said|asked|asks|told|tells|mentioned|wants|wanted|reckons|thinks|needs?)\b", re.I)  # fmt: skip
_THEY = re.compile(r"\b(they|them|their)\b", re.I)
_SHE = re.compile(r"\b(she|her|hers|herself|ms|mrs|miss|sister|mother|mum|mom|wife|daughter|aunt|grandmother|gran|nan|niece|girlfriend|lady|woman|girl)\b", re.I)  # fmt: skip
_HE = re.compile(r"\b(he|him|his|himself|mr|brother|father|dad|husband|son|uncle|grandfather|grandad|nephew|boyfriend|man|boy)\b", re.I)  # fmt: skip
_GENDERED = {"she": _SHE, "he": _HE, "they": _THEY}
_ROLE = re.compile(r"\b(?:the|my|our|your|his|her|their) (?:\w+ )?(installer|landlord|landlady|driver|manager|teacher|tutor|coach|trainer|instructor|doctor|nurse|dentist|vet|plumber|electrician|engineer|technician|builder|decorator|gardener|cleaner|carer|nanny|neighbour|neighbor|friend|colleague|boss|client|tenant|owner|accountant|lawyer|solicitor|broker|agent|surveyor|inspector|receptionist|courier|contractor|guy|bloke|chap|partner|rep|advisor|adviser|consultant|assistant|director|head|supervisor)\b", re.I)  # fmt: skip
_PERSON = re.compile(r"\b(?:mr|mrs|ms|miss|dr|prof)\.? [A-Z]|\b(?:my|our|his|her|their|the) [a-z]+,? [A-Z][a-z]+", re.I)  # fmt: skip


class _Turn(Protocol):
    @property
    def key(self) -> str: ...
    @property
    def role(self) -> str: ...
    @property
    def text(self) -> str: ...


def _stem(word: str) -> str:
    for suffix in ("ment", "ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return _SAME.get(word[: -len(suffix)], word[: -len(suffix)])
    return _SAME.get(word, word)


def content(text: str, drop: frozenset[str] = _CUE_WORDS) -> set[str]:
    """A text's words that say what it is about, stemmed (the cue's own words left out)."""
    return {_stem(w) for w in _WORD.findall(text.lower()) if w not in drop and len(w) > 2}


def shared(words: set[str], other: set[str]) -> int:
    """How many of ``words`` ``other`` has: the same stem, or one a prefix (4+ letters) of the
    other ("pay" / "payment" is not; "centre" / "center" is)."""
    count = 0
    for word in words:
        if word in other or any(
            min(len(word), len(o)) >= 4 and (o.startswith(word[:4]) and word.startswith(o[:4]))
            for o in other
        ):
            count += 1
    return count


def _prior[T: _Turn](kind: str, gender: str | None, is_request: Callable[[T], bool], reported: bool = False) -> Callable[[T, set[str]], float]:  # fmt: skip
    """What the cue says its referent is; ``words``: the turn's ``content``, read once;
    ``reported``: the query asks what someone said ("did he say…"), so a turn that reports
    what someone said ("Craig says he…") is likelier."""

    def score(turn: T, words: set[str]) -> float:
        if kind == "again":
            return 1.5 if is_request(turn) else 0.0
        if kind == "that":  # a code or number, or something explained at length
            explained = turn.role == "assistant" and len(words) >= 8
            return (1.0 if _IDENTIFIER.search(turn.text) else 0.0) + (0.5 if explained else 0.0)
        if kind == "pronoun":
            pattern = _GENDERED.get(gender or "")
            if pattern and pattern.search(turn.text):
                return 2.0 if reported and _REPORTS.search(turn.text) else 1.5
            if gender == "they" and _GROUP.search(turn.text):
                return 1.5
            return 1.0 if _PERSON.search(turn.text) or _ROLE.search(turn.text) else 0.0
        specific = len(_SPECIFIC.findall(turn.text)) >= 2  # the kinds below weigh it
        if kind in ("last_time", "same"):  # what was asked for, chosen, agreed or done then
            done = turn.role == "assistant" and DONE.search(turn.text)
            detailed = len(words) >= 8
            return (1.5 if is_request(turn) else 0.0) + (1.0 if specific or done or detailed else 0.0)  # fmt: skip
        if kind == "other":  # the things there are two of, and the request to repeat
            pair = specific and re.search(r"\b(and|or)\b|,", turn.text)
            asked = (1.0 + (0.5 if len(words) >= 4 else 0.0)) if is_request(turn) else 0.0
            named = 2.0 if _ANOTHER.search(turn.text) else 1.5 if pair else 1.0 if _COUNT.search(turn.text) else 0.0  # fmt: skip
            return asked + named + (1.0 if specific else 0.0)
        if kind == "one":  # "the wooden one": one of several things offered or listed
            listed = specific and re.search(r"\b(and|or)\b|,", turn.text)
            return (1.5 if turn.role == "assistant" and (OFFER.search(turn.text) or listed) else 0.0) + (1.0 if listed else 0.0)  # fmt: skip
        if kind == "former":  # "my previous teacher": what was so before, said by either side
            # "the previous pair": an earlier offer can be what was so before
            offered = turn.role == "assistant" and bool(OFFER.search(turn.text))
            # the change itself ("I've updated your GP from Dr Farrell to…") says what was before
            was = 2.0 if _FORMER.search(turn.text) else 1.5 if _CHANGE.search(turn.text) else 0.0
            return was + (1.0 if offered else 0.0) + (0.5 if specific else 0.0)
        if kind == "previous":  # an offer before the latest, or what was so before
            offer = turn.role == "assistant" and bool(OFFER.search(turn.text) or specific)
            return (1.5 if offer else 0.0) + (1.0 if _FORMER.search(turn.text) else 0.0)
        return 0.0

    return score


# The cue kinds the runners-up are weighed for, and the features of a candidate turn; a kind's
# own weights say how much its prior and the probe's words count for it.
RUNNER_KINDS = ("again", "that", "pronoun", "last_time", "same", "other", "one", "former", "previous")  # fmt: skip
RUNNER_FEATURES = (
    "prior", "shared", "shared_3", "hint", "before_change", "user", "request", "long",
    "beside_referent", "evidence",
    *(f"{kind}_{what}" for kind in RUNNER_KINDS for what in ("prior", "shared")),
)  # fmt: skip
# Fitted by ``python -m bench.anaphora.fit`` (a logistic regression over every candidate turn of
# the read probe sets, per unit of each feature; ADR 0010, "runners-up by weight").
RUNNER_WEIGHTS = {
    "prior": 0.657, "shared": 0.241, "shared_3": 0.408, "hint": 0.972, "before_change": 0.623,
    "user": 0.031, "request": -0.639, "long": 2.3, "beside_referent": -0.135, "evidence": 0.228,
    "again_prior": 1.877, "again_shared": 1.161, "that_prior": 0.879, "that_shared": 0.158,
    "pronoun_prior": 0.418, "pronoun_shared": 0.494, "last_time_prior": 1.164,
    "last_time_shared": -0.357, "same_prior": 0.745, "same_shared": 0.147, "other_prior": 0.355,
    "other_shared": -0.161, "one_prior": 0.344, "one_shared": 0.456, "former_prior": 0.557,
    "former_shared": -0.437, "previous_prior": 0.645, "previous_shared": 0.183,
}  # fmt: skip
RECENCY = 0.3  # a later turn leads among near-equals (not fitted: the sets put referents far back)
AVOIDED = 10.0  # a turn the cue rules out ("the other account" is not this one) comes last


def runner_features[T: _Turn](
    query: str,
    turns: Sequence[T],
    kind: str,
    *,
    is_request: Callable[[T], bool],
    gender: str | None = None,
    taken: Sequence[str] = (),
) -> list[tuple[int, list[float]]]:
    """(index, RUNNER_FEATURES' values) for every turn of ``turns`` not already ``taken``."""
    wanted = content(query)
    prior = _prior(kind, gender, is_request, bool(_ASKS_SAID.search(query)))
    looks = hinted(query)
    # "the previous colour": what was so before the latest change
    change = max((i for i, t in enumerate(turns) if _CHANGE.search(t.text)), default=-1)
    beside = {i + d for i, t in enumerate(turns) if t.key in taken for d in (-1, 1)}
    out = []
    for index, turn in enumerate(turns):
        if turn.key in taken:
            continue
        words = content(turn.text)
        said, common = prior(turn, words), float(shared(wanted, words))
        hint = 1.0 if any(look.search(turn.text) for look in looks) else 0.0
        before = 1.0 if kind == "former" and index < change else 0.0
        evidence = said + common + hint + 0.5 * before
        row = [said, common, min(common, 3.0), hint, before, float(turn.role == "user"),
               float(is_request(turn)), float(len(words) >= 8), float(index in beside),
               float(evidence >= 1.0)]  # fmt: skip
        for cue in RUNNER_KINDS:
            row += [said, common] if cue == kind else [0.0, 0.0]
        out.append((index, row))
    return out


def likely[T: _Turn](
    query: str,
    turns: Sequence[T],
    kind: str,
    *,
    is_request: Callable[[T], bool],
    gender: str | None = None,
    taken: Sequence[str] = (),
    first: bool = False,
    avoid: Sequence[str] = (),
) -> list[T]:
    """The MAX_REFERENT_TURNS - len(taken) turns the cue could also mean, best first (by
    RUNNER_WEIGHTS, then recency). ``first``: the cue asks for the earliest ("the first
    option"), so earlier turns lead among near-equals; ``avoid``: turns the cue rules out, last."""
    room = MAX_REFERENT_TURNS - len(taken)
    if room <= 0 or not turns:
        return []
    weights = [RUNNER_WEIGHTS[name] for name in RUNNER_FEATURES]
    n = len(turns)
    scored = []
    for index, row in runner_features(query, turns, kind, is_request=is_request, gender=gender, taken=taken):  # fmt: skip
        place = (n - index) / n if first else (index + 1) / n
        score = sum(w * x for w, x in zip(weights, row, strict=True)) + RECENCY * place
        scored.append((score - (AVOIDED if turns[index].key in avoid else 0.0), index))
    scored.sort(key=lambda s: (-s[0], -s[1]))
    return [turns[index] for _, index in scored[:room]]


def hinted(query: str) -> list[re.Pattern[str]]:
    """What the things the query names look like in a turn (``_HINTS``)."""
    return [look for says, look in _HINTS if says.search(query)]


def matching[T: _Turn](query: str, turns: Sequence[T], is_request: Callable[[T], bool]) -> int | None:  # fmt: skip
    """The turn the query's own words point at ("the same as we got for plot 4's ensuite"):
    each word it shares counts by how few turns have it (a thing of the kind the query names,
    ``hinted``, counts as one more word); a request, then a user's turn, then the later leads
    among equals. None when nothing shares a word only two turns or fewer have."""
    wanted = content(query, _MATCH_DROP)
    looks = hinted(query)
    has = [content(t.text) for t in turns]
    marks = [[w for w in wanted if shared({w}, h)] + (["#"] if any(look.search(t.text) for look in looks) else [])
             for t, h in zip(turns, has, strict=True)]  # fmt: skip
    df: dict[str, int] = {}
    for found in marks:
        for word in found:
            df[word] = df.get(word, 0) + 1
    best: tuple[float, bool, bool, int] | None = None
    for index, found in enumerate(marks):
        score = sum(1 / df[w] for w in found)
        rank = (score, is_request(turns[index]), turns[index].role == "user", index)
        if score >= 0.5 and (best is None or rank > best):
            best = rank
    return None if best is None else best[3]


Similar = Callable[[str, list[str]], list[float]]  # the query's likeness to each text, 0..1
# Facts weighed by meaning at most (each is embedded once, then cached): a user with more has
# them weighed by their words alone (ADR 0010, "two more blind sets").
MEANING_FACTS = 50
MEANT_FACTS = 3  # "my usual one": the facts it may be, best first
# A standing fact's features for "my usual X" / "the way I always do": the query's words in its
# key and in its value, the words of the exchange it answers (the last two turns) in them, a key
# that says it is a habit, and its likeness in meaning to the query (less the best fact's, so
# what counts is how far behind the best it is).
FACT_FEATURES = ("names_key", "names_value", "context_names_key", "context_names_value", "standing", "meaning")  # fmt: skip
# Fitted by ``python -m bench.anaphora.fit`` (ADR 0010, "the usual by weight").
FACT_WEIGHTS = {
    "names_key": 2.059, "names_value": 0.594, "context_names_key": 1.378,
    "context_names_value": 1.25, "standing": 1.259, "meaning": 17.318,
}  # fmt: skip


def fact_features(
    query: str, recent: Sequence[_Turn], facts: dict[str, str], similar: Similar | None = None
) -> list[tuple[str, list[float]]]:
    """(key, FACT_FEATURES' values) for every fact; the meaning features are 0 unless
    ``similar`` is given and the user has at most MEANING_FACTS facts."""
    said = content(query, _FACT_DROP)
    around = set().union(*(content(t.text, _FACT_DROP) for t in recent[-2:])) if recent else set()
    rows = []
    for key, value in facts.items():
        name = {_stem(p) for p in re.split(r"[_:\s]+", key.lower()) if len(p) > 2}
        held = content(value)
        rows.append((key, [float(min(shared(said, name), 2)), float(min(shared(said, held), 3)),
                           float(min(shared(around, name), 2)), float(min(shared(around, held), 3)),
                           float(bool(_STANDING.search(key))), 0.0]))  # fmt: skip
    if similar is not None and 0 < len(facts) <= MEANING_FACTS:
        texts = [f"{key.replace('_', ' ')}: {value}" for key, value in facts.items()]
        likeness = similar(query, texts)
        for (_, row), like in zip(rows, likeness, strict=True):
            row[5] = like - max(likeness)
    return rows


def facts_meant(
    query: str, recent: Sequence[_Turn], facts: dict[str, str], similar: Similar | None = None
) -> list[str]:
    """For "the card I normally use" / "the one I always go to": the facts meant, best first, at
    most MEANT_FACTS, ranked by FACT_WEIGHTS. Weighed by meaning (``similar`` given, at most
    MEANING_FACTS facts) every fact may be meant ("make sure the kitchen knows about my reaction
    thing" is the allergy); by words alone, only those a word names or whose key says habit."""
    weights = [FACT_WEIGHTS[name] for name in FACT_FEATURES]
    rows = fact_features(query, recent, facts, similar)
    weighed = similar is not None and 0 < len(facts) <= MEANING_FACTS
    scored = [(sum(w * x for w, x in zip(weights, row, strict=True)), -i, key)
              for i, (key, row) in enumerate(rows) if weighed or any(row[:5])]  # fmt: skip
    scored.sort(reverse=True)
    return [key for _, _, key in scored[:MEANT_FACTS]]

"""Where a thing stands, said without the status's own word: a status field's choice read from
how people say it ("it finally arrived" is *delivered*, "they turned my claim down" is
*rejected*, "I posted it back" is *returned*).

A status field (its key or description says status, state, stage or where something stands)
has choices such as "shipped" or "refund issued". Each choice is matched to one of the everyday
states below by its words; a sentence that says a state in other words names the choice that
state stands for, when exactly one choice does. A state negated ("hasn't arrived"), asked
about, or said as what will or may happen ("it'll be dispatched tomorrow", "once it's
approved") is not said. General English, not any one schema's wording.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from extraction.extractors.rules.choices import Table, meanings_said
from extraction.extractors.rules.fields import Profile, stem

if TYPE_CHECKING:  # mentions reads states: the type only
    from extraction.extractors.rules.mentions import Mention

# state: (the choices that are it, as words; how it is said without them)
_STATES: Table = {
    "delivered": (
        ("delivered", "arrived", "received", "delivery complete"),
        r"arrived|turned up|showed up|(?<!\bi )(?<!\bwe )(?<!\bhe )(?<!\bshe )"
        r"(?<!\bsomeone )(?<!\bnobody )(?!(?:engineer|technician|courier|driver|plumber|man|guy|"
        r"woman|lady|team|fitter)\b)[a-z]+\s+(?:finally\s+|eventually\s+|only\s+)?came\b"
        r"(?!\s+(?:to|up|back|out|with|from|in at|as|round|over|by|and))|received (?:it|them|the (?:parcel|package|order|item|delivery|box))|"
        r"(?:on|at) my (?:door ?step|door)",
    ),
    "lost": (
        ("lost", "missing", "lost in transit"),
        r"never (?:arrived|came|turned up|showed up|got here)|gone missing|went missing|"
        r"(?:been|got) lost",
    ),
    "delayed": (
        ("delayed", "late", "held up"),
        r"held up|running late|stuck (?:in|at)|behind schedule",
    ),
    "shipped": (
        ("shipped", "dispatched", "in transit", "on its way", "out for delivery", "sent", "posted"),
        r"dispatched|shipped|on (?:its|their) way|in transit|out for delivery|sent out|"
        r"(?:been|was|were|got) (?:sent|posted|mailed)(?!\s+back)|left (?:the|our) warehouse|"
        r"on (?:the|a|its) (?:van|lorry|truck)|out with (?:the )?(?:driver|courier)|"
        r"coming (?:over )?on (?:the|a|tonight's|tomorrow's) (?:\w+ )?flight",
    ),
    "return requested": (
        ("return requested", "return initiated", "return started", "return pending"),
        r"(?:want|like|need|going|hoping|planning|wish|asked|asking|request(?:ed|ing)?)\s+"
        r"(?:to\s+)?(?:return|send\b[\w\s']{0,20}?\bback|a return)|return label|"
        r"start(?:ed)? a return|return request",
    ),
    "returned": (
        ("returned", "sent back", "return received"),
        r"(?:sent|posted|mailed|shipped|dropped|took|taken|brought|handed)\b[\w\s']{0,20}?"
        r"\b(?:back|off at the (?:post office|depot|store|shop|locker))|"
        r"(?:got|received) (?:the |my |your |our )?return",
    ),
    "refunded": (
        ("refunded", "refund issued", "refund processed", "refund paid", "refund complete"),
        r"(?:got|have|had|received) (?:my |the |our )?(?:money|refund|cash)(?: back)?\b|"
        r"money back|refund (?:went through|has gone through|came through|arrived|landed|"
        r"(?:is|was|has been) (?:processed|issued|paid|done))|credited back|reimbursed",
    ),
    "installed": (
        ("installed", "fitted", "put in", "mounted", "installation complete"),
        r"(?:went|go|gone|have gone|has gone) up\b|(?:been|was|were|got) (?:fitted|put in|installed)|"
        r"fitted (?:it|them|the)|installed (?:it|them|the)",
    ),
    "located": (
        ("located", "found", "traced"),
        r"(?:they|we|you|someone|somebody|staff)(?:'ve| have)? (?:finally |now |just )?found "
        r"(?:it|them|my|your|the|her|his)\b|tracked (?:it |them )?down|traced (?:it|them)",
    ),
    "paused": (
        ("paused", "on hold", "frozen", "suspended"),
        r"\b(?:it|membership|account|subscription|plan|card)(?:'s| is| has been| was| been)\s+(?:now\s+)?"
        r"(?:frozen|paused|suspended|on hold)\b|\bfroze (?:it|your|my|the)\b|\bpaused (?:it|your|my|the)\b",
    ),
    "lapsed": (
        ("lapsed", "expired", "ran out"),
        r"\b(?:it|policy|cover|membership|insurance|plan|subscription|contract)(?:'s| has| had| is)?\s+"
        r"(?:just\s+|now\s+)?(?:run out|ran out|expired|lapsed)\b|no longer (?:covered|insured)",
    ),
    "cancelled": (
        ("cancelled", "canceled", "called off"),
        r"called (?:it )?off|scrapped|cancel+ed",
    ),
    "paid": (
        ("paid", "settled", "payment made", "paid out", "payout"),
        r"(?:money|payment|payout|cheque|funds?)\b[\w\s']{0,20}?\b(?:landed|arrived|came through|"
        r"went through|is in|was in|hit)|paid (?:out|up)|(?:i|we)(?:'ve| have)? (?:just |already )?"
        r"(?:transferred|sent) (?:you )?(?:the |my |our |an? )?(?:advance|deposit|money|payment|amount|balance|"
        r"funds)",
    ),
    "approved": (
        ("approved", "accepted", "granted", "sanctioned", "authorised", "authorized"),
        r"accepted|granted|sanctioned|authori[sz]ed|green light|given the go-?ahead|"
        r"(?:got|been|was|were) (?:an )?(?:approval|approved)|signed (?:it |that |them )?off|okayed|"
        r"\b(?:it|approval|permit|licen[cs]e|visa|application|mortgage|loan|offer|planning|decision)\s+"
        r"(?:has\s+|have\s+)?(?:came|come) through",
    ),
    "rejected": (
        ("rejected", "refused", "declined", "denied", "turned down", "unsuccessful"),
        r"turned\b[\w\s']{0,20}?\bdown|declined|rejected|refused|denied|knocked back|"
        r"unsuccessful",
    ),
    "submitted": (
        (
            "submitted",
            "applied",
            "filed",
            "lodged",
            "sent in",
            "application submitted",
            "claim submitted",
            "claim filed",
        ),
        r"submitted|lodged|filed|sent\b[\w\s']{0,25}?\bin\b|put (?:in|through) (?:the|my|a|an)|"
        r"applied|\b(?:it|claim|application|return|form|forms|paperwork|documents?)\s+(?:has\s+)?"
        r"(?:went|gone) in\b|sent (?:it |them )?off",
    ),
    "under review": (
        (
            "under review",
            "in review",
            "being reviewed",
            "reviewing",
            "assessing",
            "being assessed",
            "processing",
            "being processed",
            "investigating",
        ),
        r"(?:looking|looked) (?:at|into) (?:it|them|your|the)|reviewing|being (?:reviewed|"
        r"assessed|processed|looked at)|assessing|investigating|with (?:the|an|our) (?:assessor|"
        r"underwriter|team)",
    ),
    "in progress": (
        ("in progress", "working on it", "ongoing", "assigned"),
        r"working on (?:it|them|your|the)|(?:engineer|technician|someone|team)\b[\w\s']{0,20}?"
        r"\bon (?:it|the case)|assigned (?:to|an?)",
    ),
    "fixed": (
        (
            "fixed",
            "repaired",
            "resolved",
            "solved",
            "sorted",
            "ready for collection",
            "ready to collect",
            "ready",
        ),
        r"fixed|repaired|(?:has been|was|been|got) replaced|works? (?:again|fine now|now)|"
        r"working (?:again|now|fine now)|ready (?:to|for) (?:pick|collect)|sorted(?: out| now)?|"
        r"resolved|solved|back up",
    ),
    "closed": (
        ("closed", "complete", "completed", "done", "finished"),
        r"close (?:it|the ticket|the case)|all done|finished|completed",
    ),
    "collected": (
        ("collected", "picked up", "returned to customer", "handed over"),
        r"picked\b[\w\s']{0,15}?\bup|collected|came (?:in )?(?:for|and got)|got (?:it|them) back",
    ),
    "waiting on customer": (
        (
            "waiting on customer",
            "waiting on caller",
            "waiting for customer",
            "awaiting customer",
            "awaiting customer response",
            "pending customer",
            "waiting on user",
            "awaiting reply",
        ),
        r"waiting (?:for|on) (?:you|your (?:reply|answer|response|confirmation)|the (?:customer|"
        r"caller)|them) ?(?:to\b|reply|response|confirm)?|over to you|in your court",
    ),
    "waiting for parts": (
        ("waiting for parts", "awaiting parts", "parts ordered", "on hold"),
        r"(?:waiting|wait) (?:on|for) (?:a |the |some )?parts?|parts? (?:is|are|has been|have been)"
        r" ordered|on back ?order|on hold",
    ),
    "diagnosing": (
        ("diagnosing", "diagnosis", "testing", "inspecting", "assessing fault"),
        r"diagnos\w+|running (?:some )?tests|(?:looking|checking) (?:at|into) (?:the )?fault|"
        r"inspecting|testing (?:it|the)",
    ),
    "booked": (
        ("booked", "confirmed", "reserved", "hired", "secured", "scheduled", "contracted"),
        r"booked|hired|signed (?:with|the|up|a contract)|secured|locked (?:in|them in)|"
        r"reserved|contract (?:is )?signed",
    ),
    "deposit paid": (
        ("deposit paid", "deposit", "paid deposit"),
        r"paid\b[\w\s']{0,20}?\bdeposit|deposit\b[\w\s']{0,20}?\b(?:is |was |has been |been )?"
        r"(?:paid|sent|gone|went through|transferred)",
    ),
    "quote requested": (
        ("quote requested", "awaiting quote", "enquired", "enquiry sent", "requested quote"),
        r"(?:asked|requested|waiting|emailed|enquired|written)\b[\w\s']{0,25}?\b(?:quote|"
        r"quotation|price|prices)|(?:quote|quotation) (?:request|is coming|on its way)",
    ),
    "offered": (
        ("place offered", "offer made", "offered", "offer received", "offer"),
        r"(?:got|been|was|were|received|have|has)\s+(?:an?\s+)?offer(?:ed)?\b|offered (?:a|her|him|them|"
        r"me|us) (?:a )?(?:place|spot|job|position)",
    ),
    "interview": (
        ("interview offered", "interview", "interview invited", "invited to interview"),
        r"(?:got|been|was|were|has|have)\s+(?:an?\s+)?(?:invited to (?:an? )?)?interview\b|"
        r"invited (?:her|him|them|me|us) (?:in )?(?:for|to) (?:an? )?interview",
    ),
    "waitlisted": (
        ("waitlisted", "waiting list", "on the waiting list", "wait list", "waitlist"),
        r"(?:on|joined|onto|to) the wait(?:ing)?[\s-]?list|wait-?listed",
    ),
    "shortlisted": (
        ("shortlisted", "considering", "interested", "on the list", "longlisted"),
        r"shortlist(?:ed)?|considering|thinking about|(?:on|made) (?:the|my|our) (?:short ?)?list|"
        r"like the look of",
    ),
}
_STATUS_FIELD = re.compile(r"\b(?:status|state|stage|progress|stands?|standing)\b", re.I)
# A state not said as done: negated, conditional, to come, or wished for.
_UNSAID = (
    r"(?:\b(?:not|never|no|yet to|if|once|when|until|till|before|unless|as soon as|whether|"
    r"will|would|should|could|might|may|going to|hope|hoping|hopefully|fingers crossed|wish|"
    r"praying|waiting for|need(?:s|ed)? to|want(?:s|ed)? (?:it|them) to|trying to|expect|"
    r"expecting|supposed to)\b|n't|'ll)"
)
_NOT_SAID = re.compile(_UNSAID + r"[\w\s']{0,20}$", re.I)


_OF_MONEY = {"refunded", "paid", "deposit paid"}
_MONEY_SUBJECT = re.compile(r"\b(?:refund|money|payment|cash|credit|funds|reimbursement)\b"
                            r"[\w\s']{0,12}$")  # fmt: skip


def hoped(sentence: str, start: int) -> bool:
    """Whether what is said at ``start`` is negated, hoped for or to come in its clause ("I
    hope the claim gets approved", "once it's dispatched", "hasn't arrived")."""
    clause = re.split(r"[,;:]|\b(?:but|and then|so)\b", sentence[:start].lower())[-1]
    return bool(_NOT_SAID.search(clause))


def is_status(profile: Profile) -> bool:
    return profile.type == "enum" and bool(_STATUS_FIELD.search(profile.about))


_DENIED = re.compile(
    r"n't\b|\b(?:not|never|yet|hope|hoping|hopefully|fingers crossed|will|going to|if|whether)\b"
    r"|'ll\b",
    re.I,
)


def unsure(sentence: str, profile: Profile) -> bool:
    """Whether a status field's sentence says no state for sure: negated, hoped for or to come
    ("the refund hasn't come through yet"), so a word of a choice in it is no status."""
    return is_status(profile) and bool(_DENIED.search(sentence))


def said_states(sentence: str, profile: Profile) -> list[tuple[str, int, int]]:
    """(choice, start, end) of each state the sentence says in other words, for a status field:
    the choice that is that state when only one is; a statement, not a question; not the
    state of the money ("the refund is on its way" ships no parcel)."""
    if not is_status(profile) or sentence.rstrip().endswith("?"):
        return []
    lowered = sentence.lower()

    def skip(state: str, start: int) -> bool:
        of_money = state not in _OF_MONEY and bool(_MONEY_SUBJECT.search(lowered, 0, start))
        return of_money or hoped(lowered, start)

    choices = [str(c) for c in profile.field.get("choices") or []]
    return meanings_said(_STATES, sentence, choices, partial=True, skip=skip)


# A status said as it stands: "it's been delivered", "was approved", "got paid".
_AS_STATE = re.compile(
    r"\b(?:is|was|were|are|been|got|gets|now|already|finally|has|have|'s|'re)\s+(?:\w+\s+)?$",
    re.I,
)


def stated(sentence: str, start: int, how: str) -> bool:
    """Whether an enum mention of a status field says where the thing stands: a state said in
    other words, or the choice said as what the thing is ("it was delivered"); not hoped for,
    to come or negated ("I hope it gets approved")."""
    if hoped(sentence, start):
        return False
    return how.startswith("state ") or bool(_AS_STATE.search(sentence[:start]))


_POINTS_BACK = re.compile(r"^\W*(?:\w+\W+){0,3}?(?:it|they|it's|they've|they're|that|mine)\b", re.I)


def in_play(profile: Profile, sentence: str, asked: str, held: bool, things: list[str]) -> bool:
    """Whether the thing a status is of is what the sentence speaks of: named there or in the
    agent's turn before it ("order", "claim", or one of the things it keeps a status per: "the
    caterer"), already given a status, or pointed back to by the sentence's subject ("it came on
    Monday")."""
    words = {stem(w) for w in re.findall(r"[a-z]+", f"{profile.key} {' '.join(things)}".lower())}
    words -= {stem(w) for w in ("status", "state", "stage", "progress")}
    said = {stem(w) for w in re.findall(r"[a-z]+", f"{asked} {sentence}".lower())}
    return held or bool(words & said) or bool(_POINTS_BACK.match(sentence))


def status_said(profile: Profile, fields: list[Profile], mention: Mention, sentence: str,
                asked: str, current: Mapping[str, str], things: Mapping[str, list[str]]) -> bool:  # fmt: skip
    """Whether an enum mention says where its thing stands, for the one status field that has
    that choice, with the thing in play: "I got my money back" when the order is what the talk
    is about. ``asked``: the agent's turn before; ``current``: the facts as read so far;
    ``things``: field → the things it has facts per."""
    if not is_status(profile) or not stated(sentence, mention.start, mention.how):
        return False
    if [p for p in fields if is_status(p) and mention.value in p.field["choices"]] != [profile]:
        return False
    held = any(k.partition(":")[0] == profile.key for k in current)
    return in_play(
        profile, sentence, asked, held, [*profile.qualifiers, *things.get(profile.key, [])]
    )

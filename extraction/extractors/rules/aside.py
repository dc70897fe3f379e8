"""What the agent told before a yes/no question the user turns down: "So 21 April to 5 May. It's
€420 a week. Do you want the waiver?" — "no waiver" declines the waiver; the rate still stands.
Only dates and prices (not a budget) said of a field by its words, in a clause that is not about
the thing the question offers ("The extended warranty costs £89. Add it?"), not the agent's own
("Our spring offer ends on 31 March"), not what would be or one of several ("the refund would
be £120", "or the Fiat is €250") and not a value it replaced ("up from €420"); only when the
question asks about a field (else the values are likely the offer's own)."""

from __future__ import annotations

import re

from core.text import sentences
from extraction.extractors.rules.acts import is_question
from extraction.extractors.rules.amounts import spends
from extraction.extractors.rules.fields import Profile, content_words, field_words
from extraction.extractors.rules.mentions import Mention
from extraction.extractors.rules.prompts import Prompt, proposes

_OURS = re.compile(r"\W*(?:our|my)\b", re.I)
# what would be, or one of several: "the refund would be £120", "or the Fiat 500 is €250"
_MIGHT = re.compile(r"\b(?:would|could|might|if)\b|'d\b|\bor\b", re.I)
_BEFORE = re.compile(r"\b(?:from|was|were|used to be)\s+(?:about\s+|around\s+)?$", re.I)


def _clause(sentence: str, start: int, end: int) -> str:
    """The stretch of the sentence between the separators around a value."""
    left = max(sentence.rfind(";", 0, start), sentence.rfind(",", 0, start))
    right = min([i for i in (sentence.find(";", end), sentence.find(",", end)) if i >= 0]
                + [len(sentence)])  # fmt: skip
    return sentence[left + 1 : right]


def _of_the_offer(asked: Profile, profile: Profile, clause: str) -> bool:
    """Whether the clause names the thing the question offers by a word the value's own field
    does not have ("warranty" of a field ``warranty``, not "refund" of both ``refund_method`` and
    ``refund_amount``)."""
    theirs = set(field_words(asked.field, description=False))
    return bool(set(content_words(clause)) & (theirs - set(field_words(profile.field, False))))


def told_before_asking(prompt: Prompt) -> list[tuple[Profile, Mention, str]]:
    spoken = prompt.turn.text
    first = min([spoken.find(s) for s in sentences(spoken) if is_question(s)]
                + [len(spoken)])  # fmt: skip
    asked = prompt.asked[0][0] if prompt.asked else None
    if asked is None:
        return []  # "Flights on the 20th are £340. Shall I book those?" — "No": the offer's price
    out = []
    for profile, mention, cue in prompt.proposals:
        sentence = mention.sentence or ""
        at = spoken.find(sentence) if sentence else -1
        if (
            at < 0
            or at >= first
            or proposes(sentence)
            or not cue.startswith(("proposal names", "a range"))
        ):
            continue  # offered, or asked of the question's field only
        if mention.type not in ("date", "money") or (
            mention.type == "money" and spends(profile.key)
        ):
            continue  # "Our fees are £16,500. Would he need the bus?": no budget of theirs
        if asked is not None and (profile is asked or _of_the_offer(asked, profile, _clause(
                sentence, mention.start, mention.end))):  # fmt: skip
            continue
        if (
            _OURS.match(sentence)
            or _BEFORE.search(sentence[: mention.start])
            or _MIGHT.search(sentence)
        ):
            continue
        out.append((profile, mention, cue))
    return out

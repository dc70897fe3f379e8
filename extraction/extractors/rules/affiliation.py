"""Where a caller is from, said with their name as they introduce themselves: "Tobias Wendt, data
platform team.", "declan murphy, murphy and sons.", "I am Lucía Fernández from marketing in the
Madrid office" — the team or the company, for a field that keeps it (its key or description says
team, department, company, employer, business, firm or organisation)."""

from __future__ import annotations

import re

from core.text import sentences
from extraction.extractors.rules.fields import Profile
from extraction.extractors.rules.reader import Claim, Context
from extraction.extractors.rules.texts import text_claim

_INTRO = re.compile(
    r"^\W*(?:(?:hi|hello|hey|hiya|howdy|g'day|hola|namaste|morning|good (?:morning|afternoon|evening))\W+)*"
    r"(?:(?:i am|i'm|im|this is|it's|my name is)\s+)?"
    r"(?P<name>[A-Za-zÀ-ÿ'-]+(?:\s+[A-Za-zÀ-ÿ'-]+){1,2})\s*(?:,|\bfrom\b|\bat\b|\bof\b)\s*"
    r"(?P<org>[^,.!?;\u2014\u2013]+?)(?=\s+-\s+|[,.!?;\u2014\u2013]|$)",
    re.I,
)
_TEAM_WORDS = r"team|department|dept|division"
_TEAM = re.compile(rf"\b(?:{_TEAM_WORDS})\s*$", re.I)  # said as one: "data platform team"
# said as a department: "from marketing", "in finance"
_DEPARTMENT = re.compile(
    r"(?:the\s+)?(?:marketing|sales|finance|hr|human resources|it|legal|operations|ops|accounts|"
    r"accounting|engineering|support|customer service|procurement|payroll|admin|facilities|"
    r"security|research|product|design|compliance|risk|billing|logistics|dispatch|reception)",
    re.I,
)
# said as a business: "Murphy and Sons", "Acme Ltd", "Patel Builders"
_COMPANY = re.compile(
    r"\b(?:ltd|limited|plc|inc|llc|gmbh|co|company|sons|bros|brothers|group|solutions|services|"
    r"consulting|partners|builders|construction|plumbing|electrical|motors|associates|holdings|"
    r"enterprises|industries|corp|corporation|agency|studio|studios|bakery|cafe|restaurant|clinic|"
    r"surgery|pharmacy|hotel|school|academy|trust|council)\b\.?\s*$",
    re.I,
)
_TEAM_FIELD = re.compile(rf"\b(?:{_TEAM_WORDS})\b", re.I)
_COMPANY_FIELD = re.compile(
    r"\b(?:company|employer|business|firm|organi[sz]ation|agency|practice)\b", re.I
)
# not an organisation: "Kenji, I run marathon", "Priya, calling about my order"
_NOT_ORG = re.compile(
    r"^(?:i|i'm|im|my|we|we're|calling|ringing|here|just|about|again|please|thanks|"
    r"sorry|yes|no|need|want|got|have)\b",
    re.I,
)


def affiliation_claims(ctx: Context, taken: set[str]) -> list[Claim]:
    """The team or company said right after the caller's name in their first turns."""
    if ctx.turn.seq > 3:
        return []
    speaker = {w.lower() for w in ctx.turn.speaker.split()}
    match = next((m for s in sentences(ctx.turn.text)[:3] if (m := _INTRO.match(s))
                  and speaker & {w.lower() for w in m.group("name").split()}), None)  # fmt: skip
    if match is None:
        return []  # the name said must be the caller's
    org = re.split(r"\s+(?:in|at|and i|but|who|which|for)\s+", match.group("org").strip())[0]
    if not org or _NOT_ORG.match(org) or len(org.split()) > 5:
        return []
    team = bool(_TEAM.search(org)) or bool(_DEPARTMENT.fullmatch(org.strip()))
    if not team and not _COMPANY.search(org) and "&" not in org:  # "Tate & Crumb": a business
        return []  # "Sam Reid from Leeds", "Sam Reid, 14 Hill Street": no team nor company said
    fields = [
        p for p in ctx.fields if p.type == "string" and not p.qualified and p.key not in taken
    ]
    wanted = _TEAM_FIELD if team else _COMPANY_FIELD
    chosen: list[Profile] = [p for p in fields if wanted.search(p.about)] or [
        p for p in fields if (_COMPANY_FIELD if team else _TEAM_FIELD).search(p.about)
    ]
    if len(chosen) != 1:
        return []
    why: dict[str, object] = {"cue": "said with the caller's name"}
    return [text_claim(ctx, chosen[0], org.strip(), "explicit", 0, why)]

"""Synthetic but realistic rows for bench/scale.py: one user's sessions, turns, facts (with
superseded history), memory units and hot document, shaped as the service writes them.

Ratios follow the capacity question (docs/capacity.md): 20 turns a session, 5 sessions a user,
half a memory unit per turn (900 M vectors for 1.8 B turns), 12 fact keys a user of which a
third changed once or twice (superseded versions kept, as supersession never deletes). All but
the last session's turns are archived (extraction ran); the hot document holds the last
``context_window_turns`` of them and the watermark.
"""

from __future__ import annotations

import datetime
import hashlib
import random
import uuid
from dataclasses import dataclass, field
from typing import Any

import numpy as np

TURNS_PER_SESSION = 20
SESSIONS_PER_USER = 5
TURNS_PER_UNIT = 2  # 900 M vectors / 1.8 B turns
WINDOW = 10  # the bench agent's context_window_turns

CITIES = ["Pune", "Bengaluru", "Mumbai", "Hyderabad", "Chennai", "Delhi", "Kochi", "Jaipur", "Goa", "Lisbon", "Berlin", "Austin"]  # fmt: skip
PLACES = ["the metro", "the tech park", "her office", "the school", "the hospital", "the airport", "the lake", "the old town"]  # fmt: skip
THINGS = ["a 2BHK flat", "a 3BHK flat", "a villa", "a studio", "a car loan", "a home loan", "a flight", "a hotel room", "a dentist appointment", "a yoga class"]  # fmt: skip
NAMES = ["Priya", "Arjun", "Meera", "Rohan", "Ana", "Tobi", "Chloe", "Jose", "Fatima", "Liam", "Sofia", "Kenji"]  # fmt: skip
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]  # fmt: skip
USER_LINES = [
    "I'm looking at {thing} in {city} near {place}; our budget is {n} lakhs and we'd like to move by {month}.",
    "Actually can we change that to {city}? {name} says the commute to {place} is about {m} minutes from there.",
    "My doctor moved the appointment to {month} {d}, and I still take {m} mg of metformin every morning.",
    "We are flying to {city} on {month} {d} with {name}; please keep the hotel close to {place}.",
    "The loan officer said {n} lakhs at {m} percent, which is more than we planned for {thing}.",
    "Can you remind me what we decided about {thing} last time? I think {name} wanted {city}.",
]  # fmt: skip
ASSISTANT_LINES = [
    "Noted: {thing} in {city} near {place} under {n} lakhs. Shall I shortlist three options for {month}?",
    "Got it, {city} instead. I'll look for places within {m} minutes of {place} for you and {name}.",
    "Thanks, I've updated the appointment to {month} {d}. Would you like a reminder the day before?",
    "Your flight to {city} on {month} {d} is noted; I'll search hotels near {place} for two.",
    "At {m} percent on {n} lakhs the monthly payment rises; shall I compare two other lenders?",
    "Last time you chose {city} for {thing}; {name} preferred it for the commute to {place}.",
]  # fmt: skip
UNIT_LINES = [
    "{name} is looking for {thing} in {city} near {place} with a budget of {n} lakhs.",
    "{name}'s commute from {city} to {place} is about {m} minutes.",
    "{name} has a doctor's appointment on {month} {d} and takes {m} mg of metformin daily.",
    "{name} is flying to {city} on {month} {d} and wants a hotel near {place}.",
    "{name} was offered a loan of {n} lakhs at {m} percent for {thing}.",
    "{name} decided on {city} for {thing} because of the commute to {place}.",
]  # fmt: skip
QUERIES = [
    "what is her budget for the flat", "where does she want to live", "when is the doctor appointment",
    "which city is the flight to", "how long is the commute", "what interest rate was the loan",
    "which hotel area did they want", "what medication does she take", "when do they want to move",
    "what did they decide about the city", "how many lakhs was the loan", "who prefers the commute",
]  # fmt: skip
# (key, category, type): the bench agent's schema (bench/scale.py creates it with these fields).
FIELDS = [
    ("budget", "temporal", "string"), ("city", "temporal", "string"), ("move_date", "temporal", "string"),
    ("home_type", "temporal", "string"), ("commute_minutes", "temporal", "string"),
    ("employer", "profile", "string"), ("diet", "profile", "string"), ("allergy", "profile", "string"),
    ("medication", "temporal", "string"), ("doctor", "profile", "string"),
    ("flight_date", "temporal", "string"), ("destination", "temporal", "string"),
    ("pet", "profile", "string"), ("partner_name", "profile", "string"), ("kids", "profile", "string"),
    ("income", "temporal", "string"), ("loan_amount", "temporal", "string"),
    ("language", "profile", "string"), ("callback_time", "temporal", "string"), ("car", "profile", "string"),
]  # fmt: skip
FACT_KEYS = 12


def schema_fields() -> list[dict[str, str]]:
    return [
        {"key": k, "description": k.replace("_", " "), "category": c, "type": t}
        for k, c, t in FIELDS
    ]


def _fill(template: str, rng: random.Random) -> str:
    return template.format(
        thing=rng.choice(THINGS), city=rng.choice(CITIES), place=rng.choice(PLACES),
        name=rng.choice(NAMES), month=rng.choice(MONTHS), d=rng.randint(1, 28),
        n=rng.randint(20, 250), m=rng.randint(5, 90),
    )  # fmt: skip


class TextPool:
    """Pre-made turn and unit texts (drawing them per row would cost more than PostgreSQL's
    insert); 20,000 distinct turns and ``units`` distinct memory units (embedded for real by
    bench/scale.py), so full text has real variety."""

    def __init__(self, units: int = 2_000, seed: int = 18) -> None:
        rng = random.Random(seed)
        self.user = [_fill(rng.choice(USER_LINES), rng) for _ in range(10_000)]
        self.assistant = [_fill(rng.choice(ASSISTANT_LINES), rng) for _ in range(10_000)]
        self.units = [_fill(rng.choice(UNIT_LINES), rng) for _ in range(units)]


def random_unit_vectors(n: int, rng: np.random.Generator) -> np.ndarray:
    vectors = rng.standard_normal((n, 384), dtype=np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


@dataclass
class UserRows:
    """Every row of one user, as tuples in the column order of bench/scale_load.py's COPYs."""

    user: tuple[Any, ...]
    sessions: list[tuple[Any, ...]] = field(default_factory=list)
    turns: list[tuple[Any, ...]] = field(default_factory=list)
    entities: list[tuple[Any, ...]] = field(default_factory=list)
    units: list[tuple[Any, ...]] = field(default_factory=list)
    unit_text_index: list[int] = field(default_factory=list)  # into TextPool.units
    hot: dict[str, Any] = field(default_factory=dict)


@dataclass
class Ids:
    """The next explicit id of each bigint-keyed table (sequences are set after the load)."""

    user: int
    turn: int
    unit: int


def user_rows(
    *,
    pool: TextPool,
    ids: Ids,
    tenant_id: int,
    agent_id: int,
    external_id: str,
    turns: int,
    rng: random.Random,
    now: datetime.datetime,
) -> UserRows:
    """One user with ``turns`` turns (in sessions of 20), half as many memory units, facts with
    history, and what their hot document holds (recent turns, watermark, pending tokens)."""
    user_id = ids.user
    ids.user += 1
    out = UserRows(user=(user_id, tenant_id, external_id, now - datetime.timedelta(days=400)))
    n_sessions = max(1, -(-turns // TURNS_PER_SESSION))
    span = datetime.timedelta(days=365)
    start = now - span
    step = span / max(1, turns)
    last_archived, pending, recent = 0, 0, []
    done = 0
    for s in range(n_sessions):
        session_id = uuid.uuid4()
        count = min(TURNS_PER_SESSION, turns - done)
        last_session = s == n_sessions - 1
        first_at = start + step * done
        for seq in range(1, count + 1):
            at = start + step * done
            role = "user" if seq % 2 else "assistant"
            text = (pool.user if role == "user" else pool.assistant)[rng.randrange(10_000)]
            tokens = len(text) // 4
            archived = None if last_session else at + datetime.timedelta(hours=1)
            out.turns.append((ids.turn, tenant_id, session_id, agent_id, user_id, seq, role, text,
                              tokens, at, at, archived))  # fmt: skip
            if archived is None:
                pending += tokens
                recent.append((session_id, seq, role, text, at))
            else:
                last_archived = ids.turn
            if seq % TURNS_PER_UNIT == 0:
                index = rng.randrange(len(pool.units))
                text = pool.units[index]
                digest = hashlib.sha256(f"{user_id}:{ids.unit}:{text}".encode()).hexdigest()
                out.units.append((ids.unit, tenant_id, agent_id, user_id, session_id, text,
                                  seq - 1, seq, at, digest, at))  # fmt: skip
                out.unit_text_index.append(index)
                ids.unit += 1
            ids.turn += 1
            done += 1
        last_at = start + step * (done - 1)
        out.sessions.append((session_id, tenant_id, agent_id, user_id, f"{external_id}-s{s}", "{}",
                             first_at, last_at, count + 1))  # fmt: skip
    out.entities = _facts(tenant_id, agent_id, user_id, rng, start, now)
    out.hot = {"recent": recent[-WINDOW:], "watermark": last_archived, "pending": pending}
    return out


def _facts(
    tenant_id: int,
    agent_id: int,
    user_id: int,
    rng: random.Random,
    start: datetime.datetime,
    now: datetime.datetime,
) -> list[tuple[Any, ...]]:
    """FACT_KEYS keys; a third of them changed once or twice: each older value superseded (its
    ``valid_until`` and ``superseded_at`` set, ``superseded_by`` the next), the last active."""
    rows = []
    for key, category, _ in rng.sample(FIELDS, FACT_KEYS):
        versions = rng.choice([1, 1, 2, 3])
        chain = [uuid.uuid4() for _ in range(versions)]
        first = start + datetime.timedelta(days=rng.randint(0, 250))
        starts = [first + datetime.timedelta(days=40 * v) for v in range(versions)]
        for v in range(versions):
            active = v == versions - 1
            until = None if active else starts[v + 1]
            value = (
                f"{rng.choice(CITIES) if key in {'city', 'destination'} else rng.randint(2, 900)}"
            )
            rows.append((chain[v], tenant_id, agent_id, user_id, key, key, category,
                         f'"{value}"', value, "explicit", "active" if active else "superseded",
                         starts[v], until, starts[v], until, None,
                         None if active else chain[v + 1], "[]", False, "bench-scale"))  # fmt: skip
    return rows

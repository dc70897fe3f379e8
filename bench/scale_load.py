"""Bulk loading for bench/scale.py: COPY (psycopg's copy, not the API) of the rows
bench/scale_data.py makes, in batches of about 50,000 turns a transaction, with progress.

Runs in the bench process with Django set up against the bench's own stack (bench/scale.py),
so that hot documents are rendered by the service's own presenters and renderer and keyed by its
own cache-key function; everything else is plain COPY. Explicit ids for the bigint-keyed tables
(their sequences are moved past them at the end of each load).
"""

from __future__ import annotations

import datetime
import json
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import psycopg

from bench.scale_data import Ids, TextPool, UserRows, random_unit_vectors, user_rows

BATCH_TURNS = 50_000

COPIES = {
    "memory_enduser": "id, tenant_id, external_id, created_at",
    "memory_session": "id, tenant_id, agent_id, end_user_id, external_id, metadata, started_at, "
    "last_activity_at, next_seq",
    "memory_turn": "id, tenant_id, session_id, agent_id, end_user_id, seq, role, text, tokens, "
    "occurred_at, recorded_at, archived_at",
    "memory_entity": "id, tenant_id, agent_id, end_user_id, key, field, category, value, "
    "value_text, source, status, valid_from, valid_until, recorded_at, superseded_at, expires_at, "
    "superseded_by_id, source_turns, pinned, created_by",
    "memory_hotdocument": "tenant_id, agent_id, end_user_id, cache_key, version, stable_version, "
    "profile, facts, possibilities, pinned, summary, stable_block, recent_turns, expires_next_at, "
    "pending_tokens, watermark_turn_id, updated_at",
}
UNIT_STAGE = (
    "CREATE TEMP TABLE IF NOT EXISTS acu_stage (id bigint, tenant_id bigint, agent_id bigint, "
    "end_user_id bigint, session_id uuid, text text, first_seq bigint, last_seq bigint, "
    "occurred_at timestamptz, content_hash varchar(64), created_at timestamptz, embedding vector(384))"
)
UNIT_TYPES = ["int8", "int8", "int8", "int8", "uuid", "text", "int8", "int8", "timestamptz",
              "text", "timestamptz", "vector"]  # fmt: skip


@dataclass
class Scope:
    """Where users go: (tenant id, agent id, agent slug) per tenant, the first being the
    demo tenant's bench agent (the one the API key reaches)."""

    agents: list[tuple[int, int, str]]
    summary: str = (
        "The user is comparing flats in two cities and a home loan; they moved the doctor's "
        "appointment once and plan a trip with their partner."
    )


@dataclass
class Loaded:
    users: dict[str, list[tuple[int, str]]] = field(default_factory=dict)  # label → [(id, ext)]
    turns: int = 0
    units: int = 0
    facts: int = 0
    seconds: float = 0.0


class Progress:
    def __init__(self, label: str, total: int) -> None:
        self.label, self.total, self.started, self.last = label, total, time.monotonic(), 0.0

    def update(self, done: int, *, final: bool = False) -> None:
        now = time.monotonic()
        if not final and now - self.last < 2:
            return
        self.last = now
        rate = done / max(now - self.started, 1e-9)
        eta = (self.total - done) / rate if rate else float("inf")
        print(f"\r  {self.label}: {done:,}/{self.total:,} turns  {rate:,.0f} turns/s  "
              f"ETA {eta:,.0f} s   ", end="\n" if final else "", file=sys.stderr, flush=True)  # fmt: skip


def next_ids(conn: psycopg.Connection[Any]) -> Ids:
    row = conn.execute(
        "SELECT (SELECT coalesce(max(id), 0) FROM memory_enduser), "
        "(SELECT coalesce(max(id), 0) FROM memory_turn), (SELECT coalesce(max(id), 0) FROM memory_acu)"
    ).fetchone()
    assert row is not None
    return Ids(user=row[0] + 1, turn=row[1] + 1, unit=row[2] + 1)


def sequences_reset(conn: psycopg.Connection[Any]) -> None:
    for table in ("memory_enduser", "memory_turn", "memory_acu"):
        conn.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))"  # noqa: S608 (constants)
        )


def _hot_row(rows: UserRows, tenant: int, agent: int, slug: str, summary: str) -> tuple[Any, ...]:
    """The user's hot document as the service renders it (its presenters and renderer)."""
    from memory.hot.cache import hot_cache_key
    from memory.models import Entity, Turn
    from memory.presenters import facts_split, turn_present
    from memory.rendering import stable_block_render

    active = [
        Entity(id=r[0], key=r[4], category=r[6], value=json.loads(r[7]), value_text=r[8],
               source=r[9], valid_from=r[11], expires_at=None, pinned=False)
        for r in rows.entities if r[10] == "active"
    ]  # fmt: skip
    parts = facts_split(active)
    recent = [
        turn_present(Turn(session_id=s, seq=q, role=role, text=text, occurred_at=at))
        for s, q, role, text, at in rows.hot["recent"]
    ]
    key = hot_cache_key(tenant_id=tenant, agent_slug=slug, user_external_id=rows.user[2])
    return (tenant, agent, rows.user[0], key, 1, 1, json.dumps(parts["profile"]),
            json.dumps(parts["facts"]), json.dumps(parts["possibilities"]), json.dumps(parts["pinned"]),
            summary, stable_block_render(summary=summary, **parts), json.dumps(recent), None,
            rows.hot["pending"], rows.hot["watermark"], rows.user[3])  # fmt: skip


def _copy(conn: psycopg.Connection[Any], table: str, rows: list[tuple[Any, ...]]) -> None:
    with conn.cursor() as cursor, cursor.copy(f"COPY {table} ({COPIES[table]}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def _copy_units(
    conn: psycopg.Connection[Any], units: list[tuple[Any, ...]], vectors: np.ndarray
) -> None:
    with conn.cursor() as cursor:
        cursor.execute(UNIT_STAGE)
        with cursor.copy("COPY acu_stage FROM STDIN WITH (FORMAT BINARY)") as copy:
            copy.set_types(UNIT_TYPES)
            for row, vector in zip(units, vectors, strict=True):
                copy.write_row((*row, vector))
        # The keyword vector as the service computes it (memory/services/units.py).
        cursor.execute(
            "INSERT INTO memory_acu (id, tenant_id, agent_id, end_user_id, session_id, text, "
            "first_seq, last_seq, occurred_at, content_hash, created_at, embedding, keywords) "
            "SELECT id, tenant_id, agent_id, end_user_id, session_id, text, first_seq, last_seq, "
            "occurred_at, content_hash, created_at, embedding, to_tsvector('english', text) FROM acu_stage"
        )
        cursor.execute("TRUNCATE acu_stage")


class Loader:
    """Loads users in batches; the pool's real embeddings go to users in ``real``."""

    def __init__(self, conn: psycopg.Connection[Any], scope: Scope, pool: TextPool,
                 pool_vectors: np.ndarray, seed: int = 18) -> None:  # fmt: skip
        from pgvector.psycopg import register_vector

        register_vector(conn)
        self.conn, self.scope, self.pool, self.pool_vectors = conn, scope, pool, pool_vectors
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        self.now = datetime.datetime.now(datetime.UTC)

    def vectors(self, rows: UserRows, real: bool) -> np.ndarray:
        if not real:
            return random_unit_vectors(len(rows.units), self.np_rng)
        # The bundled embedder's vector of the unit's text, nudged (cosine ≈ 0.99 to it) so
        # that no two units of a user are the same point.
        base = self.pool_vectors[rows.unit_text_index]
        noisy = base + self.np_rng.standard_normal(base.shape, dtype=np.float32) * 0.005
        return noisy / np.linalg.norm(noisy, axis=1, keepdims=True)

    def load(self, plan: list[tuple[str, str, int, bool, int]], label: str) -> Loaded:
        """``plan``: (label, external id, turns, real embeddings, tenant index) per user."""
        out = Loaded()
        ids = next_ids(self.conn)
        total = sum(p[2] for p in plan)
        progress = Progress(label, total)
        started = time.monotonic()
        batch: list[tuple[UserRows, bool, int]] = []
        batch_turns = 0
        for user_label, external_id, turns, real, tenant_index in plan:
            tenant, agent, _ = self.scope.agents[tenant_index]
            rows = user_rows(pool=self.pool, ids=ids, tenant_id=tenant, agent_id=agent,
                             external_id=external_id, turns=turns, rng=self.rng, now=self.now)  # fmt: skip
            out.users.setdefault(user_label, []).append((rows.user[0], external_id))
            batch.append((rows, real, tenant_index))
            batch_turns += len(rows.turns)
            if batch_turns >= BATCH_TURNS:
                self._write(batch, out)
                progress.update(out.turns)
                batch, batch_turns = [], 0
        if batch:
            self._write(batch, out)
        sequences_reset(self.conn)
        self.conn.commit()
        progress.update(out.turns, final=True)
        out.seconds = time.monotonic() - started
        return out

    def _write(self, batch: list[tuple[UserRows, bool, int]], out: Loaded) -> None:
        conn = self.conn
        _copy(conn, "memory_enduser", [rows.user for rows, _, _ in batch])
        _copy(conn, "memory_session", [s for rows, _, _ in batch for s in rows.sessions])
        _copy(conn, "memory_turn", [t for rows, _, _ in batch for t in rows.turns])
        _copy(conn, "memory_entity", [e for rows, _, _ in batch for e in rows.entities])
        units = [u for rows, _, _ in batch for u in rows.units]
        if units:
            vectors = np.vstack([self.vectors(rows, real) for rows, real, _ in batch if rows.units])
            _copy_units(conn, units, vectors)
        hot = []
        for rows, _, tenant_index in batch:
            tenant, agent, slug = self.scope.agents[tenant_index]
            hot.append(_hot_row(rows, tenant, agent, slug, self.scope.summary))
        _copy(conn, "memory_hotdocument", hot)
        conn.commit()
        out.turns += sum(len(rows.turns) for rows, _, _ in batch)
        out.units += len(units)
        out.facts += sum(len(rows.entities) for rows, _, _ in batch)

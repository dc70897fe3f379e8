"""A user's search index held in the process: their memory units' vectors and days, and BM25
over their turns' and units' words (ADR 0010, "in-process legs").

Exact cosine over a thousand vectors is 0.1 ms in numpy and about 3 ms as a pgvector scan (it
reads every row); BM25 over the user's turns is a fraction of a millisecond and ranks better than
``ts_rank_cd`` (it has an IDF); neither pays PostgreSQL's planning per query. What it costs: the
first search of a user in a process loads their rows (≈ 40 ms for a thousand units), and memory
(≈ 1.6 kB per unit; at most MAX_CACHED_UNITS per process, least recently searched users first out).

Every search checks the index is current by the user's hot document versions (one row by its
unique index): ``version`` moves with every append, ``stable_version`` with every rebuild (an
extraction run writing units, a forgotten fact, a redaction). After appends the new rows (by id)
are added; after a rebuild the user is reloaded. Units and turns deleted without a rebuild (the
retention sweep) may still rank here until the next one, but a hit's text is always read from
PostgreSQL, and a unit no longer there is dropped.

A user with more than MAX_USER_ROWS units and turns is held as a *window* (ADR 0029, "the
window in process"): BM25 over their newest WINDOW turns and WINDOW units, no vectors (their
semantic leg is their own HNSW index in PostgreSQL). Appends add the new turns; a rebuild
reloads the window (units are written only by rebuilds); a window grown past twice its size is
reloaded too.
"""

from __future__ import annotations

import datetime
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.db import connection

from memory.models import Entity
from memory.search.bm25 import Bm25
from memory.search.hits import unit_subject

MAX_USER_ROWS = 20_000  # units + turns; a larger user is held as a window
WINDOW = 20_000  # a heavy user's newest turns, and newest units, held for their keyword legs
MAX_CACHED_UNITS = 60_000  # per process, all users: ≈ 95 MB of vectors

# One statement for what every search reads first: the hot document's versions (``version``
# moves with every append, removal and rebuild, ``stable_version`` with every rebuild: an
# extraction run, a forgotten fact, a redaction) and the current facts (entity_list's "now").
_START = (
    "SELECT h.version, h.stable_version, e.id, e.key, e.value_text, e.source, e.valid_from, "
    "e.source_turns FROM (SELECT 1) one "
    "LEFT JOIN memory_hotdocument h ON h.tenant_id = %s AND h.agent_id = %s AND h.end_user_id = %s "
    "LEFT JOIN memory_entity e ON e.tenant_id = %s AND e.agent_id = %s AND e.end_user_id = %s "
    "AND e.status = 'active' AND e.valid_from <= %s AND (e.expires_at IS NULL OR e.expires_at > %s) "
    "ORDER BY e.key, e.valid_from, e.recorded_at"
)


def search_start(
    *, tenant_id: int, agent_id: int, end_user_id: int, now: datetime.datetime
) -> tuple[tuple[int, int], list[Entity]]:
    """The user's hot document versions and current facts, in one round trip."""
    rows = _rows(_START, [tenant_id, agent_id, end_user_id] * 2 + [now, now])
    state = (int(rows[0][0] or 0), int(rows[0][1] or 0))
    facts = [
        Entity(id=r[2], tenant_id=tenant_id, agent_id=agent_id, end_user_id=end_user_id, key=r[3],
               value_text=r[4], source=r[5], valid_from=r[6], source_turns=_json(r[7]))
        for r in rows if r[2] is not None
    ]  # fmt: skip
    return state, facts


@dataclass
class UserIndex:
    state: tuple[int, int] = (-1, -1)
    window: bool = False  # a heavy user's newest rows, without vectors
    max_unit: int = 0
    max_turn: int = 0
    unit_ids: list[int] = field(default_factory=list)
    unit_turns: list[tuple[str, int, int] | None] = field(default_factory=list)
    vectors: list[np.ndarray] = field(default_factory=list)
    dates: list[datetime.date] = field(default_factory=list)
    subjects: list[str | None] = field(default_factory=list)
    units: Bm25 = field(default_factory=Bm25)
    turn_keys: list[tuple[str, int]] = field(default_factory=list)
    turns: Bm25 = field(default_factory=Bm25)
    by_turn: dict[tuple[str, int], list[int]] = field(default_factory=dict)
    derived: dict[str, Any] = field(default_factory=dict)  # what the ranker works out from these
    _matrix: np.ndarray | None = None
    _orphans: np.ndarray | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reset(self) -> None:
        """Empty it (its lock stays: the caller holds it)."""
        self.state, self.max_unit, self.max_turn = (-1, -1), 0, 0  # ``window`` stays
        self.unit_ids, self.unit_turns, self.vectors, self.dates = [], [], [], []
        self.subjects, self.derived = [], {}
        self.units, self.turn_keys, self.turns, self.by_turn = Bm25(), [], Bm25(), {}
        self._matrix = self._orphans = None

    @property
    def matrix(self) -> np.ndarray:
        if self._matrix is None or len(self._matrix) != len(self.vectors):
            self._matrix = (
                np.vstack(self.vectors) if self.vectors else np.zeros((0, 384), np.float32)
            )
        return self._matrix

    def units_add(self, rows: list[tuple[Any, ...]]) -> None:
        """Rows of (id, text, session, first_seq, last_seq, embedding text, occurred_at)."""
        for unit_id, text, session, first, last, embedding, occurred_at in rows:
            self.units.add(text)
            self.dates.append(occurred_at.date())
            self.subjects.append(unit_subject(text))
            position = len(self.unit_ids)
            self.max_unit = max(self.max_unit, int(unit_id))
            self.unit_ids.append(int(unit_id))
            if embedding is not None:  # a window holds none
                self.vectors.append(np.fromstring(embedding[1:-1], dtype=np.float32, sep=","))
            if session is not None and first is not None:
                span = (str(session), int(first), int(last if last is not None else first))
                self.unit_turns.append(span)
                for seq in range(span[1], span[2] + 1):
                    self.by_turn.setdefault((span[0], seq), []).append(position)
            else:
                self.unit_turns.append(None)

    def orphans(self) -> np.ndarray:
        """Per unit: none of the turns it was made from is here (deleted by retention, or it
        was never made from turns)."""
        if self._orphans is None or len(self._orphans) != len(self.unit_ids):
            held = set(self.turn_keys)
            self._orphans = np.array(
                [span is None or not any((span[0], seq) in held for seq in range(span[1], span[2] + 1))
                 for span in self.unit_turns], dtype=bool)  # fmt: skip
        return self._orphans

    def turns_add(self, rows: list[tuple[Any, ...]]) -> None:
        """Rows of (id, session, seq, text)."""
        self._orphans = None
        for turn_id, session, seq, text in rows:
            self.max_turn = max(self.max_turn, int(turn_id))
            self.turn_keys.append((str(session), int(seq)))
            self.turns.add(text)


_lock = threading.Lock()
_indexes: OrderedDict[tuple[int, int, int], UserIndex] = OrderedDict()


def _rows(sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _load(index: UserIndex, scope: list[int], after_unit: int, after_turn: int) -> None:
    if index.window:
        _window_load(index, scope)
        return
    index.units_add(_rows(
        "SELECT id, text, session_id, first_seq, last_seq, embedding::text, occurred_at FROM memory_acu "
        "WHERE tenant_id = %s AND agent_id = %s AND end_user_id = %s AND embedding IS NOT NULL "
        "AND id > %s ORDER BY id", [*scope, after_unit]))  # fmt: skip
    index.turns_add(_rows(
        "SELECT id, session_id, seq, text FROM memory_turn WHERE tenant_id = %s AND agent_id = %s "
        "AND end_user_id = %s AND id > %s ORDER BY id", [*scope, after_turn]))  # fmt: skip


def _window_load(index: UserIndex, scope: list[int]) -> None:
    """A heavy user's newest WINDOW units (on a fresh load only: units come with rebuilds, and
    a rebuild reloads) and their turns newer than the index holds (the newest WINDOW on a fresh
    load), each read newest first along the user's index on its table."""
    if index.state == (-1, -1):
        index.units_add(_rows(
            "SELECT * FROM (SELECT id, text, session_id, first_seq, last_seq, NULL, occurred_at "
            "FROM memory_acu WHERE tenant_id = %s AND agent_id = %s AND end_user_id = %s "
            "AND embedding IS NOT NULL ORDER BY occurred_at DESC LIMIT %s) u ORDER BY id",
            [*scope, WINDOW]))  # fmt: skip
    index.turns_add(_rows(
        "SELECT * FROM (SELECT id, session_id, seq, text FROM memory_turn WHERE tenant_id = %s "
        "AND agent_id = %s AND end_user_id = %s AND id > %s ORDER BY id DESC LIMIT %s) t ORDER BY id",
        [*scope, index.max_turn, WINDOW]))  # fmt: skip


def _larger_than(scope: list[int], limit: int) -> bool:
    """Whether the user has more than ``limit`` units and turns, reading at most limit + 1 of
    each by index (a few milliseconds, once per user and process)."""
    rows = _rows(
        "SELECT (SELECT count(*) FROM (SELECT 1 FROM memory_acu WHERE tenant_id = %s AND agent_id = %s "
        "AND end_user_id = %s LIMIT %s) a) + (SELECT count(*) FROM (SELECT 1 FROM memory_turn "
        "WHERE tenant_id = %s AND agent_id = %s AND end_user_id = %s LIMIT %s) t)",
        [*scope, limit + 1, *scope, limit + 1],
    )  # fmt: skip
    return int(rows[0][0]) > limit


def _json(value: Any) -> list[Any]:
    """jsonb as Django's cursor returns it (text), or already decoded."""
    decoded = json.loads(value) if isinstance(value, str) else value
    return list(decoded or [])


def user_index(
    *, tenant_id: int, agent_id: int, end_user_id: int, state: tuple[int, int]
) -> UserIndex:
    """The user's index brought up to ``state`` (``search_start``'s versions): all their rows,
    or for a heavy user their newest (``window``). Read it under its ``lock``."""
    scope = [tenant_id, agent_id, end_user_id]
    key = (tenant_id, agent_id, end_user_id)
    with _lock:
        index = _indexes.get(key)
        if index is None:
            index = _indexes[key] = UserIndex()
        _indexes.move_to_end(key)
    with index.lock:
        if index.state == state:
            return index
        if index.state == (-1, -1) and not index.window and _larger_than(scope, MAX_USER_ROWS):
            # Counted before loading: loading a heavy user's rows only to find them too many
            # cost each process tens of seconds on that user's first search (bench/scale.py).
            index.window = True
        if state[1] != index.state[1] or (index.window and len(index.turn_keys) > 2 * WINDOW):
            index.reset()  # rebuilt (a run, a forgotten fact), or a window grown to twice its size
        _load(index, scope, index.max_unit, index.max_turn)  # else only appends: the new rows
        if not index.window and _rows_held(index) > MAX_USER_ROWS:
            index.window = True  # grown heavy since: held as a window from now on
            index.reset()
            _load(index, scope, 0, 0)
        index.state = state
    with _lock:
        while (
            sum(len(i.unit_ids) for i in _indexes.values()) > MAX_CACHED_UNITS and len(_indexes) > 1
        ):
            _indexes.popitem(last=False)
    return index


def _rows_held(index: UserIndex) -> int:
    return len(index.unit_ids) + len(index.turn_keys)


def index_forget_user(end_user_id: int) -> None:
    with _lock:
        for key in [k for k in _indexes if k[2] == end_user_id]:
            _indexes.pop(key, None)


def index_clear() -> None:
    with _lock:
        _indexes.clear()

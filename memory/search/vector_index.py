"""Per-user approximate vector indexes for heavy users (ADR 0029).

A user whose memory units outgrow the in-process index (``index.MAX_USER_ROWS``) is searched in
SQL, and there the semantic leg's exact scan reads every one of their vectors: about 0.7 s for
10^5 units on this machine (bench/scale.py), against a 50 ms target. pgvector 0.6.2 filters an
HNSW scan only after it (no iterative scans), so one index over every user's units returns
``ef_search`` candidates of which almost none are this user's. What stays per user is a
*partial* HNSW index, ``WHERE end_user_id = <id>``: the planner uses it when the statement names
that id as a constant, so the semantic leg inlines it (an int, never text) for users that have
one, and raises ``hnsw.ef_search`` to 100 for that statement (the default 40 could return fewer
than the leg's 50 candidates).

The first SQL search of a user without one enqueues its build (``CREATE INDEX CONCURRENTLY``,
by task name, once per process); until it exists the exact scan answers. Which users have one
is read from the catalog and kept per process for a minute.
"""

from __future__ import annotations

import logging
import time

from celery import current_app
from django.db import connection

logger = logging.getLogger(__name__)

BUILD_TASK = "memory.acu_vector_index_build"
PREFIX = "acu_hnsw_user_"
_CACHE_SECONDS = 60.0

_known: tuple[float, frozenset[int]] = (0.0, frozenset())
_requested: set[int] = set()


def index_name(end_user_id: int) -> str:
    return f"{PREFIX}{int(end_user_id)}"


def users_with_index() -> frozenset[int]:
    """The end users that have a partial HNSW index (from the catalog, cached a minute)."""
    global _known
    if time.monotonic() - _known[0] < _CACHE_SECONDS:
        return _known[1]
    with connection.cursor() as cursor:
        # Valid ones only: a concurrent build in progress (or one that failed) is not.
        cursor.execute(
            "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
            "WHERE i.indrelid = 'memory_acu'::regclass AND i.indisvalid AND c.relname LIKE %s",
            [f"{PREFIX}%"],
        )
        users = frozenset(int(name[len(PREFIX) :]) for (name,) in cursor.fetchall())
    _known = (time.monotonic(), users)
    return users


def vector_index_request(*, end_user_id: int) -> None:
    """Ask a worker to build the user's index (once per process; the build is idempotent)."""
    if end_user_id in _requested:
        return
    _requested.add(end_user_id)
    try:
        current_app.signature(BUILD_TASK, args=[int(end_user_id)]).apply_async()
    except Exception:  # the broker down: search still answers (exactly); the next process asks
        logger.warning("could not ask for the vector index of user %s", end_user_id, exc_info=True)


def vector_index_build(*, end_user_id: int) -> None:
    """Build the user's partial HNSW index without blocking writes (outside a transaction);
    one a failed build left invalid is dropped first."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT NOT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
            "WHERE c.relname = %s",
            [index_name(end_user_id)],
        )
        row = cursor.fetchone()
        if row is not None and row[0]:
            cursor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {index_name(end_user_id)}")
        # Inside a transaction (a test's, an eager task's) it cannot be concurrent, and the
        # transaction's deferred foreign-key checks must have run first.
        how = "" if connection.in_atomic_block else "CONCURRENTLY"
        # The graph of 10^5 vectors (~200 MB) built in memory is several times faster than one
        # spilling past the default 64 MB.
        cursor.execute("SET maintenance_work_mem = '512MB'")
        if connection.in_atomic_block:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(
            f"CREATE INDEX {how} IF NOT EXISTS {index_name(end_user_id)} ON memory_acu "
            f"USING hnsw (embedding vector_cosine_ops) WHERE end_user_id = {int(end_user_id)}"
        )
        cursor.execute("RESET maintenance_work_mem")
    vector_index_forget()


def vector_index_drop(*, end_user_id: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {index_name(end_user_id)}")
    vector_index_forget()


def vector_index_forget() -> None:
    global _known
    _known = (0.0, frozenset())

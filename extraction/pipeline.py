"""The write lane (DESIGN §5): one extraction run over a user's turns after the watermark.

Everything slow (extraction, compression, embedding, dedup decisions) is computed first, under a
per-user PostgreSQL advisory lock; then all writes (facts, memory units, archive, watermark,
summary, hot document, run figures) happen in one transaction. A crash anywhere before that
commit writes nothing, so the retry re-runs the same window and produces exactly one set of
results. Nothing here runs on the request path.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from django.db import connection, transaction
from django.utils import timezone

from core.errors import Invalid
from core.text import sentences
from extraction.events import run_event_emit
from extraction.extractors import (
    AcuCandidate,
    Extraction,
    Extractor,
    FactCandidate,
    Usage,
    WindowTurn,
    extractor_for,
)
from extraction.models import ExtractionRun, RunStatus
from extraction.stages.compress import KeptUnits, atomicity_problems, content_hash
from extraction.stages.smart_keep import smart_keep
from extraction.stages.summary import Version, summary_consistent, summary_fold
from extraction.stages.summary_cited import summary_traceable
from extraction.values import value_signature
from memory.embedding import embed
from memory.models import EndUser, Entity, HotDocument, Session, Status, Turn
from memory.services import (
    acu_create_many,
    acu_nearest,
    end_user_lock_live,
    entity_end,
    entity_upsert,
    hot_document_rebuild,
    turns_archive,
)
from memory.validation import participants_of
from schemas.models import Agent
from schemas.selectors import schema_active
from webhooks.services import webhook_endpoints_read_once

logger = logging.getLogger(__name__)

EMBED_BATCH = 64
MAX_EXPLANATIONS = 2000  # per run: a backlog run explains its first facts, not all
MAX_WINDOW_TURNS = 2000  # a larger backlog is done in several runs, each committing its part
_LOCK_NAMESPACE = 0x48564552  # "HVER": keeps our advisory locks apart from anyone else's


class Busy(Exception):
    """Another execution holds this user's lock, or has finished this run meanwhile."""


class UserErased(Exception):
    """The end user was erased (or is being erased) while the run computed: it writes nothing."""


def _lock_key(agent_id: int, end_user_id: int) -> int:
    return (agent_id * 1_000_003 + end_user_id) % (2**31)


@contextlib.contextmanager
def user_lock(agent_id: int, end_user_id: int) -> Iterator[None]:
    """A session-level advisory lock per (agent, user): held for the whole run, released on
    exit, and by PostgreSQL itself if the worker dies (its connection closes)."""
    key = _lock_key(agent_id, end_user_id)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [_LOCK_NAMESPACE, key])
        if not cursor.fetchone()[0]:
            raise Busy
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [_LOCK_NAMESPACE, key])


def user_lock_free(agent_id: int, end_user_id: int) -> bool:
    """Whether no run holds this user's lock now (a running run without it has no worker)."""
    key = _lock_key(agent_id, end_user_id)
    with connection.cursor() as cursor:
        cursor.execute(
            # CASE fixes the order: unlock only what this call took.
            "SELECT CASE WHEN pg_try_advisory_lock(%s, %s) "
            "THEN pg_advisory_unlock(%s, %s) ELSE false END",
            [_LOCK_NAMESPACE, key, _LOCK_NAMESPACE, key],
        )
        return bool(cursor.fetchone()[0])


def _speakers(session: Session, end_user: EndUser, name: str | None) -> tuple[str, str]:
    participants = participants_of(session.metadata)
    # People by name, never by external id (an id is no one's name and leaks into memory).
    user = participants.get("user") or name or "the user"
    assistant = participants.get("assistant") or "the assistant"
    return str(user), str(assistant)


def known_facts(agent: Agent, end_user: EndUser) -> dict[str, str]:
    """The user's active facts before the run (key → value text): what the extractor reads new
    turns against ("Porto instead of Lisbon", "the other account")."""
    rows = Entity.objects.filter(agent=agent, end_user=end_user, status=Status.ACTIVE).order_by(
        "valid_from"
    )
    return dict(rows.values_list("key", "value_text"))


def load_window(
    agent: Agent, end_user: EndUser, after: int, known: dict[str, str]
) -> tuple[list[WindowTurn], list[WindowTurn]]:
    """(turns after the watermark, every unarchived turn) as extractor input."""
    name = known.get("name")
    turns = list(
        Turn.objects.filter(tenant_id=agent.tenant_id, agent=agent, end_user=end_user)
        .filter(id__gt=after)
        .order_by("id")[:MAX_WINDOW_TURNS]
        .select_related("session")
    )
    unarchived = list(
        Turn.objects.filter(
            tenant_id=agent.tenant_id, agent=agent, end_user=end_user, archived_at__isnull=True
        )
        .order_by("id")
        .select_related("session")
    )

    def view(turn: Turn) -> WindowTurn:
        user, assistant = _speakers(turn.session, end_user, name)
        speaker, listener = (user, assistant) if turn.role == "user" else (assistant, user)
        return WindowTurn(
            turn.id,
            str(turn.session_id),
            turn.seq,
            turn.role,
            turn.text,
            turn.occurred_local,  # "tomorrow" is the day after the user's day, not UTC's
            speaker,
            listener,
        )

    return [view(t) for t in turns], [view(t) for t in unarchived]


def _segments(turns: list[WindowTurn], size: int) -> list[list[WindowTurn]]:
    segments: list[list[WindowTurn]] = []
    for turn in turns:
        if segments and segments[-1][-1].session_id == turn.session_id and len(segments[-1]) < size:
            segments[-1].append(turn)
        else:
            segments.append([turn])
    return segments


def run_stages(extractor: Extractor, agent: Agent, end_user: EndUser, window: list[WindowTurn],
               fields: list[dict[str, Any]], timings: dict[str, float], counts: dict[str, int],
               known: dict[str, str]) -> tuple[Extraction, list[dict[str, Any]]]:  # fmt: skip
    """Stages 1 and 3 (in parallel when the extractor calls a model), then atomicity, embedding
    and dedup. Pure computation plus reads: no writes."""
    usage = Usage()
    names = sorted({t.speaker for t in window} | {t.listener for t in window})

    def stage_extract() -> list[FactCandidate]:
        started = time.perf_counter()
        facts = extractor.extract_facts(window, fields, usage, known)
        timings["extract"] = round((time.perf_counter() - started) * 1000, 2)
        return facts

    def stage_compress() -> list[AcuCandidate]:
        started = time.perf_counter()
        units: list[AcuCandidate] = []
        for segment in _segments(window, agent.acu_segment_turns):
            units += extractor.compress(segment, usage)
        timings["compress"] = round((time.perf_counter() - started) * 1000, 2)
        return units

    if extractor.name == "rules":
        facts, candidates = stage_extract(), stage_compress()
    else:
        with ThreadPoolExecutor(max_workers=2) as pool:
            facts_future, units_future = pool.submit(stage_extract), pool.submit(stage_compress)
            facts, candidates = facts_future.result(), units_future.result()

    started = time.perf_counter()
    atomic: list[AcuCandidate] = []
    for unit in candidates:
        if atomicity_problems(unit.text, names):
            counts["atomicity_rejects"] += 1
        else:
            atomic.append(unit)
    seen_hashes: set[str] = set()
    unique: list[AcuCandidate] = []
    for unit in atomic:
        digest = content_hash(unit.text)
        if digest in seen_hashes:
            counts["duplicates_dropped"] += 1
            continue
        seen_hashes.add(digest)
        unique.append(unit)
    vectors = (
        np.vstack(
            [
                embed([u.text for u in unique[i : i + EMBED_BATCH]])
                for i in range(0, len(unique), EMBED_BATCH)
            ]
        )
        if unique
        else np.zeros((0, 384), dtype=np.float32)
    )
    timings["embed"] = round((time.perf_counter() - started) * 1000, 2)

    started = time.perf_counter()
    kept: list[dict[str, Any]] = []
    kept_units = KeptUnits(len(unique), vectors.shape[1])
    threshold = agent.dedup_threshold
    nearest = acu_nearest(agent=agent, end_user=end_user, vectors=list(vectors), k=3)
    for unit, vector, stored in zip(unique, vectors, nearest, strict=True):
        signature = value_signature(unit.text)  # a near-duplicate states the same values too
        stored_dupe = any(
            similarity >= threshold and value_signature(text) == signature
            for text, similarity in stored
        )
        if stored_dupe or kept_units.duplicate(signature, vector, threshold):
            counts["duplicates_dropped"] += 1
            continue
        kept_units.add(signature, vector)
        kept.append({"text": unit.text, "embedding": vector, "session_id": unit.session_id,
                     "first_seq": unit.first_seq, "last_seq": unit.last_seq,
                     "occurred_at": unit.occurred_at, "content_hash": content_hash(unit.text)})  # fmt: skip
    timings["dedup"] = round((time.perf_counter() - started) * 1000, 2)
    return Extraction(facts=facts, usage=usage), kept


def execute(run: ExtractionRun) -> ExtractionRun:
    """Run the pipeline for a claimed run. Raises Busy if another run holds the user's lock."""
    agent = Agent.objects.get(pk=run.agent_id, tenant_id=run.tenant_id)
    end_user = EndUser.objects.filter(pk=run.end_user_id, tenant_id=run.tenant_id).first()
    if end_user is None:
        raise UserErased
    timings: dict[str, float] = {}
    counts = {"turns": 0, "facts": 0, "superseded": 0, "acus": 0, "duplicates_dropped": 0,
              "atomicity_rejects": 0, "archived": 0, "kept": 0}  # fmt: skip
    total_started = time.perf_counter()
    with user_lock(agent.pk, end_user.pk):
        # A message delivered twice (a re-sent orphan, a broker redelivery) may have claimed
        # the run while another execution held the lock, which has since finished it.
        if not ExtractionRun.objects.filter(pk=run.pk, status=RunStatus.RUNNING).exists():
            raise Busy
        document = HotDocument.objects.filter(agent=agent, end_user=end_user).first()
        watermark = document.watermark_turn_id if document else 0
        summary = document.summary if document else ""
        schema = schema_active(agent=agent)

        started = time.perf_counter()
        known = known_facts(agent, end_user)
        window, unarchived = load_window(agent, end_user, watermark, known)
        counts["turns"] = len(window)
        if not window:
            return _finish(
                run, RunStatus.SUCCEEDED, timings, counts, Usage(), schema.version, None, None
            )
        keep = smart_keep(
            unarchived, min_kept=agent.min_kept_turns, window=agent.context_window_turns
        )
        timings["smart_keep"] = round((time.perf_counter() - started) * 1000, 2)

        extractor = extractor_for(agent)
        extraction, units = run_stages(
            extractor, agent, end_user, window, schema.fields, timings, counts, known
        )

        started = time.perf_counter()
        new_texts = [u["text"] for u in units]
        new_summary = ""
        summarize = getattr(extractor, "summarize", None)
        if summarize is not None and new_texts:
            # Abstractive (a model), but every sentence must cite the lines it rests on.
            previous = sentences(summary)
            proposed = summarize(previous, new_texts, agent.summary_max_tokens, extraction.usage)
            new_summary, untraceable = summary_traceable(
                proposed,
                previous=len(previous),
                units=len(new_texts),
                max_tokens=agent.summary_max_tokens,
            )
            counts["summary_untraceable"] = untraceable
        if not new_summary:
            new_summary = summary_fold(summary, new_texts, max_tokens=agent.summary_max_tokens)
        timings["summary"] = round((time.perf_counter() - started) * 1000, 2)

        started = time.perf_counter()
        with transaction.atomic(), webhook_endpoints_read_once():
            # An erase may have started while we computed: write nothing for an erased user.
            # The share lock, held to commit, makes an erase that starts now wait for our writes
            # and then delete them with the rest.
            if not end_user_lock_live(end_user=end_user):
                raise UserErased
            explanations: list[dict[str, Any]] = []
            for fact in extraction.facts:
                shown = explanation(fact)
                explanations.append(shown)
                if fact.ends:  # "I stopped it last week": the fact ends, no value replaces it
                    ended = entity_end(agent=agent, end_user=end_user, key=fact.key, valid_until=fact.valid_from,
                                       actor=f"extraction_run:{run.pk}", rebuild=False)  # fmt: skip
                    shown["outcome"] = "ended" if ended else "nothing to end"
                    counts["ended"] = counts.get("ended", 0) + bool(ended)
                    continue
                try:
                    entity, created = entity_upsert(
                        agent=agent, end_user=end_user, key=fact.key, value=fact.value, source=fact.source,
                        valid_from=fact.valid_from, source_turns=fact.source_turns,
                        actor=f"extraction_run:{run.pk}", fields=schema.fields, rebuild=False,
                    )  # fmt: skip
                except Invalid as exc:  # a value the schema refuses is skipped, not fatal
                    counts.setdefault("facts_rejected", 0)
                    counts["facts_rejected"] += 1
                    shown["outcome"] = f"rejected: {exc.detail}"
                    logger.info("run %s: fact %s rejected: %s", run.pk, fact.key, exc.detail)
                    continue
                shown["outcome"] = (
                    ("history" if entity.status != Status.ACTIVE else "written")
                    if created
                    else "unchanged"
                )
                if created:
                    counts["facts"] += 1
            explanations += [{"outcome": "not written", **note} for note in extraction.usage.notes]
            counts["superseded"] = Entity.objects.filter(
                agent=agent, end_user=end_user, superseded_by__created_by=f"extraction_run:{run.pk}"
            ).count()
            new_summary = summary_consistent(
                new_summary, schema.fields, _versions(agent, end_user),
                max_tokens=agent.summary_max_tokens,
            )  # fmt: skip
            counts["acus"] = acu_create_many(agent=agent, end_user=end_user, units=units)
            last = window[-1].id
            counts["archived"] = turns_archive(
                agent=agent, end_user=end_user, through_turn_id=last, keep=keep
            )
            counts["kept"] = len(keep)
            hot_document_rebuild(
                agent=agent, end_user=end_user, summary=new_summary, watermark_turn_id=last
            )
            timings["write"] = round((time.perf_counter() - started) * 1000, 2)
            timings["total"] = round((time.perf_counter() - total_started) * 1000, 2)
            return _finish(run, RunStatus.SUCCEEDED, timings, counts, extraction.usage, schema.version,
                           window[0].id, last, explanations[:MAX_EXPLANATIONS])  # fmt: skip


def _versions(agent: Agent, end_user: EndUser) -> list[Version]:
    """Every current and superseded fact of the user, oldest first: what the summary must agree
    with (one query)."""
    rows = Entity.objects.filter(
        agent=agent, end_user=end_user, status__in=[Status.ACTIVE, Status.SUPERSEDED]
    ).order_by("valid_from").values_list(
        "key", "field", "value", "value_text", "status", "valid_from", "valid_until", "superseded_at"
    )  # fmt: skip
    return [
        Version(key, field, value, text, status == Status.ACTIVE, start, until or superseded)
        for key, field, value, text, status, start, until, superseded in rows
    ]


def explanation(fact: FactCandidate) -> dict[str, Any]:
    """What the run inspector shows of one fact: the value, its source and turns, and why."""
    text = fact.value if isinstance(fact.value, str) else json.dumps(fact.value, ensure_ascii=False)
    return {"key": fact.key, "value": text[:200], "source": fact.source, "turns": fact.source_turns,
            "why": fact.why, **({"ends": True} if fact.ends else {})}  # fmt: skip


def _finish(run: ExtractionRun, status: str, timings: dict[str, float], counts: dict[str, int],
            usage: Usage, schema_version: int | None, first: int | None, last: int | None,
            explanations: list[dict[str, Any]] | None = None) -> ExtractionRun:  # fmt: skip
    ExtractionRun.objects.filter(pk=run.pk).update(
        status=status, finished_at=timezone.now(), timings=timings, explanations=explanations or [],
        counts={**counts, **usage.counts()},
        schema_version=schema_version, first_turn_id=first, last_turn_id=last, error="",
    )  # fmt: skip
    run.refresh_from_db()
    run_event_emit(run)  # webhooks: run.completed, in the run's transaction
    return run

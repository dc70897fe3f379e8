"""The data subject's export: everything held about one end user, as one streamed JSON document.

The format is versioned (``format_version``) and documented in docs/gdpr.md. Rows are read
with server-side cursors (``.iterator(chunk_size=...)``) and written out as they come, so the
memory an export takes does not grow with the user's history (a user with 100,000 turns
exports in the same few megabytes as one with ten).

Apps above memory add their own sections with ``section_register`` (the extraction app adds
``extraction_runs``), so this module imports nothing above it (ADR 0003).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from core.text import iso
from memory.models import ACU, EndUser, Entity, HotDocument, Session, Turn
from memory.presenters import entity_present
from memory.rendering import context_block_render
from memory.selectors.sessions import end_user_get_for_tenant
from memory.services.erasure import audit_events_about
from schemas.models import Agent
from tenants.models import Tenant
from tenants.services import audit_record

FORMAT_VERSION = 1
CHUNK_ROWS = 500  # rows fetched per round trip from the server-side cursor
FLUSH_BYTES = 64 * 1024  # bytes handed to the response at a time

Section = Callable[[EndUser, dict[int, str]], Iterable[dict[str, Any]]]
_extra_sections: dict[str, Section] = {}


def section_register(name: str, rows: Section) -> None:
    """Add a section (a list of objects) after the built-in ones. ``rows`` gets the end user
    and the tenant's agents (id → slug) and must stream, not materialise."""
    _extra_sections[name] = rows


def _sessions(user: EndUser, agents: dict[int, str]) -> Iterator[dict[str, Any]]:
    rows = Session.objects.filter(tenant_id=user.tenant_id, end_user=user).order_by("started_at")
    for session in rows.iterator(chunk_size=CHUNK_ROWS):
        yield {
            "id": str(session.id),
            "external_id": session.external_id,
            "agent": agents.get(session.agent_id),
            "metadata": session.metadata,
            "started_at": iso(session.started_at),
            "last_activity_at": iso(session.last_activity_at),
            "archived_at": iso(session.archived_at),
        }


def _turns(user: EndUser, agents: dict[int, str]) -> Iterator[dict[str, Any]]:
    rows = (
        Turn.objects.filter(tenant_id=user.tenant_id, end_user=user)
        .order_by("id")
        .values_list(
            "id", "session_id", "agent_id", "seq", "role", "text", "tokens", "occurred_at",
            "recorded_at", "archived_at",
        )
    )  # fmt: skip
    for pk, session, agent, seq, role, text, tokens, occurred, recorded, archived in rows.iterator(
        chunk_size=CHUNK_ROWS
    ):
        yield {
            "id": pk, "session": str(session), "agent": agents.get(agent), "seq": seq,
            "role": role, "text": text, "tokens": tokens, "occurred_at": iso(occurred),
            "recorded_at": iso(recorded), "archived_at": iso(archived),
        }  # fmt: skip


def _entities(user: EndUser, agents: dict[int, str]) -> Iterator[dict[str, Any]]:
    now = timezone.now()
    rows = Entity.objects.filter(tenant_id=user.tenant_id, end_user=user).order_by(
        "agent_id", "key", "valid_from", "recorded_at"
    )
    for entity in rows.iterator(chunk_size=CHUNK_ROWS):
        yield entity_present(entity, full=True, agents=agents, now=now)


def _acus(embeddings: bool) -> Section:
    def rows(user: EndUser, agents: dict[int, str]) -> Iterator[dict[str, Any]]:
        units = ACU.objects.filter(tenant_id=user.tenant_id, end_user=user).order_by("id")
        units = units.defer("keywords") if embeddings else units.defer("keywords", "embedding")
        for unit in units.iterator(chunk_size=CHUNK_ROWS):
            row: dict[str, Any] = {
                "id": unit.id,
                "agent": agents.get(unit.agent_id),
                "session": str(unit.session_id) if unit.session_id else None,
                "text": unit.text,
                "first_seq": unit.first_seq,
                "last_seq": unit.last_seq,
                "occurred_at": iso(unit.occurred_at),
                "created_at": iso(unit.created_at),
            }
            if embeddings:
                vector = unit.embedding
                row["embedding"] = None if vector is None else [round(float(x), 6) for x in vector]
            yield row

    return rows


def _hot_documents(user: EndUser, agents: dict[int, str]) -> Iterator[dict[str, Any]]:
    rows = HotDocument.objects.filter(tenant_id=user.tenant_id, end_user=user).order_by("agent_id")
    for document in rows.iterator(chunk_size=CHUNK_ROWS):
        yield {
            "agent": agents.get(document.agent_id),
            "version": document.version,
            "summary": document.summary,
            "context_block": context_block_render(document.stable_block, document.recent_turns),
            "profile": document.profile,
            "facts": document.facts,
            "possibilities": document.possibilities,
            "pinned": document.pinned,
            "recent_turns": document.recent_turns,
            "pending_tokens": document.pending_tokens,
            "updated_at": iso(document.updated_at),
        }


def _audit_events(user: EndUser, agents: dict[int, str]) -> Iterator[dict[str, Any]]:
    rows = audit_events_about(tenant_id=user.tenant_id, end_user_id=user.pk).order_by("id")
    for event in rows.iterator(chunk_size=CHUNK_ROWS):
        yield {
            "id": event.pk,
            "actor": event.actor,
            "action": event.action,
            "target_type": event.target_type,
            "target_id": event.target_id,
            "before": event.before,
            "after": event.after,
            "created_at": iso(event.created_at),
        }


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def user_export_stream(*, end_user: EndUser, embeddings: bool = False) -> Iterator[bytes]:
    """The export of one end user as chunks of UTF-8 JSON (format_version 1, docs/gdpr.md).

    Sections in order: ``end_user``, ``sessions``, ``turns``, ``entities`` (every version:
    active, superseded, retracted, expired), ``acus`` (embeddings only when asked),
    ``hot_documents`` (the summary and context block), then the registered sections
    (``extraction_runs``), and ``audit_events``.
    """
    tenant = Tenant.objects.get(pk=end_user.tenant_id)
    agents = dict(Agent.objects.filter(tenant=tenant).values_list("id", "slug"))
    sections: list[tuple[str, Section]] = [
        ("sessions", _sessions),
        ("turns", _turns),
        ("entities", _entities),
        ("acus", _acus(embeddings)),
        ("hot_documents", _hot_documents),
        *_extra_sections.items(),
        ("audit_events", _audit_events),
    ]
    head = {
        "format_version": FORMAT_VERSION,
        "exported_at": iso(timezone.now()),
        "tenant": tenant.slug,
        "options": {"embeddings": embeddings},
        "end_user": {
            "id": end_user.pk,
            "external_id": end_user.external_id,
            "created_at": iso(end_user.created_at),
        },
    }
    buffer: list[str] = [_dumps(head)[:-1]]  # the head without its closing brace
    size = 0
    for name, rows in sections:
        buffer.append(f',"{name}":[')
        first = True
        for row in rows(end_user, agents):
            text = _dumps(row)
            buffer.append(text if first else "," + text)
            first = False
            size += len(text)
            if size >= FLUSH_BYTES:
                yield "".join(buffer).encode()
                buffer, size = [], 0
        buffer.append("]")
    buffer.append("}\n")
    yield "".join(buffer).encode()


def user_export_record(*, end_user: EndUser, actor: str, via: str) -> None:
    """Audit that an export was handed out (who, through what); no personal content."""
    audit_record(
        tenant=end_user.tenant_id, actor=actor, action="end_user.export",
        target_type="end_user", target_id=end_user.pk, after={"via": via},
    )  # fmt: skip


@dataclass(frozen=True)
class UserExport:
    end_user_id: int
    chunks: Iterator[bytes]


def user_export(
    *, tenant_id: int, external_id: str, actor: str, via: str, embeddings: bool = False
) -> UserExport:
    """Hand out the export of the user the tenant knows by ``external_id`` (NotFound if none):
    audited at once, streamed as it is read."""
    end_user = end_user_get_for_tenant(tenant_id=tenant_id, external_id=external_id)
    user_export_record(end_user=end_user, actor=actor, via=via)
    return UserExport(end_user.pk, user_export_stream(end_user=end_user, embeddings=embeddings))

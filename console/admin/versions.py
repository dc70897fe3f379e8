"""The end user page's timeline and versions table: every stored version of every fact, each
with the turns it came from."""

from __future__ import annotations

import datetime
from typing import Any

from django.utils.safestring import mark_safe

from console.selectors import TurnRef, turn_texts
from console.timeline import Version, timeline_svg
from memory.models import EndUser, Entity
from memory.selectors import entity_list
from schemas.models import Agent


def _ref_label(ref: TurnRef) -> str:
    return f"{ref[0][:8]}#{ref[1]}"


def _refs_keys(entity: Entity) -> list[TurnRef]:
    return [
        (str(ref.get("session")), int(ref["seq"]))
        for ref in entity.source_turns or []
        if isinstance(ref, dict) and "seq" in ref and ref.get("session")
    ]


def versions_context(*, agent: Agent, end_user: EndUser, now: datetime.datetime) -> dict[str, Any]:
    history = list(entity_list(agent=agent, end_user=end_user, status="any"))
    refs = {e.pk: _refs_keys(e) for e in history}
    versions = [
        Version(
            id=str(e.pk),
            key=e.key,
            value_text=e.value_text,
            source=e.source,
            status=e.status,
            valid_from=e.valid_from,
            valid_until=e.valid_until,
            recorded_at=e.recorded_at,
            expires_at=e.expires_at,
            pinned=e.pinned,
            source_turns=[_ref_label(ref) for ref in refs[e.pk]],
        )
        for e in history
    ]
    texts = turn_texts(end_user=end_user, refs=(key for keys in refs.values() for key in keys))
    return {
        "history": [(e, [(_ref_label(k), texts.get(k)) for k in refs[e.pk]]) for e in history],
        "timeline": mark_safe(timeline_svg(versions, now=now)),  # noqa: S308  # escaped inside
    }

"""Reads of sessions and end users: the tenant-scoped lookups ("not yours" is "not found")."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from django.db import connection
from django.db.models import Field, Model

from core.errors import NotFound
from memory.models import EndUser, HotDocument, Session
from schemas.models import Agent


def uuid_or_not_found(value: object, code: str, what: str) -> uuid.UUID:
    """A primary key from the URL or the body; a malformed one is as absent as a missing one."""
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except ValueError:
        raise NotFound(f"No {what} {value!r}.", code=code) from None


def _columns(model: type[Model], alias: str) -> tuple[list[Field[Any, Any]], str]:
    fields = list(model._meta.concrete_fields)
    return fields, ", ".join(f'{alias}."{f.column}"' for f in fields)


def _instance(model: type[Model], fields: list[Field[Any, Any]], values: Sequence[Any]) -> Any:
    converted = [
        f.from_db_value(v, None, connection) if hasattr(f, "from_db_value") else v
        for f, v in zip(fields, values, strict=True)
    ]
    return model.from_db("default", [f.attname for f in fields], converted)


_SESSION, _SESSION_SQL = _columns(Session, "s")
_AGENT, _AGENT_SQL = _columns(Agent, "a")
_USER, _USER_SQL = _columns(EndUser, "u")
_HOT, _HOT_SQL = _columns(HotDocument, "h")
# Hand-written: the call path's one statement, without the ORM's compile cost (≈2 ms a call).
_SESSION_LOOKUP = (
    f"SELECT {_SESSION_SQL}, {_AGENT_SQL}, {_USER_SQL}, h.version, h.stable_version "  # noqa: S608 (column names)
    "FROM memory_session s JOIN schemas_agent a ON a.id = s.agent_id "
    "JOIN memory_enduser u ON u.id = s.end_user_id "
    "LEFT JOIN memory_hotdocument h ON h.agent_id = s.agent_id AND h.end_user_id = s.end_user_id "
    "WHERE s.tenant_id = %s AND s.id = %s AND (%s::bigint IS NULL OR s.agent_id = %s::bigint)"
)


def session_get_for_tenant(
    *,
    tenant_id: int,
    session_id: object,
    agent_scope: int | None = None,
) -> Session:
    """One session with its agent and user, and the versions of the user's hot document
    (``hot_version``, ``hot_stable_version``; None when it has not been built), for
    ``hot_document_load(current=...)``: one statement."""
    pk = uuid_or_not_found(session_id, "session_not_found", "session")
    with connection.cursor() as cursor:
        cursor.execute(_SESSION_LOOKUP, [tenant_id, pk, agent_scope, agent_scope])
        row = cursor.fetchone()
    if row is None:
        raise NotFound(f"No session {session_id}.", code="session_not_found")
    a, b = len(_SESSION), len(_SESSION) + len(_AGENT)
    session: Session = _instance(Session, _SESSION, row[:a])
    session.agent = _instance(Agent, _AGENT, row[a:b])
    session.end_user = _instance(EndUser, _USER, row[b : b + len(_USER)])
    session.hot_version, session.hot_stable_version = row[-2], row[-1]  # type: ignore[attr-defined]
    return session


def session_get_for_user(
    *, tenant_id: int, session_id: object, agent_id: int, end_user_id: int
) -> Session:
    """A session of this agent and this user; another user's session does not exist here."""
    session = session_get_for_tenant(
        tenant_id=tenant_id, session_id=session_id, agent_scope=agent_id
    )
    if session.end_user_id != end_user_id:
        raise NotFound(f"No session {session_id} for this user.", code="session_not_found")
    return session


def end_user_get_for_tenant(*, tenant_id: int, external_id: str) -> EndUser:
    user = EndUser.objects.filter(tenant_id=tenant_id, external_id=external_id).first()
    if user is None:
        raise NotFound(f"No user {external_id!r}.", code="user_not_found")
    return user


# An agent by slug and a user by external id, and optionally the user's hot document: what a
# session start on a Redis miss and a search read first, in one statement instead of three.
_AGENT_USER = (
    "SELECT {columns} FROM schemas_agent a "
    "LEFT JOIN memory_enduser u ON u.tenant_id = a.tenant_id AND u.external_id = %s {join}"
    "WHERE a.tenant_id = %s AND a.slug = %s AND (%s::bigint IS NULL OR a.id = %s::bigint)"
)
_AGENT_USER_SQL = _AGENT_USER.format(columns=f"{_AGENT_SQL}, {_USER_SQL}", join="")
_AGENT_USER_HOT_SQL = _AGENT_USER.format(
    columns=f"{_AGENT_SQL}, {_USER_SQL}, {_HOT_SQL}",
    join="LEFT JOIN memory_hotdocument h ON h.tenant_id = a.tenant_id AND h.agent_id = a.id "
    "AND h.end_user_id = u.id ",
)


def agent_user_get(
    *,
    tenant_id: int,
    agent_slug: str,
    agent_scope: int | None,
    user_external_id: str,
    with_document: bool = False,
) -> tuple[Agent, EndUser | None, HotDocument | None]:
    """The agent ``agent_slug`` as ``agent_scope`` sees it (NotFound ``agent_not_found``
    otherwise), the user known by ``user_external_id`` (None: never seen) and, with
    ``with_document``, their hot document's row (None: never built): one statement."""
    sql = _AGENT_USER_HOT_SQL if with_document else _AGENT_USER_SQL
    with connection.cursor() as cursor:
        cursor.execute(sql, [user_external_id, tenant_id, agent_slug, agent_scope, agent_scope])
        row = cursor.fetchone()
    if row is None:
        raise NotFound(f"No agent {agent_slug!r}.", code="agent_not_found")
    a, b = len(_AGENT), len(_AGENT) + len(_USER)
    agent: Agent = _instance(Agent, _AGENT, row[:a])
    user = _instance(EndUser, _USER, row[a:b]) if row[a] is not None else None
    document = None
    if with_document and row[b] is not None:
        document = _instance(HotDocument, _HOT, row[b : b + len(_HOT)])
    return agent, user, document

"""The call path while a dependency is down, and after it returns (ADR 0020, ADR 0021).

Redis "down" is a cache configuration pointing at a socket that does not exist; the real Redis
keeps what it held before, exactly as a Redis restarted from its append-only file does.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import OperationalError
from django.test import override_settings
from redis.exceptions import ConnectionError as RedisConnectionError
from rest_framework.test import APIClient

from extraction.models import ExtractionRun
from memory.hot import hot_cache_get
from memory.models import HotDocument, Turn
from schemas.models import Agent
from schemas.services import agent_settings_update
from tenants.models import KeyRole, Tenant
from tenants.services import api_key_create
from tests.conftest import DEAD_REDIS, Key

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def agent_key(tenant_a: Tenant, property_agent: Agent) -> Key:
    model, raw = api_key_create(tenant=tenant_a, name="agent", role=KeyRole.AGENT, actor="t")
    return Key(model, raw)


def _open(client: APIClient) -> Any:
    response = client.post("/v1/sessions", {"agent": "property", "user": "priya"}, format="json")
    assert response.status_code in (200, 201), response.json()
    return response.json()


def _say(client: APIClient, session: str, text: str) -> Any:
    response = client.post(
        f"/v1/sessions/{session}/turns", {"role": "user", "text": text}, format="json"
    )
    assert response.status_code == 201, response.json()
    return response.json()


def _texts(body: dict[str, Any]) -> list[str]:
    return [turn["text"] for turn in body["recent_turns"]]


def _document() -> HotDocument:
    return HotDocument.objects.get()


def test_appends_and_session_start_work_from_postgres_while_redis_is_down(
    agent_key: Key,
) -> None:
    client = agent_key.client()
    session = _open(client)["session_id"]
    with override_settings(CACHES=DEAD_REDIS):
        _say(client, session, "My budget is 80 lakhs.")
        body = _open(client)
    assert _texts(body) == ["My budget is 80 lakhs."]
    assert body["hot_version"] == _document().version
    assert Turn.objects.count() == 1


def test_turns_appended_while_redis_was_down_are_served_after_it_returns(
    agent_key: Key, django_assert_num_queries: Any, sticky_tenant_scope: None
) -> None:
    client = agent_key.client()
    session = _open(client)["session_id"]
    _say(client, session, "first, cached")
    with override_settings(CACHES=DEAD_REDIS):
        _say(client, session, "second, while Redis was down")
    # Redis is back with the copy it held: version N-1 of the tail. Before ADR 0020 it was
    # served as it was, without the second turn.
    held = hot_cache_get(_document().cache_key)
    assert held is not None and _texts(held) == ["first, cached"]

    body = _open(client)
    assert _texts(body) == ["first, cached", "second, while Redis was down"]
    assert body["hot_version"] == _document().version
    # ... and the copy was rebuilt: the next session start is served from Redis again.
    rebuilt = hot_cache_get(_document().cache_key)
    assert rebuilt is not None and rebuilt["version"] == _document().version
    with django_assert_num_queries(1):  # the session statement, which also reads the versions
        assert _texts(_open(client)) == ["first, cached", "second, while Redis was down"]


def test_a_fact_written_while_redis_was_down_is_not_hidden_by_a_newer_tail(
    agent_key: Key, operator_key_a: Key
) -> None:
    client = agent_key.client()
    session = _open(client)["session_id"]
    with override_settings(CACHES=DEAD_REDIS):
        response = operator_key_a.client().post(
            "/v1/users/priya/facts",
            {"agent": "property", "key": "budget", "value": 8_000_000},
            format="json",
        )
        assert response.status_code == 201, response.json()
    # Redis is back; an append rewrites the tail at a version newer than the fact's rebuild,
    # while the stable part in Redis still predates the fact.
    _say(client, session, "Any news?")
    held = hot_cache_get(_document().cache_key)
    assert held is not None and held["facts"] == [] and held["version"] == _document().version

    body = _open(client)
    assert [fact["key"] for fact in body["facts"]] == ["budget"]
    assert "## Current facts" in body["context_block"]


def test_context_after_redis_returns_is_current(agent_key: Key) -> None:
    client = agent_key.client()
    session = _open(client)["session_id"]
    _say(client, session, "first, cached")
    with override_settings(CACHES=DEAD_REDIS):
        _say(client, session, "second, while Redis was down")
    response = client.post("/v1/context", {"session": session}, format="json")
    assert response.status_code == 200
    assert "second, while Redis was down" in response.json()["context"]
    assert response.json()["hot_version"] == _document().version


def test_postgres_unavailable_is_503_database_unavailable(
    agent_key: Key, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = agent_key.client()
    session = _open(client)["session_id"]

    def down(**kwargs: Any) -> None:
        raise OperationalError("connection failed: server closed the connection unexpectedly")

    monkeypatch.setattr("api.v1.sessions.turn_append", down)
    response = client.post(
        f"/v1/sessions/{session}/turns", {"role": "user", "text": "hi"}, format="json"
    )
    assert response.status_code == 503
    assert response.json() == {
        "code": "database_unavailable",
        "detail": "PostgreSQL is unavailable; retry shortly.",
    }
    assert response["Retry-After"] == "1"


def test_redis_error_where_it_cannot_degrade_is_503_cache_unavailable(
    agent_key: Key, monkeypatch: pytest.MonkeyPatch
) -> None:
    def down(**kwargs: Any) -> None:
        raise RedisConnectionError("Error 111 connecting to unix socket")

    monkeypatch.setattr("memory.services.sessions.session_open", down)
    response = agent_key.client().post(
        "/v1/sessions", {"agent": "property", "user": "priya"}, format="json"
    )
    assert response.status_code == 503 and response.json()["code"] == "cache_unavailable"


def test_a_lost_enqueue_never_fails_the_append_and_the_next_append_schedules_again(
    agent_key: Key, property_agent: Agent, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kombu.exceptions import OperationalError as BrokerDown

    from extraction.tasks import extraction_run

    agent_settings_update(
        agent=property_agent, changes={"extraction_token_threshold": 200}, actor="t"
    )
    sent: list[int] = []

    def broker_down(run_id: int) -> None:
        raise BrokerDown("Error 2 connecting to unix socket: No such file or directory.")

    client = agent_key.client()
    session = _open(client)["session_id"]
    monkeypatch.setattr(extraction_run, "delay", broker_down)
    _say(client, session, "word " * 210)  # crosses the threshold; the broker is down
    assert Turn.objects.count() == 1
    assert not ExtractionRun.objects.exists()  # the run no worker would hear of is dropped

    monkeypatch.setattr(extraction_run, "delay", sent.append)
    _say(client, session, "and one more")
    run = ExtractionRun.objects.get()
    assert sent == [run.pk] and run.status == "pending"


def test_redis_returning_between_the_two_reads_of_a_session_start_serves_no_stale_copy(
    agent_key: Key, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first read of a session start fails (Redis is down), the load's read a moment
    later succeeds (Redis is back, with the copy it held before the outage): that copy is
    checked against PostgreSQL like any other, not served because it came second."""
    client = agent_key.client()
    session = _open(client)["session_id"]  # cached now, without the turn below
    with override_settings(CACHES=DEAD_REDIS):
        _say(client, session, "Said while Redis was down.")
    failed_once = [False]

    def first_read_fails(**kwargs: Any) -> Any:
        if not failed_once[0]:
            failed_once[0] = True
            return None  # what a Redis error gives
        from memory.selectors import hot_document_cached

        return hot_document_cached(**kwargs)

    monkeypatch.setattr("memory.services.sessions.hot_document_cached", first_read_fails)
    body = _open(client)
    assert failed_once[0]
    assert _texts(body) == ["Said while Redis was down."]
    assert body["hot_version"] == _document().version

"""The Python client (clients/python) against the real server over loopback HTTP.

The server is pytest-django's live server (Django's threaded WSGI server on the test database and
Redis); faults come from a real proxy in between (tests/clients/faulty_proxy.py).
"""

from __future__ import annotations

import asyncio
import datetime
import io
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from handover_client import (
    AsyncHandover,
    AuthenticationError,
    ConflictError,
    Handover,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitedError,
    RequestTimeoutError,
    RetryPolicy,
    TurnInput,
)

from memory.models import Entity, Turn
from schemas.models import Agent
from tenants.models import KeyRole, Tenant
from tenants.services import api_key_create
from tests.clients.faulty_proxy import FaultyProxy
from tests.conftest import Key

pytestmark = pytest.mark.django_db(transaction=True)
LAKH = 100_000


def _inr(lakhs: int) -> dict[str, Any]:
    return {"amount": lakhs * LAKH, "currency": "INR"}


@pytest.fixture
def agent_key(tenant_a: Tenant, property_agent: Agent) -> Key:
    model, raw = api_key_create(tenant=tenant_a, name="agent", role=KeyRole.AGENT, actor="t")
    return Key(model, raw)


@pytest.fixture
def hv(live_server: Any, agent_key: Key) -> Iterator[Handover]:
    with Handover(api_key=agent_key.raw, base_url=live_server.url) as client:
        yield client


@pytest.fixture
def proxy(live_server: Any) -> Iterator[FaultyProxy]:
    faulty = FaultyProxy(live_server.url)
    yield faulty
    faulty.close()


def test_call_path_and_facts_end_to_end(hv: Handover) -> None:
    opened = hv.open_session("property", "priya", session="call-1")
    assert opened.created is True and opened.user == "priya"
    assert opened.memory_tool["function"]["name"] == "search_memory"
    assert opened.context_block.startswith("# Memory of this user")

    # The client numbers the turns: 1, 2, then a batch 3..4.
    first = hv.append_turn(opened.session_id, "user", "My budget is 80 lakhs.")
    second = hv.append_turn(opened.session_id, "assistant", "Noted: 80 lakhs.")
    assert (first.seq, first.created, second.seq) == (1, True, 2)
    batch = hv.append_turns(
        opened.session_id,
        [TurnInput("user", "I live in Pune."), {"role": "assistant", "text": "Pune, got it."}],
    )
    assert [t.seq for t in batch.turns] == [3, 4] and batch.created == 2
    # A repeat of a stored seq with the same content is stored once.
    again = hv.append_turn(opened.session_id, "user", "My budget is 80 lakhs.", seq=1)
    assert (again.seq, again.created, again.id) == (1, False, first.id)
    assert Turn.objects.filter(session_id=opened.session_id).count() == 4
    assert isinstance(first.occurred_at, datetime.datetime) and first.occurred_at.tzinfo

    resumed = hv.open_session("property", "priya", session="call-1")
    assert resumed.created is False and resumed.session_id == opened.session_id
    assert [t.text for t in resumed.recent_turns][-1] == "Pune, got it."

    packed = hv.context(opened.session_id, budget_tokens=400)
    assert "I live in Pune." in packed.context and packed.budget_tokens == 400
    assert packed.tokens <= 400 and packed.tokenizer == "handover-approx-v1"

    fact = hv.write_fact("priya", "budget", _inr(80), agent="property")
    assert (fact.key, fact.value_text, fact.status, fact.created) == (
        "budget",
        "₹80 lakh",
        "active",
        True,
    )
    assert hv.write_fact("priya", "budget", _inr(80), agent="property").created is False
    listed = hv.list_entities("priya", agent="property", key="budget")
    assert [e.id for e in listed] == [fact.id]
    assert hv.pin_entity(fact.id).pinned is True
    assert hv.unpin_entity(fact.id).pinned is False
    corrected = hv.correct_entity(fact.id, _inr(90))
    assert (corrected.value_text, corrected.source, corrected.created) == (
        "₹90 lakh",
        "operator",
        True,
    )
    assert hv.get_entity(fact.id).status == "superseded"
    assert [e.value_text for e in hv.list_entities("priya", agent="property")] == ["₹90 lakh"]

    found = hv.search("priya", "what is the budget", agent="property", k=3)
    assert found.results[0].source == "entity" and "90" in found.results[0].text
    assert "₹90 lakh" in found.as_tool_result()

    forgotten = hv.forget_entity(corrected.id)
    assert (forgotten.key, forgotten.deleted_versions) == ("budget", 2)
    assert Entity.objects.filter(key="budget").count() == 0
    assert hv.list_runs("priya", agent="property") == []
    assert hv.healthz() == {"status": "ok"}
    assert hv.readyz()["status"] == "ready"


def test_management_endpoints(live_server: Any, operator_key_a: Key, viewer_key_a: Key) -> None:
    with Handover(api_key=operator_key_a.raw, base_url=live_server.url) as hv:
        created = hv.create_agent(
            "helper", "Helper", settings={"context_budget_tokens": 600},
            schema_fields=[{"key": "city", "description": "Where they live",
                            "category": "profile", "type": "string"}],
        )  # fmt: skip
        assert (created.slug, created.settings["context_budget_tokens"]) == ("helper", 600)
        assert sorted(a.slug for a in hv.list_agents()) == ["advisor", "helper"]
        assert hv.update_agent("helper", name="Helper 2").name == "Helper 2"
        assert hv.get_agent("helper").name == "Helper 2"
        assert hv.update_settings("helper", min_kept_turns=6)["min_kept_turns"] == 6
        assert hv.get_settings("helper")["min_kept_turns"] == 6
        fields = [*hv.get_schema("helper", 1).fields]
        fields.append({"key": "job", "description": "Their work", "category": "profile",
                       "type": "string"})  # fmt: skip
        published = hv.publish_schema("helper", fields, note="add job")
        assert (published.version, published.is_active, published.created) == (2, True, True)
        assert hv.publish_schema("helper", fields).created is False
        assert [s.version for s in hv.list_schemas("helper")] == [2, 1]
        assert hv.activate_schema("helper", 1).is_active is True
        hv.open_session("helper", "ravi")
        run = hv.start_run("ravi", agent="helper")
        assert [r.id for r in hv.list_runs("ravi", agent="helper")] == [run.id]
        assert run.trigger and run.created_at.tzinfo is not None

    with Handover(api_key=viewer_key_a.raw, base_url=live_server.url) as viewer:
        assert viewer.get_agent("helper").slug == "helper"
        with pytest.raises(PermissionDeniedError) as denied:
            viewer.update_agent("helper", name="nope")
        assert denied.value.code == "permission_denied" and denied.value.status == 403


def test_errors_carry_the_api_code(live_server: Any, hv: Handover, key_b: Key) -> None:
    with (
        Handover(api_key="hv_000000000000_" + "x" * 43, base_url=live_server.url) as bad,
        pytest.raises(AuthenticationError) as unauthenticated,
    ):
        bad.list_agents()
    assert unauthenticated.value.code == "invalid_api_key"

    opened = hv.open_session("property", "priya")
    with pytest.raises(InvalidRequestError) as invalid:
        hv.append_turn(opened.session_id, "narrator", "hi")  # type: ignore[arg-type]
    assert invalid.value.code == "invalid" and "role" in invalid.value.fields
    assert invalid.value.request_id and len(invalid.value.request_id) == 32  # for the logs
    # The refused turn gave its seq back: the next one is still 1.
    assert hv.append_turn(opened.session_id, "user", "hello").seq == 1
    with pytest.raises(ConflictError) as conflict:
        hv.append_turn(opened.session_id, "user", "something else", seq=1)
    assert conflict.value.code == "turn_conflict"

    fact = hv.write_fact("priya", "city", "Pune", agent="property")
    with Handover(api_key=key_b.raw, base_url=live_server.url) as outsider:
        with pytest.raises(NotFoundError) as missing:
            outsider.get_entity(fact.id)
        assert missing.value.code == "entity_not_found"
        with pytest.raises(NotFoundError) as no_session:
            outsider.append_turn(opened.session_id, "user", "hi")
        assert no_session.value.code == "session_not_found"
    assert Turn.objects.count() == 1 and Entity.objects.get().value_text == "Pune"


def test_429_is_retried_after_retry_after(proxy: FaultyProxy, agent_key: Key) -> None:
    proxy.script(("status", 429, {"Retry-After": "1"}), ("status", 503, {}))
    with Handover(api_key=agent_key.raw, base_url=proxy.url) as hv:
        started = time.monotonic()
        opened = hv.open_session("property", "priya")
        waited = time.monotonic() - started
    assert opened.created is True
    assert waited >= 1.0  # honoured Retry-After, then backed off once for the 503
    assert [method for method, _, _ in proxy.seen] == ["POST", "POST", "POST"]

    proxy.script(*[("status", 429, {"Retry-After": "0"})] * 3)
    with (
        Handover(api_key=agent_key.raw, base_url=proxy.url, max_retries=2) as hv,
        pytest.raises(RateLimitedError) as limited,
    ):
        hv.list_agents()
    assert limited.value.code == "scripted" and limited.value.retry_after == 0.0
    assert len(proxy.seen) == 3 + 3  # one try and two retries


def test_lost_answer_to_an_append_is_retried_and_stored_once(
    proxy: FaultyProxy, agent_key: Key
) -> None:
    with Handover(api_key=agent_key.raw, base_url=proxy.url) as hv:
        opened = hv.open_session("property", "priya")
        proxy.script(("lose", 502))  # the server stores the turn; its answer never arrives
        turn = hv.append_turn(opened.session_id, "user", "My budget is 80 lakhs.")
    assert (turn.seq, turn.created) == (1, False)  # the retry found the stored turn
    assert list(Turn.objects.values_list("seq", "text")) == [(1, "My budget is 80 lakhs.")]
    appends = [body for _, path, body in proxy.seen if path.endswith("/turns")]
    assert len(appends) == 2 and appends[0] == appends[1] and json.loads(appends[0])["seq"] == 1


def test_a_resumed_session_keeps_its_appends_exactly_once(
    proxy: FaultyProxy, live_server: Any, agent_key: Key
) -> None:
    with Handover(api_key=agent_key.raw, base_url=live_server.url) as first:
        opened = first.open_session("property", "priya", session="shared")
        assert opened.next_seq == 1
        first.append_turn(opened.session_id, "user", "hello")
    # Another process (or this one, restarted) resumes the session: the server's next_seq
    # numbers its first append, so a lost answer is retried and the turn stored once.
    with Handover(api_key=agent_key.raw, base_url=proxy.url) as other:
        resumed = other.open_session("property", "priya", session="shared")
        assert resumed.created is False and resumed.session_id == opened.session_id
        assert resumed.next_seq == 2
        proxy.script(("lose", 502))
        turn = other.append_turn(resumed.session_id, "user", "hello again")
        assert (turn.seq, turn.created) == (2, False)  # the retry found the stored turn
        assert other.append_turn(resumed.session_id, "user", "third").seq == 3
    stored = Turn.objects.filter(session_id=opened.session_id).order_by("seq")
    assert list(stored.values_list("seq", "text")) == [
        (1, "hello"), (2, "hello again"), (3, "third"),
    ]  # fmt: skip
    sent = [json.loads(body) for _, path, body in proxy.seen if path.endswith("/turns")]
    assert [body.get("seq") for body in sent] == [2, 2, 3]


def test_history_undo_and_clear(hv: Handover) -> None:
    opened = hv.open_session("property", "priya", session="chat")
    for text in ("one", "two", "three"):
        hv.append_turn(opened.session_id, "user", text)
    page = hv.list_turns(opened.session_id, limit=2)
    assert [t.seq for t in page.turns] == [3, 2] and page.next_before_seq == 2
    older = hv.list_turns(opened.session_id, before_seq=page.next_before_seq)
    assert [t.text for t in older.turns] == ["one"] and older.next_before_seq is None
    removed = hv.remove_last_turn(opened.session_id)
    assert (removed.seq, removed.role) == (3, "user")
    assert hv.append_turn(opened.session_id, "user", "three again").seq == 4  # not reused
    cleared = hv.clear_turns(opened.session_id)
    assert cleared.cleared == 3
    resumed = hv.open_session("property", "priya", session="chat")
    assert resumed.recent_turns == [] and resumed.next_seq == 5
    assert [t.seq for t in hv.list_turns(opened.session_id).turns] == [4, 2, 1]


def test_forget_with_redaction_and_a_streamed_export(
    live_server: Any, proxy: FaultyProxy, operator_key_a: Key, property_agent: Agent
) -> None:
    with Handover(api_key=operator_key_a.raw, base_url=live_server.url) as hv:
        opened = hv.open_session("property", "priya", session="s")
        hv.append_turn(opened.session_id, "user", "I live in Pune these days.")
        fact = hv.write_fact(
            "priya", "city", "Pune", agent="property",
            source_turns=[{"session": opened.session_id, "seq": 1}],
        )  # fmt: skip
        forgotten = hv.forget_entity(fact.id, redact_turns=True)
        assert (forgotten.key, forgotten.redacted_turns) == ("city", 1)
        assert "Pune" not in Turn.objects.get(seq=1).text
        parsed = hv.export_user("priya", embeddings=True)
    # The export streams into a file with no read timeout: a slow answer is waited for.
    with Handover(api_key=operator_key_a.raw, base_url=proxy.url, timeout=0.5) as slow:
        proxy.script(("slow", 1.5))
        out = io.BytesIO()
        written = slow.export_user_to("priya", out)
    assert written == len(out.getvalue()) > 0
    streamed = json.loads(out.getvalue())
    assert streamed["format_version"] == parsed["format_version"] == 1
    assert [path for _, path, _ in proxy.seen] == ["/v1/users/priya/export"]
    exports = [p for p in proxy.seen if "embeddings" in p[1]]
    assert exports == []  # embeddings=False sends no parameter


def test_timeouts_raise_and_carry_the_seq_to_repeat(proxy: FaultyProxy, agent_key: Key) -> None:
    no_retry = RetryPolicy(max_retries=0)
    # The timeout is well above a loaded machine's latency and well below the scripted delay.
    with Handover(api_key=agent_key.raw, base_url=proxy.url, timeout=3.0, retry=no_retry) as hv:
        opened = hv.open_session("property", "priya")
        proxy.script(("slow", 6.0))
        with pytest.raises(RequestTimeoutError) as timed_out:
            hv.append_turn(opened.session_id, "user", "Are you there?")
        assert timed_out.value.seq == 1
        proxy.wait_forwarded(2)  # the slow append reaches the server meanwhile
        repeat = hv.append_turn(opened.session_id, "user", "Are you there?", seq=1)
    assert repeat.created is False
    assert Turn.objects.count() == 1


def test_async_client(live_server: Any, agent_key: Key) -> None:
    async def scenario() -> dict[str, Any]:
        async with AsyncHandover(api_key=agent_key.raw, base_url=live_server.url) as hv:
            opened = await hv.open_session("property", "asha")
            turns = await asyncio.gather(
                *[hv.append_turn(opened.session_id, "user", f"line {i}") for i in range(5)]
            )
            fact = await hv.write_fact("asha", "city", "Mumbai", agent="property")
            found = await hv.search("asha", "which city", agent="property")
            packed = await hv.context(opened.session_id)
            return {
                "seqs": sorted(t.seq for t in turns),
                "created": {t.created for t in turns},
                "fact": (await hv.get_entity(fact.id)).value_text,
                "top": found.results[0].text,
                "context": packed.context,
            }

    result = asyncio.run(scenario())
    assert result["seqs"] == [1, 2, 3, 4, 5] and result["created"] == {True}
    assert result["fact"] == "Mumbai" and "Mumbai" in result["top"]
    assert "line 4" in result["context"]
    assert Turn.objects.count() == 5


def test_readyz_answers_503_with_the_failing_check_without_retrying(
    proxy: FaultyProxy, agent_key: Key, settings: Any
) -> None:
    from tests.conftest import DEAD_REDIS

    settings.CACHES = DEAD_REDIS
    with Handover(api_key=agent_key.raw, base_url=proxy.url) as hv:
        body = hv.readyz()
    assert body["status"] == "unavailable" and body["checks"]["redis"]["ok"] is False
    assert body["checks"]["postgres"]["ok"] is True
    assert [path for _, path, _ in proxy.seen] == ["/readyz"]  # an answer, not retried

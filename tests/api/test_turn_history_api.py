"""A session's history over HTTP: the paged list, undo of the last turn, clearing the hot tier;
next_seq on session open. Each with the outsider (404, nothing changed) and the viewer (403 for
writes)."""

from __future__ import annotations

from typing import Any

import pytest

from memory.models import HotDocument, Session, Turn
from schemas.models import Agent
from tenants.models import AuditEvent, KeyRole, Tenant
from tests.conftest import Key, _key

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def agent_key(tenant_a: Tenant, property_agent: Agent) -> Key:
    return _key(tenant_a, KeyRole.AGENT)


def _session(key: Key, turns: int, session: str = "chat-1") -> str:
    client = key.client()
    opened = client.post(
        "/v1/sessions", {"agent": "property", "user": "priya", "session": session}, format="json"
    ).json()
    for seq in range(1, turns + 1):
        role = "user" if seq % 2 else "assistant"
        body = {"role": role, "text": f"turn {seq}", "seq": seq}
        assert client.post(f"/v1/sessions/{opened['session_id']}/turns", body, format="json").status_code == 201  # fmt: skip
    return str(opened["session_id"])


def _state() -> Any:
    return (
        sorted(Turn.objects.values_list("id", "seq", "text", "archived_at")),
        sorted(HotDocument.objects.values_list("version", "pending_tokens", "recent_turns")),
        AuditEvent.objects.count(),
    )


def test_history_is_newest_first_in_pages(agent_key: Key) -> None:
    session = _session(agent_key, 5)
    client = agent_key.client()
    first = client.get(f"/v1/sessions/{session}/turns?limit=2").json()
    assert [t["seq"] for t in first["turns"]] == [5, 4] and first["next_before_seq"] == 4
    assert first["turns"][0]["text"] == "turn 5" and first["turns"][0]["role"] == "user"
    second = client.get(f"/v1/sessions/{session}/turns?limit=2&before_seq=4").json()
    assert [t["seq"] for t in second["turns"]] == [3, 2] and second["next_before_seq"] == 2
    last = client.get(f"/v1/sessions/{session}/turns?limit=2&before_seq=2").json()
    assert last == {"turns": [last["turns"][0]], "next_before_seq": None}
    assert last["turns"][0]["seq"] == 1
    everything = client.get(f"/v1/sessions/{session}/turns").json()
    assert len(everything["turns"]) == 5 and everything["next_before_seq"] is None


def test_history_rejects_a_bad_page(agent_key: Key) -> None:
    session = _session(agent_key, 1)
    response = agent_key.client().get(f"/v1/sessions/{session}/turns?limit=0")
    assert response.status_code == 400 and "limit" in response.json()["fields"]
    response = agent_key.client().get(f"/v1/sessions/{session}/turns?limit=201")
    assert response.status_code == 400


def test_viewer_reads_history_but_cannot_undo_or_clear(agent_key: Key, viewer_key_a: Key) -> None:
    session = _session(agent_key, 2)
    viewer = viewer_key_a.client()
    assert [t["seq"] for t in viewer.get(f"/v1/sessions/{session}/turns").json()["turns"]] == [2, 1]
    before = _state()
    for response in (
        viewer.delete(f"/v1/sessions/{session}/turns/last"),
        viewer.post(f"/v1/sessions/{session}/turns:clear"),
    ):
        assert response.status_code == 403 and response.json()["code"] == "permission_denied"
    assert _state() == before


def test_outsider_gets_404_and_changes_nothing(agent_key: Key, key_b: Key) -> None:
    session = _session(agent_key, 2)
    outsider = key_b.client()
    before = _state()
    for response in (
        outsider.get(f"/v1/sessions/{session}/turns"),
        outsider.delete(f"/v1/sessions/{session}/turns/last"),
        outsider.post(f"/v1/sessions/{session}/turns:clear"),
    ):
        assert response.status_code == 404 and response.json()["code"] == "session_not_found"
        assert "turn 2" not in response.content.decode()
    assert _state() == before


def test_undo_removes_the_last_turn_from_the_log_and_the_hot_tail(agent_key: Key) -> None:
    session = _session(agent_key, 3)
    client = agent_key.client()
    pending = HotDocument.objects.get().pending_tokens
    tokens = Turn.objects.get(seq=3).tokens
    response = client.delete(f"/v1/sessions/{session}/turns/last")
    assert response.status_code == 200
    body = response.json()
    assert body["seq"] == 3 and body["role"] == "user"
    assert sorted(Turn.objects.values_list("seq", flat=True)) == [1, 2]
    document = HotDocument.objects.get()
    assert document.version == body["hot_version"]
    assert [t["seq"] for t in document.recent_turns] == [1, 2]
    assert document.pending_tokens == pending - tokens
    event = AuditEvent.objects.get(action="turn.remove")
    assert event.target_id == session and (event.after or {})["seq"] == 3
    assert "turn 3" not in str(event.after)  # never the text
    # The next session start shows it no more (Redis re-cached from the rebuild).
    opened = client.post(
        "/v1/sessions", {"agent": "property", "user": "priya", "session": "chat-1"}, format="json"
    ).json()
    assert [t["seq"] for t in opened["recent_turns"]] == [1, 2]
    assert "turn 3" not in opened["context_block"]
    # Its seq is not given out again; undo again takes turn 2.
    assert opened["next_seq"] == 4
    assert client.delete(f"/v1/sessions/{session}/turns/last").json()["seq"] == 2


def test_undo_of_an_extracted_turn_is_refused(agent_key: Key) -> None:
    session = _session(agent_key, 2)
    last = Turn.objects.get(seq=2)
    HotDocument.objects.update(watermark_turn_id=last.id)  # the write lane has read it
    before = _state()
    response = agent_key.client().delete(f"/v1/sessions/{session}/turns/last")
    assert response.status_code == 409 and response.json()["code"] == "turn_extracted"
    assert _state() == before


def test_undo_with_no_turns_is_404(agent_key: Key) -> None:
    session = _session(agent_key, 0)
    response = agent_key.client().delete(f"/v1/sessions/{session}/turns/last")
    assert response.status_code == 404 and response.json()["code"] == "turn_not_found"


def test_clear_takes_the_session_out_of_the_hot_tier_and_keeps_the_log(agent_key: Key) -> None:
    session = _session(agent_key, 3)
    other = _session(agent_key, 1, session="chat-2")
    client = agent_key.client()
    response = client.post(f"/v1/sessions/{session}/turns:clear")
    assert response.status_code == 200
    assert response.json() == {"cleared": 3, "hot_version": HotDocument.objects.get().version}
    assert Turn.objects.count() == 4  # the log keeps them
    assert Turn.objects.filter(session_id=session, archived_at__isnull=True).count() == 0
    assert [(t["session"], t["seq"]) for t in HotDocument.objects.get().recent_turns] == [
        (other, 1)
    ]
    assert (AuditEvent.objects.get(action="turn.clear_hot").after or {})["turns"] == 3
    # The history still lists them; a new append joins the hot tail alone.
    assert len(client.get(f"/v1/sessions/{session}/turns").json()["turns"]) == 3
    client.post(f"/v1/sessions/{session}/turns", {"role": "user", "text": "again"}, format="json")
    recent = HotDocument.objects.get().recent_turns
    assert [(t["session"], t["seq"]) for t in recent] == [(other, 1), (session, 4)]


def test_session_open_returns_next_seq(agent_key: Key) -> None:
    client = agent_key.client()
    opened = client.post(
        "/v1/sessions", {"agent": "property", "user": "priya", "session": "s"}, format="json"
    )
    assert opened.status_code == 201 and opened.json()["next_seq"] == 1
    session = opened.json()["session_id"]
    client.post(
        f"/v1/sessions/{session}/turns", {"role": "user", "text": "a", "seq": 7}, format="json"
    )
    resumed = client.post(
        "/v1/sessions", {"agent": "property", "user": "priya", "session": "s"}, format="json"
    )
    assert resumed.status_code == 200 and resumed.json()["next_seq"] == 8
    assert Session.objects.get(pk=session).next_seq == 8

"""The call path's lean lane (api.callpath, ADR 0030) answers exactly as the full stack does,
and hands everything it does not serve to the full stack."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import OperationalError
from rest_framework.test import APIClient
from rest_framework.views import APIView

from memory.models import Turn
from tests.conftest import Key

pytestmark = pytest.mark.django_db(transaction=True)

# Differ from one request to the next whichever lane answers.
VOLATILE_HEADERS = {"X-Request-ID", "Server-Timing", "Content-Length"}
MISSING = "00000000-0000-4000-8000-000000000000"
# timings are measured per request; a score carries the recency prior, which moves with the clock
VOLATILE_FIELDS = {"session_id", "session", "id", "user", "recorded_at", "occurred_at", "timings",
                   "score"}  # fmt: skip


def _normal(value: Any, session: str) -> Any:
    if isinstance(value, str):
        return value.replace(session, "<session>")
    if isinstance(value, dict):
        return {k: "…" if k in VOLATILE_FIELDS else _normal(v, session) for k, v in value.items()}
    if isinstance(value, list):
        return [_normal(v, session) for v in value]
    return value


@pytest.fixture
def dispatched(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The views DRF dispatched to: the full stack's requests."""
    calls: list[str] = []
    dispatch = APIView.dispatch

    def spy(self: APIView, request: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(type(self).__name__)
        return dispatch(self, request, *args, **kwargs)

    monkeypatch.setattr(APIView, "dispatch", spy)
    return calls


def _scenario(agent: Key, viewer: Key, outsider: Key, user: str, calls: list[str]) -> list[Any]:
    """Every kind of call-path answer: created, resumed, repeated, refused, missing, foreign."""
    client, answers, opened = agent.client(), [], {"session_id": MISSING}

    def post(path: str, body: Any, *, by: Any = client, **extra: Any) -> Any:
        before = len(calls)
        if isinstance(body, bytes):
            response = by.post(path, body, content_type="application/json", **extra)
        else:
            response = by.post(path, body, format="json", **extra)
        headers = {k: v for k, v in response.items() if k not in VOLATILE_HEADERS}
        assert int(response["Content-Length"]) == len(response.content)
        answers.append((path.split("/")[-1], response.status_code, headers,
                        _normal(response.json(), opened["session_id"]), len(calls) > before))  # fmt: skip
        return response.json()

    opened = post("/v1/sessions", {"agent": "advisor", "user": user, "session": f"s-{user}"})
    post("/v1/sessions", {"agent": "advisor", "user": user, "session": f"s-{user}"})
    turns = f"/v1/sessions/{opened['session_id']}/turns"
    post(turns, {"role": "user", "text": "Our budget is 80 lakhs.", "seq": 1})
    post(turns, {"role": "user", "text": "Our budget is 80 lakhs.", "seq": 1})  # a retry
    post(turns, {"role": "user", "text": "Something else.", "seq": 1})  # 409
    post(turns, {"role": "assistant", "text": "Noted.", "occurred_at": "2026-05-09T10:00:00Z"})
    post(turns, {"role": "user", "text": "x", "colour": "blue"})  # unknown field: 400
    post(turns, {"role": "narrator", "text": "x"})  # 400
    post(turns, b'{"role": "user", "text": ')  # malformed JSON
    post(turns, {"role": "user", "text": "x"}, by=viewer.client())  # a viewer key: 403
    stranger = APIClient()
    post(
        turns, {"role": "user", "text": "x"}, by=stranger, HTTP_AUTHORIZATION="Bearer hv_x_y"
    )  # 401
    post(turns, {"role": "user", "text": "x"}, HTTP_ACCEPT="text/html")  # 406
    post(f"/v1/sessions/{MISSING}/turns", {"role": "user", "text": "x"})  # 404
    post("/v1/context", {"session": opened["session_id"]})
    post("/v1/context", {"session": opened["session_id"], "budget_tokens": 60})
    post("/v1/context", {"session": opened["session_id"]}, by=outsider.client())  # 404
    search = {"agent": "advisor", "user": user, "query": "what is the budget"}
    post("/v1/memory/search", search)
    post("/v1/memory/search", {**search, "k": 3, "session": opened["session_id"]})
    post("/v1/memory/search", search, by=viewer.client())  # a viewer may search
    post("/v1/memory/search", {**search, "user": "nobody"})  # 404
    post("/v1/memory/search", {**search, "k": 0})  # 400
    post("/v1/memory/search", search, by=outsider.client())  # 404
    return answers


def test_the_lane_answers_every_call_as_the_full_stack(
    settings: Any, agent_key_a: Key, viewer_key_a: Key, key_b: Key, dispatched: list[str]
) -> None:
    settings.API_LEAN_CALL_PATH = False  # a new client builds its middleware with the setting
    full = _scenario(agent_key_a, viewer_key_a, key_b, "full", dispatched)
    settings.API_LEAN_CALL_PATH = True
    lean = _scenario(agent_key_a, viewer_key_a, key_b, "lean", dispatched)

    for a, b in zip(lean, full, strict=True):
        assert a[:4] == b[:4]
    assert [a[1] for a in lean] == [201, 200, 201, 200, 409, 201, 400, 400, 400, 403, 401, 406,
                                    404, 200, 200, 404, 200, 200, 200, 404, 400, 404]  # fmt: skip
    assert all(a[4] for a in full)
    # The lane served what succeeds and what the services refuse; DRF worded the rest.
    assert [a[4] for a in lean] == [False] * 6 + [True] * 6 + [False] * 8 + [True, False]
    assert any("80 lakhs" in hit["text"] for hit in lean[16][3]["results"])
    assert Turn.objects.filter(session__end_user__external_id="lean").count() == 2


def test_the_lane_can_be_turned_off(settings: Any, agent_key_a: Key, dispatched: list[str]) -> None:
    settings.API_LEAN_CALL_PATH = False
    response = agent_key_a.client().post(
        "/v1/sessions", {"agent": "advisor", "user": "priya"}, format="json"
    )
    assert response.status_code == 201 and dispatched == ["SessionOpenApi"]


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [(OperationalError("server closed the connection"), 503, "database_unavailable"),
     (RuntimeError("a bug"), 500, "server_error")],
)  # fmt: skip
def test_an_outage_or_a_bug_in_the_lane_is_answered_whole(
    agent_key_a: Key, monkeypatch: pytest.MonkeyPatch, error: Exception, status: int, code: str
) -> None:
    client = agent_key_a.client()
    session = client.post("/v1/sessions", {"agent": "advisor", "user": "p"}, format="json")
    client.raise_request_exception = False  # a 500 answered, as to any other client

    def broken(*args: Any) -> Any:
        raise error

    monkeypatch.setattr("api.v1.sessions.turn_append_answer", broken)
    response = client.post(
        f"/v1/sessions/{session.json()['session_id']}/turns",
        {"role": "user", "text": "x"},
        format="json",
    )
    assert response.status_code == status and response.json()["code"] == code
    # A keep-alive client reads exactly the body: the length is always given.
    assert int(response["Content-Length"]) == len(response.content)
    assert response["X-Frame-Options"] == "DENY"

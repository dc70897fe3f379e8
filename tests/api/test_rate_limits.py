"""Per-key rate limits: 429 rate_limited with Retry-After, per key, nothing stored."""

from __future__ import annotations

from typing import Any

from memory.models import Turn
from tests.conftest import DEAD_REDIS, Key


def _session(key: Key) -> str:
    response = key.client().post("/v1/sessions", {"agent": "advisor", "user": "u"}, format="json")
    assert response.status_code == 201
    return str(response.json()["session_id"])


def test_over_the_limit_is_429_with_retry_after_and_stores_nothing(
    operator_key_a: Key, agent_key_a: Key, settings: Any
) -> None:
    settings.API_KEY_RATE_PER_MINUTE = 3
    session = _session(operator_key_a)  # 1
    client = operator_key_a.client()
    for seq in (1, 2):  # 2, 3
        assert (
            client.post(
                f"/v1/sessions/{session}/turns",
                {"role": "user", "text": "hi", "seq": seq},
                format="json",
            ).status_code
            == 201
        )
    refused = client.post(
        f"/v1/sessions/{session}/turns", {"role": "user", "text": "hi", "seq": 3}, format="json"
    )
    assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
    assert 1 <= int(refused["Retry-After"]) <= 61
    assert Turn.objects.filter(session_id=session).count() == 2
    # Another key of the same tenant has its own budget.
    other = agent_key_a.client().post(
        f"/v1/sessions/{session}/turns", {"role": "user", "text": "hi", "seq": 3}, format="json"
    )
    assert other.status_code == 201


def test_no_limit_when_zero(operator_key_a: Key, settings: Any) -> None:
    settings.API_KEY_RATE_PER_MINUTE = 0
    client = operator_key_a.client()
    assert all(client.get("/v1/agents").status_code == 200 for _ in range(10))


def test_redis_down_lets_requests_through(operator_key_a: Key, settings: Any) -> None:
    settings.API_KEY_RATE_PER_MINUTE = 1
    client = operator_key_a.client()
    assert client.get("/v1/agents").status_code == 200  # caches the principal, counts 1
    settings.CACHES = DEAD_REDIS
    assert client.get("/v1/agents").status_code == 200  # over the limit, but uncounted: allowed

"""Values that answered 500 or were accepted although wrong (issue 16): each is a 4xx with a
stable code now, and writes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from memory.models import Entity, Turn
from schemas.models import Agent
from tests.conftest import Key

HUGE = 10**400  # beyond the float range: float() of it overflows


@pytest.fixture
def client(operator_key_a: Key, property_agent: Agent) -> Any:
    return operator_key_a.client()


def _fact(client: Any, key: str, value: Any) -> Any:
    return client.post(
        "/v1/users/priya/facts", {"agent": "property", "key": key, "value": value}, format="json"
    )


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("budget", HUGE),
        ("budget", {"amount": HUGE, "currency": "INR"}),
        ("budget", -5_000_000),
        ("budget", {"amount": -1, "currency": "INR"}),
        ("budget", 1e308),
        ("bedrooms", 2**70),
        ("bedrooms", HUGE),
        ("bedrooms", 1e308),
    ],
)
def test_numbers_out_of_any_sane_range_are_a_400(client: Any, key: str, value: Any) -> None:
    response = _fact(client, key, value)
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid" and "value" in response.json()["fields"]
    assert not Entity.objects.exists()


def test_a_correction_to_a_huge_number_is_a_400(client: Any) -> None:
    created = _fact(client, "budget", 8_000_000)
    assert created.status_code == 201
    entity = created.json()["id"]
    response = client.post(f"/v1/entities/{entity}/correct", {"value": HUGE}, format="json")
    assert response.status_code == 400
    assert Entity.objects.count() == 1


def test_a_schema_may_set_its_own_range(operator_key_a: Key, agent_a: Agent) -> None:
    client = operator_key_a.client()
    fields = [
        {"key": "balance", "description": "Account balance", "category": "temporal",
         "type": "money", "minimum": -100000, "maximum": 100000},
        {"key": "bad", "description": "x", "category": "temporal", "type": "string",
         "minimum": 0},
    ]  # fmt: skip
    refused = client.post("/v1/agents/advisor/schemas", {"fields": fields}, format="json")
    assert refused.status_code == 400
    assert set(refused.json()["fields"]) == {"fields[1].minimum"}
    published = client.post("/v1/agents/advisor/schemas", {"fields": fields[:1]}, format="json")
    assert published.status_code == 201
    ok = client.post("/v1/users/p/facts", {"agent": "advisor", "key": "balance", "value": -500},
                     format="json")  # fmt: skip
    assert ok.status_code == 201, ok.content
    over = client.post("/v1/users/p/facts", {"agent": "advisor", "key": "balance",
                                             "value": 200000}, format="json")  # fmt: skip
    assert over.status_code == 400 and "at most 100,000" in over.json()["fields"]["value"][0]


@pytest.mark.parametrize(
    ("field", "values"),
    [("examples", ["ok", "bad\x00"]), ("choices", ["a", "b\x00"]), ("description", "x\x00y")],
)
def test_nul_in_schema_examples_choices_and_descriptions_is_a_400(
    operator_key_a: Key, agent_a: Agent, field: str, values: Any
) -> None:
    spec: dict[str, Any] = {"key": "k", "description": "d", "category": "profile", "type": "enum",
                            "choices": ["a", "b"]}  # fmt: skip
    spec[field] = values
    response = operator_key_a.client().post(
        "/v1/agents/advisor/schemas", {"fields": [spec]}, format="json"
    )
    assert response.status_code == 400, response.content
    assert f"fields[0].{field}" in response.json()["fields"]


@pytest.mark.parametrize(
    "change",
    [
        {"extractor_model": "gpt\x00"},
        {"context_budget_tokens": HUGE},
        {"extraction_token_threshold": -HUGE},
        {"dedup_threshold": HUGE},
    ],
)
def test_settings_with_nul_or_huge_numbers_are_a_400(
    operator_key_a: Key, agent_a: Agent, change: dict[str, Any]
) -> None:
    client = operator_key_a.client()
    before = client.get("/v1/agents/advisor/settings").json()
    response = client.patch("/v1/agents/advisor/settings", change, format="json")
    assert response.status_code == 400, response.content
    assert set(response.json()["fields"]) == set(change)
    assert client.get("/v1/agents/advisor/settings").json() == before


@pytest.mark.parametrize(
    ("occurred_at", "message"),
    [
        ("2026-05-09T10:02:00", "Include the UTC offset"),
        ("0001-01-01T00:00:00Z", "Must be between"),
        ("9999-12-31T23:59:59Z", "Must be between"),
    ],
)
def test_turn_times_must_be_aware_and_plausible(
    agent_key_a: Key, occurred_at: str, message: str
) -> None:
    client = agent_key_a.client()
    session = client.post("/v1/sessions", {"agent": "advisor", "user": "u"}, format="json")
    sid = session.json()["session_id"]
    response = client.post(
        f"/v1/sessions/{sid}/turns",
        {"role": "user", "text": "hello", "occurred_at": occurred_at},
        format="json",
    )
    assert response.status_code == 400, response.content
    assert message in response.json()["fields"]["occurred_at"][0]
    assert not Turn.objects.exists()

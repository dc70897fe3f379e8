from __future__ import annotations

from typing import Any

import pytest

from extraction.models import ExtractionRun
from schemas.defaults import PROPERTY_ADVISOR
from schemas.models import Agent
from schemas.services import agent_create
from tenants.models import KeyRole, Tenant
from tenants.services import api_key_create
from tests.conftest import Key

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def client_a(tenant_a: Tenant) -> Any:
    agent_create(
        tenant_id=tenant_a.pk, slug="property", name="P", schema_fields=PROPERTY_ADVISOR, actor="t"
    )
    model, raw = api_key_create(tenant=tenant_a, name="op", role=KeyRole.OPERATOR, actor="t")
    client = Key(model, raw).client()
    session = client.post(
        "/v1/sessions", {"agent": "property", "user": "priya"}, format="json"
    ).json()["session_id"]
    for text in [
        "My budget is 80 lakhs for a flat in Pune.",
        "I adopted a puppy named Oscar last week.",
    ]:
        client.post(f"/v1/sessions/{session}/turns", {"role": "user", "text": text}, format="json")
    client.post(
        "/v1/users/priya/runs", {"agent": "property"}, format="json"
    )  # eager: extracted now
    assert ExtractionRun.objects.get().status == "succeeded"
    client.session_id = session  # type: ignore[attr-defined]
    return client


def test_search_over_http_with_explain(client_a: Any) -> None:
    response = client_a.post(
        "/v1/memory/search",
        {"agent": "property", "user": "priya", "query": "puppy", "k": 3, "explain": True},
        format="json",
    )
    assert response.status_code == 200
    body = response.json()
    assert body["results"][0]["source"] == "acu" and "Oscar" in body["results"][0]["text"]
    assert body["results"][0]["turns"] == [{"session": client_a.session_id, "seq": 2}]
    assert "legs" in body["results"][0]["explain"] and body["confidence"] in ("high", "medium")
    assert body["timings"]["embed_ms"] >= 0


def test_context_with_a_query_adds_hits_after_the_stable_part(client_a: Any) -> None:
    plain = client_a.post("/v1/context", {"session": client_a.session_id}, format="json").json()
    with_query = client_a.post(
        "/v1/context", {"session": client_a.session_id, "query": "puppy"}, format="json"
    ).json()
    assert "## Retrieved from memory for this request" in with_query["context"]
    assert "Oscar" in with_query["context"].split("## Retrieved from memory")[1]
    stable = plain["context"].split("\n\n## Recent conversation")[0]
    assert (
        with_query["context"].startswith(stable)
        and with_query["tokens"] <= with_query["budget_tokens"]
    )


def test_context_resolves_the_other_account_to_the_one_not_acted_on(client_a: Any) -> None:
    session = client_a.post(
        "/v1/sessions", {"agent": "property", "user": "priya", "session": "bank"}, format="json"
    ).json()["session_id"]
    lines = [
        ("user", "I have a savings account with HDFC ending 4417, my salary lands there."),
        ("assistant", "Noted, the HDFC savings account."),
        ("user", "There is also a joint current account at ICICI ending 9032 for the house."),
        ("assistant", "Noted, the ICICI joint current account."),
        ("user", "Please move 20,000 rupees from the ICICI joint current account into my PPF."),
        ("assistant", "Done: 20,000 rupees moved from the ICICI joint current account."),
        ("user", "Is there a limit on UPI payments per day?"),
        ("assistant", "Most banks allow one lakh rupees a day."),
        ("user", "Do that again but for the other one."),
    ]
    turns = [{"role": r, "text": t, "seq": i + 1} for i, (r, t) in enumerate(lines)]
    client_a.post(f"/v1/sessions/{session}/turns:batch", {"turns": turns}, format="json")
    body = client_a.post(
        "/v1/context", {"session": session, "query": "Do that again but for the other one."},
        format="json",
    ).json()  # fmt: skip
    referents = [r for r in body["retrieved"] if r["reference"]]
    seqs = [t["seq"] for r in referents for t in r["turns"]]
    # The transfer, then the HDFC account; other turns the cue could mean may follow them.
    assert seqs[:2] == [5, 1], seqs
    assert 3 not in seqs or seqs.index(3) > seqs.index(1)
    assert referents[0]["source"] == "turn" and referents[0]["confidence"] == "high"
    assert "ending 4417" in body["context"].split("## Retrieved from memory")[1]


@pytest.mark.parametrize(
    ("body", "code"),
    [({"agent": "property", "user": "nobody", "query": "x"}, "user_not_found"),
     ({"agent": "nope", "user": "priya", "query": "x"}, "agent_not_found"),
     ({"agent": "property", "user": "priya", "query": "x", "session": "00000000-0000-0000-0000-000000000000"}, "session_not_found")],
)  # fmt: skip
def test_unknown_things_are_404(client_a: Any, body: dict[str, Any], code: str) -> None:
    response = client_a.post("/v1/memory/search", body, format="json")
    assert response.status_code == 404 and response.json()["code"] == code


def test_bad_search_input_is_400(client_a: Any) -> None:
    for body, place in [({"agent": "property", "user": "priya"}, "query"),
                        ({"agent": "property", "user": "priya", "query": "x", "k": 0}, "k"),
                        ({"agent": "property", "user": "priya", "query": "x", "k": "5"}, "k")]:  # fmt: skip
        response = client_a.post("/v1/memory/search", body, format="json")
        assert response.status_code == 400 and place in response.json()["fields"]


def test_outsider_gets_404(client_a: Any, key_b: Key, agent_b: Agent) -> None:
    response = key_b.client().post(
        "/v1/memory/search", {"agent": "property", "user": "priya", "query": "puppy"}, format="json"
    )
    assert response.status_code == 404
    response = key_b.client().post(
        "/v1/memory/search",
        {"agent": "advisor-b", "user": "priya", "query": "puppy"},
        format="json",
    )
    assert response.status_code == 404 and response.json()["code"] == "user_not_found"

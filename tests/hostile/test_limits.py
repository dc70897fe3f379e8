"""Limits and hostile text: each is a 4xx with a stable code that changes nothing, or is stored
intact and comes back byte for byte."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from memory.models import Entity, Turn
from schemas.models import ExtractionSchema
from tests.conftest import Key

HOSTILE_TEXTS = [
    "مرحبا، اسمي ليلى وأعيش في دبي",  # right-to-left
    "שלום \u202eevil\u202c mixed ‏RTL‏ marks",  # RTL override characters
    "Emoji 👩🏽‍💻🏳️‍🌈 and flags 🇮🇳 and ZWJ\u200d",
    "Combining: é (e\u0301) and Ｆｕｌｌｗｉｄｔｈ and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "Quotes ' \" ` and SQL'); DROP TABLE memory_turn;-- and <script>x</script>",
    "Backslashes \\ \\x00 (escaped, not a NUL) and % _ wildcards",
]


def _session(key: Key, user: str = "hostile") -> str:
    response = key.client().post("/v1/sessions", {"agent": "property", "user": user}, format="json")
    assert response.status_code == 201, response.content
    return str(response.json()["session_id"])


def _raw(key: Key, path: str, body: bytes) -> Any:
    client: Any = APIClient()  # generic() takes bytes; its stub says str
    return client.generic(
        "POST", path, body, content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {key.raw}",
    )  # fmt: skip


@pytest.mark.parametrize("text", HOSTILE_TEXTS)
def test_hostile_unicode_is_stored_intact_and_searchable(
    operator_key_a: Key, property_agent: Any, text: str
) -> None:
    session = _session(operator_key_a)
    response = operator_key_a.client().post(
        f"/v1/sessions/{session}/turns", {"role": "user", "text": text, "seq": 1}, format="json"
    )
    assert response.status_code == 201, response.content
    assert Turn.objects.get(session_id=session, seq=1).text == text
    context = operator_key_a.client().post("/v1/context", {"session": session}, format="json")
    assert text in context.json()["context"]
    search = operator_key_a.client().post(
        "/v1/memory/search", {"agent": "property", "user": "hostile", "query": text}, format="json"
    )
    assert search.status_code == 200


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b'{"role": "user", "text": "a\\u0000b", "seq": 1}', "invalid"),  # NUL
        (b'{"role": "user", "text": "lone \\ud800 surrogate", "seq": 1}', "invalid"),
        (b'{"role": "user", "text": "\\udfff", "seq": 1}', "invalid"),
        (b'{"role": "user", "text": "x", "seq": 1', "malformed_json"),  # truncated JSON
        (b'\xff\xfe{"role": "user"}', "malformed_json"),  # not UTF-8
        (b'{"role": "user", "text": 42, "seq": 1}', "invalid"),
        (b'{"role": "robot", "text": "x", "seq": 1}', "invalid"),
        (b'{"role": "user", "text": "x", "seq": 0}', "invalid"),
        (b'{"role": "user", "text": "x", "seq": 1e400}', "invalid"),
        (b"[]", "invalid"),
    ],
)
def test_bad_turns_are_400_with_a_stable_code_and_store_nothing(
    operator_key_a: Key, property_agent: Any, body: bytes, code: str
) -> None:
    session = _session(operator_key_a)
    response = _raw(operator_key_a, f"/v1/sessions/{session}/turns", body)
    assert response.status_code == 400, response.content
    assert response.json()["code"] == code, response.json()
    assert not Turn.objects.filter(session_id=session).exists()


def test_turn_text_over_the_limit_is_400(operator_key_a: Key, property_agent: Any) -> None:
    session = _session(operator_key_a)
    client = operator_key_a.client()
    fits = client.post(
        f"/v1/sessions/{session}/turns", {"role": "user", "text": "x" * 32_000}, format="json"
    )
    assert fits.status_code == 201
    over = client.post(
        f"/v1/sessions/{session}/turns", {"role": "user", "text": "x" * 32_001}, format="json"
    )
    assert over.status_code == 400 and over.json()["code"] == "turn_too_long"
    assert Turn.objects.filter(session_id=session).count() == 1


def test_batch_over_500_is_400_and_stores_nothing(operator_key_a: Key, property_agent: Any) -> None:
    session = _session(operator_key_a)
    turns = [{"role": "user", "text": f"t{i}", "seq": i + 1} for i in range(501)]
    response = operator_key_a.client().post(
        f"/v1/sessions/{session}/turns:batch", {"turns": turns}, format="json"
    )
    assert response.status_code == 400 and response.json()["code"] == "invalid"
    assert not Turn.objects.filter(session_id=session).exists()


def test_body_over_the_limit_is_413_before_parsing(
    operator_key_a: Key, property_agent: Any, settings: Any
) -> None:
    session = _session(operator_key_a)
    body = b'{"role": "user", "text": "' + b"x" * (3 * 1024 * 1024) + b'"}'
    response = _raw(operator_key_a, f"/v1/sessions/{session}/turns", body)
    assert response.status_code == 413 and response.json()["code"] == "request_too_large"
    assert not Turn.objects.filter(session_id=session).exists()


@pytest.mark.parametrize("k", [0, 51, -1, "ten", 10.5, None])
def test_search_k_out_of_range_is_400(operator_key_a: Key, property_agent: Any, k: Any) -> None:
    _session(operator_key_a)
    response = operator_key_a.client().post(
        "/v1/memory/search",
        {"agent": "property", "user": "hostile", "query": "x", "k": k},
        format="json",
    )
    assert response.status_code == 400 and response.json()["code"] == "invalid"
    assert "k" in response.json()["fields"]


def test_schema_over_200_fields_is_400_and_publishes_nothing(
    operator_key_a: Key, property_agent: Any
) -> None:
    fields = [
        {"key": f"f{i}", "description": "d", "category": "profile", "type": "string"}
        for i in range(201)
    ]
    response = operator_key_a.client().post(
        "/v1/agents/property/schemas", {"fields": fields}, format="json"
    )
    assert response.status_code == 400 and response.json()["code"] == "invalid"
    assert ExtractionSchema.objects.filter(agent=property_agent).count() == 1


@pytest.mark.parametrize("value", HOSTILE_TEXTS[:4])
def test_hostile_fact_values_round_trip(
    operator_key_a: Key, property_agent: Any, value: str
) -> None:
    _session(operator_key_a)
    response = operator_key_a.client().post(
        "/v1/users/hostile/facts",
        {"agent": "property", "key": "city", "value": value},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert Entity.objects.get(key="city", status="active").value == value
    listed = operator_key_a.client().get("/v1/users/hostile/entities?agent=property").json()
    assert [e["value"] for e in listed if e["key"] == "city"] == [value]


@pytest.mark.parametrize(
    ("value", "code"),
    [("a\x00b", "invalid"), ("x" * 1001, "invalid"), ("", "invalid"), (["a"], "invalid")],
)
def test_bad_fact_values_are_400_and_write_nothing(
    operator_key_a: Key, property_agent: Any, value: Any, code: str
) -> None:
    _session(operator_key_a)
    response = operator_key_a.client().post(
        "/v1/users/hostile/facts",
        {"agent": "property", "key": "city", "value": value},
        format="json",
    )
    assert response.status_code == 400 and response.json()["code"] == code, response.content
    assert not Entity.objects.filter(key="city").exists()


@pytest.mark.parametrize("user", ["a\x00b", "x" * 201, "\ud800"])
def test_bad_user_ids_are_400(operator_key_a: Key, property_agent: Any, user: str) -> None:
    body = json.dumps({"agent": "property", "user": user}).encode()
    response = _raw(operator_key_a, "/v1/sessions", body)
    assert response.status_code == 400, response.content


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/users/hostile/facts", b'{"agent": "property", "key": "city", "value": "\\ud800"}'),
        (
            "/v1/users/hostile/facts",
            b'{"agent": "property", "key": "pet:\\u0000x", "value": "Max"}',
        ),
        ("/v1/users/hostile/facts", b'{"agent": "property", "key": "pet:\\udc00", "value": "Max"}'),
        ("/v1/sessions", b'{"agent": "property", "user": "u", "metadata": {"a": "\\u0000"}}'),
        ("/v1/sessions", b'{"agent": "property", "user": "u", "metadata": {"\\ud800": 1}}'),
        ("/v1/memory/search", b'{"agent": "property", "user": "hostile", "query": "\\u0000"}'),
        ("/v1/memory/search", b'{"agent": "property", "user": "hostile", "query": "\\ud800"}'),
        ("/v1/agents", b'{"slug": "x\\u0000", "name": "n"}'),
        ("/v1/agents", b'{"slug": "ok-slug", "name": "\\u0000", "description": "\\ud800"}'),
    ],
)
def test_nul_and_surrogates_anywhere_are_400_never_500(
    operator_key_a: Key, property_agent: Any, path: str, body: bytes
) -> None:
    _session(operator_key_a)
    before = (Entity.objects.count(), Turn.objects.count())
    response = _raw(operator_key_a, path, body)
    assert response.status_code == 400, (response.status_code, response.content)
    assert response.json()["code"] in ("invalid", "malformed_json")
    assert (Entity.objects.count(), Turn.objects.count()) == before

"""Errors Django produces before a view runs come back in the API's JSON envelope (issue 16).

What gunicorn answers before Django sees the request (a request line over its limit, a
malformed Content-Length) stays gunicorn's plain text: docs/security.md says so."""

from __future__ import annotations

from django.test import Client


def test_a_host_not_served_is_a_json_400_with_a_code(db: None) -> None:
    response = Client().get("/v1/agents", HTTP_HOST="attacker.example")
    assert response.status_code == 400
    assert response["Content-Type"].startswith("application/json")
    assert response.json() == {
        "code": "invalid_host",
        "detail": "The Host header names no host this service serves.",
    }


def test_an_unknown_path_is_a_json_404(db: None) -> None:
    response = Client().get("/v1/no-such-thing")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"

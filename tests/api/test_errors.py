"""Bad input is a 4xx with a stable code and changes nothing."""

from __future__ import annotations

from django.test import override_settings

from schemas.models import Agent
from tests.conftest import Key


def test_malformed_json_is_400(operator_key_a: Key) -> None:
    response = operator_key_a.client().generic(
        "POST", "/v1/agents", '{"slug": "x", "name":', content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["code"] == "malformed_json"
    assert Agent.objects.count() == 1


def test_body_that_is_not_an_object_is_400(operator_key_a: Key) -> None:
    for body in ("[1, 2]", '"text"', "42", "null"):
        response = operator_key_a.client().generic(
            "POST", "/v1/agents", body, content_type="application/json"
        )
        assert response.status_code == 400, body
        assert response.json()["code"] == "invalid"
        settings_response = operator_key_a.client().generic(
            "PATCH", "/v1/agents/advisor/settings", body, content_type="application/json"
        )
        assert settings_response.status_code == 400, body


def test_wrong_content_type_is_415(operator_key_a: Key) -> None:
    response = operator_key_a.client().generic(
        "POST", "/v1/agents", "slug=x", content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 415
    assert response.json()["code"] == "unsupported_media_type"


@override_settings(API_MAX_BODY_BYTES=2048)
def test_oversize_body_is_413_before_parsing(operator_key_a: Key) -> None:
    response = operator_key_a.client().post(
        "/v1/agents", {"slug": "big", "name": "x", "description": "y" * 5000}, format="json"
    )
    assert response.status_code == 413
    assert response.json()["code"] == "request_too_large"
    assert not Agent.objects.filter(slug="big").exists()


def test_unknown_method_is_405(operator_key_a: Key) -> None:
    response = operator_key_a.client().delete("/v1/agents/advisor")
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"


def test_unknown_url_is_json_404(operator_key_a: Key) -> None:
    response = operator_key_a.client().get("/v1/nothing-here")
    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "detail": "No such endpoint or object."}


def test_invalid_unicode_in_body_is_400(operator_key_a: Key) -> None:
    response = operator_key_a.client().generic(
        "POST",
        "/v1/agents",
        b'{"slug": "x", "name": "\xff\xfe"}',  # type: ignore[arg-type]
        content_type="application/json",
    )
    assert response.status_code == 400
    assert response.json()["code"] == "malformed_json"

from __future__ import annotations

import io

from django.core.management import call_command
from rest_framework.test import APIClient


def test_schema_generates_without_warnings(db: None) -> None:
    out = io.StringIO()
    # --fail-on-warn turns any drf-spectacular warning (unresolvable field, name clash) into an error.
    call_command(
        "spectacular", "--validate", "--fail-on-warn", "--format", "openapi-json", stdout=out
    )
    assert '"/v1/agents"' in out.getvalue()
    assert '"ApiKey"' in out.getvalue()


def test_schema_and_docs_are_served_without_a_key(db: None) -> None:
    client = APIClient()
    schema = client.get("/v1/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    assert b"/v1/agents/{slug}/schemas" in schema.content
    docs = client.get("/v1/docs")
    assert docs.status_code == 200 and b"swagger" in docs.content.lower()

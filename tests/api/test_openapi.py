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


# The success statuses each operation really answers (the views' `status=`), and the 409s.
SUCCESS = {
    ("post", "/v1/sessions"): {"200", "201"},  # resumed / opened
    ("post", "/v1/sessions/{session_id}/turns"): {"200", "201"},  # a repeat / stored
    ("post", "/v1/sessions/{session_id}/turns:batch"): {"200", "201"},  # all repeats / some new
    ("post", "/v1/users/{user}/facts"): {"200", "201"},  # the same value / a new version
    ("post", "/v1/entities/{entity_id}/correct"): {"200", "201"},
    ("post", "/v1/agents/{slug}/schemas"): {"200", "201"},  # identical fields / a new version
    ("delete", "/v1/users/{user}"): {"200", "202"},  # the job again / a new job
    ("post", "/v1/users/{user}/runs"): {"202"},
    ("post", "/v1/agents"): {"201"},
    ("post", "/v1/webhooks"): {"201"},
    ("delete", "/v1/webhooks/{webhook_id}"): {"204"},
    ("post", "/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/replay"): {"202"},  # sent on
}
CONFLICTS = {
    ("post", "/v1/sessions"),
    ("post", "/v1/sessions/{session_id}/turns"),
    ("post", "/v1/sessions/{session_id}/turns:batch"),
    ("post", "/v1/entities/{entity_id}/correct"),
    ("post", "/v1/entities/{entity_id}/pin"),
    ("post", "/v1/entities/{entity_id}/unpin"),
    ("post", "/v1/agents"),
    ("post", "/v1/users/{user}/runs"),
    ("delete", "/v1/sessions/{session_id}/turns/last"),  # turn_extracted
    ("post", "/v1/webhooks"),  # webhook_limit
    ("post", "/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/replay"),  # webhook_inactive
}


def test_every_operation_declares_the_statuses_it_answers(db: None) -> None:
    paths = APIClient().get("/v1/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    paths = paths["paths"]
    for path, item in paths.items():
        for method, operation in item.items():
            success = {s for s in operation["responses"] if s.startswith("2")}
            assert success == SUCCESS.get((method, path), {"200"}), (method, path, success)
            conflicts = "409" in operation["responses"]
            assert conflicts == ((method, path) in CONFLICTS), (method, path)
    assert "503" in paths["/readyz"]["get"]["responses"]
    readyz = paths["/readyz"]["get"]["responses"]["503"]["content"]["application/json"]["schema"]
    assert readyz == {"$ref": "#/components/schemas/Readyz"}  # its own body, not the envelope
    appended = paths["/v1/sessions/{session_id}/turns"]["post"]["responses"]["201"]
    assert appended["content"]["application/json"]["schema"]["$ref"].endswith("/TurnAppended")

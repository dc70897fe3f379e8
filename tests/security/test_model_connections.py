"""A tenant's operator cannot reach the deployment's secrets or network through the openai
extractor (issue 16): model endpoints and their keys are the deployment's (MODEL_CONNECTIONS);
a tenant picks one by name; addresses are checked; a remote error body is not shown back."""

from __future__ import annotations

import datetime
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from core.outbound import (
    ModelConnection,
    OutboundRefused,
    address_check,
    model_connections_parse,
)
from extraction.models import RunStatus
from extraction.services import extraction_run_execute, extraction_run_request
from memory.models import EndUser, Entity
from memory.services import TurnIn, hot_document_load, session_open, turn_append
from schemas.defaults import PROPERTY_ADVISOR
from schemas.services import agent_create
from tenants.models import Tenant
from tests.conftest import Key
from tests.scripted_model import ScriptedModel

pytestmark = pytest.mark.django_db(transaction=True)
WHEN = datetime.datetime(2026, 3, 3, 10, 0, tzinfo=datetime.UTC)


# --- The settings a tenant can set -------------------------------------------------------------


@pytest.mark.parametrize(
    "setting",
    [
        {"extractor_api_key_env": "SECRET_KEY"},
        {"extractor_api_key_env": "DATABASE_URL"},
        {"extractor_base_url": "http://169.254.169.254/latest/meta-data"},
    ],
)
def test_a_tenant_can_name_no_url_and_no_environment_variable(
    operator_key_a: Key, setting: dict[str, str]
) -> None:
    response = operator_key_a.client().patch("/v1/agents/advisor/settings", setting, format="json")
    assert response.status_code == 400
    assert next(iter(setting)) in response.json()["fields"]


def test_a_tenant_picks_only_a_connection_offered_to_it(operator_key_a: Key, settings: Any) -> None:
    settings.MODEL_CONNECTIONS = {
        "shared": ModelConnection("shared", "https://models.example/v1", "SHARED_KEY"),
        "b-only": ModelConnection("b-only", "https://b.example/v1", "B_KEY", tenants=("tenant-b",)),
    }
    client = operator_key_a.client()
    ok = client.patch(
        "/v1/agents/advisor/settings", {"extractor_connection": "shared"}, format="json"
    )
    assert ok.status_code == 200 and ok.json()["extractor_connection"] == "shared"
    for name in ("b-only", "nonexistent"):
        refused = client.patch(
            "/v1/agents/advisor/settings", {"extractor_connection": name}, format="json"
        )
        assert refused.status_code == 400
        assert "extractor_connection" in refused.json()["fields"]
    assert client.get("/v1/agents/advisor/settings").json()["extractor_connection"] == "shared"


# --- Addresses ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/v1",
        "http://localhost/v1",
        "http://10.1.2.3/v1",
        "http://192.168.0.10/v1",
        "http://172.16.5.4/v1",
        "http://169.254.169.254/latest",
        "http://100.64.0.1/v1",
        "http://[::1]/v1",
        "http://[::ffff:127.0.0.1]/v1",
        "http://[fd00::1]/v1",
        "http://0.0.0.0/v1",
        "http://224.0.0.1/v1",
    ],
)
def test_addresses_that_are_not_public_are_refused(url: str) -> None:
    with pytest.raises(OutboundRefused):
        address_check(url, allow_private=False)
    address_check(url, allow_private=True)  # the deployment may allow them for its own server


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "ftp://example.com/", "http:///v1", "gopher://x"]
)
def test_only_http_urls_with_a_host(url: str) -> None:
    with pytest.raises(OutboundRefused):
        address_check(url, allow_private=True)


def test_a_public_address_passes() -> None:
    address_check("https://8.8.8.8/v1", allow_private=False)


@pytest.mark.parametrize(
    "raw",
    [
        "not json",
        "[]",
        '{"Bad Name": {"base_url": "https://x/v1"}}',
        '{"a": {"base_url": "ftp://x"}}',
        '{"a": {"base_url": "https://x/v1", "api_key_env": "not a name"}}',
        '{"a": {"base_url": "https://x/v1", "allow_private": "yes"}}',
        '{"a": {"base_url": "https://x/v1", "headers": {}}}',
    ],
)
def test_a_malformed_model_connections_setting_fails_at_start_up(raw: str) -> None:
    with pytest.raises(ValueError):
        model_connections_parse(raw, default_base_url="https://x/v1", default_key_env="K")


# --- Runs --------------------------------------------------------------------------------------


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedModel]:
    monkeypatch.setattr("extraction.queue.run_send", lambda run_id: True)
    monkeypatch.setattr("extraction.extractors.openai.DEFAULT_TIMEOUT", 0.5)
    monkeypatch.setenv("HV_TEST_MODEL_KEY", "sk-test-123")
    server = ScriptedModel()
    yield server
    server.close()


def _run_on(tenant: Tenant, settings: Any, connection: ModelConnection) -> int:
    settings.MODEL_CONNECTIONS = {connection.name: connection}
    agent = agent_create(
        tenant_id=tenant.pk, slug="llm", name="LLM", schema_fields=PROPERTY_ADVISOR, actor="t",
        settings={"extractor": "openai", "extractor_model": "m", "extractor_connection": connection.name},
    )  # fmt: skip
    user = EndUser.objects.create(tenant=tenant, external_id="priya")
    hot_document_load(agent=agent, end_user=user)
    session = session_open(tenant_id=tenant.pk, agent_id=agent.pk, end_user_id=user.pk)
    turn_append(tenant_id=tenant.pk, session_id=session.id,
                turns=[TurnIn("user", "My budget is 80 lakhs.", occurred_at=WHEN)])  # fmt: skip
    run = extraction_run_request(tenant_id=tenant.pk, agent_id=agent.pk, end_user_id=user.pk)
    assert run is not None
    return run.pk


def test_a_loopback_endpoint_not_allowed_by_the_deployment_is_never_called(
    tenant_a: Tenant, model: ScriptedModel, settings: Any
) -> None:
    run_id = _run_on(tenant_a, settings, ModelConnection("local", model.url, "HV_TEST_MODEL_KEY"))
    run = extraction_run_execute(run_id=run_id)
    assert run is not None and run.status == RunStatus.FAILED
    assert "outbound_address_refused" in run.error
    assert model.requests == [] and not Entity.objects.exists()


def test_a_remote_error_body_is_not_shown_to_the_tenant(
    tenant_a: Tenant, model: ScriptedModel, settings: Any
) -> None:
    model.script("facts", ("status", 401))  # its body names the "account" (scripted 401)
    connection = ModelConnection("local", model.url, "HV_TEST_MODEL_KEY", allow_private=True)
    run = extraction_run_execute(run_id=_run_on(tenant_a, settings, connection))
    assert run is not None and run.status == RunStatus.FAILED
    assert run.error.endswith("model endpoint answered 401"), run.error
    assert "scripted" not in run.error


def test_a_redirect_is_not_followed(tenant_a: Tenant, model: ScriptedModel, settings: Any) -> None:
    class Redirect(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.send_response(307)
            self.send_header("Location", model.url + "/chat/completions")
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        connection = ModelConnection("hop", url, "HV_TEST_MODEL_KEY", allow_private=True)
        run = extraction_run_execute(run_id=_run_on(tenant_a, settings, connection))
    finally:
        server.shutdown()
    assert run is not None and run.status == RunStatus.FAILED
    assert model.requests == []  # the redirect target never saw the key or the turns


def test_the_key_sent_is_the_one_the_deployment_named(
    tenant_a: Tenant, model: ScriptedModel, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECRET_KEY_LOOKALIKE", "must-not-leave")
    connection = ModelConnection("local", model.url, "HV_TEST_MODEL_KEY", allow_private=True)
    run = extraction_run_execute(run_id=_run_on(tenant_a, settings, connection))
    assert run is not None and run.status == RunStatus.SUCCEEDED, run and run.error
    assert model.headers and {h["Authorization"] for h in model.headers} == {"Bearer sk-test-123"}

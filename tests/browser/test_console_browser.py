"""The operator console in a real browser: the four journeys of the issue, end to end."""

from __future__ import annotations

import datetime
import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from extraction.models import ExtractionRun
from memory.models import Entity, Source, Status
from memory.services import TurnIn, session_open, turn_append
from schemas.models import Agent, ExtractionSchema
from tenants.models import KeyRole, Role
from tenants.services import api_key_create, membership_set
from tests.browser.conftest import login
from tests.console.conftest import seed_priya
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_operator_corrects_a_fact_on_the_timeline(
    live_server: Any, page: Any, shots: Path, operator_a: Any, property_agent: Agent
) -> None:
    seeded = seed_priya(property_agent)
    login(page, live_server.url, "operator-a")
    page.goto(f"{live_server.url}/admin/memory/enduser/")
    page.click("text=priya")
    page.wait_for_selector("svg.hv-timeline")
    page.locator("#timeline").screenshot(path=str(shots / "timeline.png"))
    page.screenshot(path=str(shots / "enduser.png"), full_page=True)

    row = page.locator('#current-facts tr[data-key="budget"]')
    row.locator("summary", has_text="Correct…").click()
    row.locator('input[name="value"]').fill("9000000")
    row.locator('input[type="submit"][value="Correct"]').click()
    page.wait_for_selector("text=budget is now '₹90 lakh'")

    # In the page: the versions table has the old values superseded and the new one active.
    statuses = page.locator('#versions tr[data-key="budget"]').evaluate_all(
        "rows => rows.map(r => [r.querySelector('.hv-value').textContent, r.dataset.status])"
    )
    assert statuses == [
        ["₹50 lakh", "superseded"],
        ["₹80 lakh", "superseded"],
        ["₹90 lakh", "active"],
    ]
    assert "budget: ₹90 lakh" in page.locator("#as-of-block").inner_text()
    # In the database.
    active = Entity.objects.get(end_user=seeded.user, key="budget", status=Status.ACTIVE)
    assert active.value_text == "₹90 lakh" and active.source == Source.OPERATOR
    seeded.budget.refresh_from_db()
    assert seeded.budget.status == Status.SUPERSEDED and seeded.budget.superseded_by_id == active.pk


def test_operator_edits_schema_and_the_next_run_uses_it(
    live_server: Any, page: Any, shots: Path, operator_a: Any, property_agent: Agent
) -> None:
    login(page, live_server.url, "operator-a")
    page.goto(f"{live_server.url}/admin/schemas/agent/{property_agent.pk}/change/")
    page.click("text=open the schema editor")
    page.wait_for_selector("#schema-editor")
    description = page.locator('input[name="f-0-description"]')
    description.fill("The name the user wants to be called by")
    page.fill('input[name="note"]', "clearer name description")
    page.click('button[value="preview"]')
    assert "The name the user wants to be called by" in page.locator("#prompt-preview").inner_text()
    page.screenshot(path=str(shots / "schema-editor.png"), full_page=True)
    page.click('button[value="publish_activate"]')
    page.wait_for_selector("text=property v2: published and active.")
    assert ExtractionSchema.objects.get(agent=property_agent, is_active=True).version == 2
    assert ExtractionSchema.objects.get(agent=property_agent, version=1).fields[0][
        "description"
    ] != ("The name the user wants to be called by")

    # A conversation arrives; the operator runs extraction now; the run used v2.
    from memory.services import end_user_get_or_create

    user = end_user_get_or_create(tenant_id=property_agent.tenant_id, external_id="rahul")
    session = session_open(
        tenant_id=property_agent.tenant_id, agent_id=property_agent.pk, end_user_id=user.pk,
        external_id="rahul-1", metadata={},
    )  # fmt: skip
    turn_append(
        tenant_id=property_agent.tenant_id, session_id=session.id,
        turns=[TurnIn(role="user", text="My name is Rahul and I live in Mumbai.", seq=1,
                      occurred_at=timezone.now() - datetime.timedelta(minutes=5))],
    )  # fmt: skip
    page.goto(f"{live_server.url}/admin/memory/enduser/{user.pk}/change/?agent=property")
    page.click('input[value="Run extraction now"]')
    page.wait_for_selector("text=schema v2")
    run = ExtractionRun.objects.get(end_user=user)
    assert run.status == "succeeded" and run.schema_version == 2
    assert Entity.objects.get(end_user=user, key="name").value_text == "Rahul"


def test_threshold_change_shows_in_the_settings_api(
    live_server: Any, page: Any, shots: Path, operator_a: Any, property_agent: Agent
) -> None:
    _, raw = api_key_create(
        tenant=property_agent.tenant, name="ops", role=KeyRole.OPERATOR, actor="test"
    )
    login(page, live_server.url, "operator-a")
    page.goto(f"{live_server.url}/admin/schemas/agent/{property_agent.pk}/change/")
    page.fill("#id_extraction_token_threshold", "1234")
    page.locator("#id_extraction_token_threshold").scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "agent-settings.png"), full_page=True)
    page.click('input[name="_save"]')
    page.wait_for_selector(".messagelist .success")
    request = urllib.request.Request(
        f"{live_server.url}/v1/agents/property/settings", headers={"Authorization": f"Bearer {raw}"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        settings = json.loads(response.read())
    assert settings["extraction_token_threshold"] == 1234


def test_another_tenants_operator_gets_404(
    live_server: Any, page: Any, property_agent: Agent, tenant_b: Any
) -> None:
    seeded = seed_priya(property_agent)
    outsider: Any = UserFactory(username="operator-b")
    membership_set(tenant=tenant_b, user=outsider, role=Role.OPERATOR)
    login(page, live_server.url, "operator-b")
    response = page.goto(f"{live_server.url}/admin/memory/enduser/{seeded.user.pk}/change/")
    assert response.status == 404
    assert "priya" not in page.content()
    page.goto(f"{live_server.url}/admin/memory/enduser/")
    assert page.locator("text=priya").count() == 0

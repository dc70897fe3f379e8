"""The schema editor: drafts from any version, validates inline, publishes new versions only."""

from __future__ import annotations

from typing import Any

from django.test import Client

from schemas.models import Agent, ExtractionSchema
from schemas.services import schema_publish
from tenants.models import AuditEvent, Role
from tenants.services import membership_set
from tests.factories import UserFactory


def _login(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _url(agent: Agent) -> str:
    return f"/admin/schemas/extractionschema/editor/{agent.pk}/"


def _post_data(page: Any, **overrides: Any) -> dict[str, Any]:
    """The editor's form as a browser would submit it, with some cells changed."""
    formset = page.context["formset"]
    data: dict[str, Any] = {
        "f-TOTAL_FORMS": formset.total_form_count(),
        "f-INITIAL_FORMS": formset.initial_form_count(),
        "f-MIN_NUM_FORMS": 0,
        "f-MAX_NUM_FORMS": 1000,
    }
    for index, form in enumerate(formset.forms):
        for name in ("key", "description", "category", "type", "choices", "ttl_hours", "examples", "ORDER"):
            value = form.initial.get(name, form.fields[name].initial if name in form.fields else "")
            data[f"f-{index}-{name}"] = "" if value is None else value
    data.update(overrides)
    return data


def test_editor_shows_fields_prompt_and_json_schema(operator_a: Any, agent_a: Agent) -> None:
    page = _login(operator_a).get(_url(agent_a))
    assert page.status_code == 200
    active = ExtractionSchema.objects.get(agent=agent_a, is_active=True)
    assert len(page.context["formset"].forms) == len(active.fields) + 1  # one blank row
    assert "You extract facts about the user" in page.context["prompt"]
    assert f'"{active.fields[0]["key"]}"' in page.context["json_schema"]


def test_publish_and_activate_makes_a_new_version_and_leaves_the_old_one(
    operator_a: Any, agent_a: Agent
) -> None:
    client = _login(operator_a)
    page = client.get(_url(agent_a))
    before = ExtractionSchema.objects.get(agent=agent_a, version=1)
    blank = len(page.context["formset"].forms) - 1
    data = _post_data(
        page,
        **{f"f-{blank}-key": "pet", f"f-{blank}-description": "The user's pets",
           f"f-{blank}-category": "profile", f"f-{blank}-type": "string",
           "f-0-DELETE": "on", "intent": "publish_activate", "note": "pets, no name"},
    )  # fmt: skip
    response = client.post(_url(agent_a), data)
    assert response.status_code == 302, response.context and response.context["errors"]
    new = ExtractionSchema.objects.get(agent=agent_a, is_active=True)
    assert new.version == 2 and new.note == "pets, no name" and new.created_by == "user:operator-a"
    keys = [f["key"] for f in new.fields]
    assert keys[-1] == "pet" and before.fields[0]["key"] not in keys
    after = ExtractionSchema.objects.get(agent=agent_a, version=1)
    assert after.fields == before.fields and not after.is_active  # published versions never change
    actions = list(
        AuditEvent.objects.filter(actor="user:operator-a").values_list("action", flat=True)
    )
    assert sorted(actions) == ["schema.activate", "schema.publish"]


def test_examples_are_edited_one_per_line_and_published(operator_a: Any, agent_a: Agent) -> None:
    """Operators teach the offline extractor how users say a field; the examples land in the
    published version (and those already there are shown for editing, one per line)."""
    client = _login(operator_a)
    page = client.get(_url(agent_a))
    teach = "we can't go above 1.2 crore\r\n  \r\nmax 80 lakhs"
    data = _post_data(page, **{"f-0-examples": teach, "intent": "publish_activate"})
    assert client.post(_url(agent_a), data).status_code == 302
    new = ExtractionSchema.objects.get(agent=agent_a, is_active=True)
    assert new.fields[0]["examples"] == ["we can't go above 1.2 crore", "max 80 lakhs"]
    shown = client.get(_url(agent_a)).context["formset"].forms[0].initial["examples"]
    assert shown == "we can't go above 1.2 crore\nmax 80 lakhs"
    cleared = _post_data(client.get(_url(agent_a)), **{"f-0-examples": "", "intent": "publish_activate"})
    assert client.post(_url(agent_a), cleared).status_code == 302
    assert "examples" not in ExtractionSchema.objects.get(agent=agent_a, is_active=True).fields[0]


def test_reorder_moves_a_field(operator_a: Any, agent_a: Agent) -> None:
    client = _login(operator_a)
    page = client.get(_url(agent_a))
    first = ExtractionSchema.objects.get(agent=agent_a, version=1).fields[0]["key"]
    data = _post_data(page, **{"f-0-ORDER": 99, "intent": "publish_activate"})
    assert client.post(_url(agent_a), data).status_code == 302
    assert ExtractionSchema.objects.get(agent=agent_a, version=2).fields[-1]["key"] == first


def test_invalid_field_is_shown_at_its_cell_and_nothing_is_published(
    operator_a: Any, agent_a: Agent
) -> None:
    client = _login(operator_a)
    page = client.get(_url(agent_a))
    data = _post_data(page, **{"f-1-key": "Bad Key", "f-2-type": "enum", "intent": "publish"})
    response = client.post(_url(agent_a), data)
    assert response.status_code == 200
    forms = response.context["formset"].forms
    assert "snake_case" in " ".join(forms[1].errors["key"])
    assert forms[2].errors  # an enum without choices
    assert "nothing was published" in response.content.decode()
    assert ExtractionSchema.objects.filter(agent=agent_a).count() == 1


def test_preview_shows_the_drafts_prompt_without_publishing(
    operator_a: Any, agent_a: Agent
) -> None:
    client = _login(operator_a)
    page = client.get(_url(agent_a))
    data = _post_data(page, **{"f-0-description": "Who they say they are", "intent": "preview"})
    response = client.post(_url(agent_a), data)
    assert "Who they say they are" in response.context["prompt"]
    assert response.context["draft_diff"].changed
    assert ExtractionSchema.objects.filter(agent=agent_a).count() == 1


def test_roll_back_activates_an_older_version(operator_a: Any, agent_a: Agent) -> None:
    fields = ExtractionSchema.objects.get(agent=agent_a, version=1).fields
    schema_publish(agent=agent_a, fields=fields[:2], actor="test")
    client = _login(operator_a)
    page = client.get(_url(agent_a))
    diffs = {v.version: d for v, d in page.context["versions"]}
    assert sorted(diffs[1].added) == sorted(f["key"] for f in fields[2:])
    response = client.post(f"{_url(agent_a)}activate/1/")
    assert response.status_code == 302
    assert ExtractionSchema.objects.get(agent=agent_a, is_active=True).version == 1
    assert AuditEvent.objects.filter(action="schema.activate", actor="user:operator-a").exists()


def test_viewer_sees_the_editor_but_cannot_publish(viewer_a: Any, agent_a: Agent) -> None:
    client = _login(viewer_a)
    page = client.get(_url(agent_a))
    assert page.status_code == 200 and b"Publish and activate" not in page.content
    assert client.post(_url(agent_a), _post_data(page, intent="publish")).status_code == 403
    assert client.post(f"{_url(agent_a)}activate/1/").status_code == 403
    assert ExtractionSchema.objects.filter(agent=agent_a).count() == 1


def test_another_tenants_editor_is_404(tenant_b: Any, agent_a: Agent) -> None:
    outsider: Any = UserFactory(username="operator-b")
    membership_set(tenant=tenant_b, user=outsider, role=Role.OPERATOR)
    client = _login(outsider)
    assert client.get(_url(agent_a)).status_code == 404
    assert client.post(f"{_url(agent_a)}activate/1/").status_code == 404

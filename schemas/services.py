from __future__ import annotations

from typing import Any

from django.conf import settings as django_settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max

from core.errors import Conflict, invalid
from schemas.defaults import GENERAL_ASSISTANT
from schemas.models import AGENT_SLUG, Agent, ExtractionSchema
from schemas.selectors import schema_get
from schemas.validation import ValidationFailed, agent_settings_validate, schema_fields_validate
from tenants.models import Tenant
from tenants.services import audit_record


def model_connections_for(tenant_id: int) -> list[str]:
    """The names of the model connections the deployment opened to this tenant."""
    slug = Tenant.objects.filter(pk=tenant_id).values_list("slug", flat=True).first() or ""
    return [c.name for c in django_settings.MODEL_CONNECTIONS.values() if c.open_to(slug)]


def _connections_if_named(changes: object, tenant_id: int) -> list[str] | None:
    named = isinstance(changes, dict) and "extractor_connection" in changes
    return model_connections_for(tenant_id) if named else None


@transaction.atomic
def agent_create(
    *,
    tenant_id: int,
    slug: str,
    name: str,
    description: str = "",
    settings: dict[str, Any] | None = None,
    schema_fields: list[dict[str, Any]] | None = None,
    actor: str,
) -> Agent:
    """Create an agent with its settings and schema version 1, active."""
    try:
        AGENT_SLUG(slug)
    except ValidationError as exc:
        raise invalid("slug", exc.messages[0]) from None
    try:
        clean_settings = agent_settings_validate(
            settings or {}, connections=_connections_if_named(settings, tenant_id)
        )
    except ValidationFailed as exc:
        raise exc.invalid("settings.") from None
    try:
        fields = schema_fields_validate(
            schema_fields if schema_fields is not None else GENERAL_ASSISTANT
        )
    except ValidationFailed as exc:
        raise exc.invalid(fields_as="schema_fields") from None
    try:
        with transaction.atomic():
            agent = Agent.objects.create(
                tenant_id=tenant_id, slug=slug, name=name, description=description, **clean_settings
            )
    except IntegrityError:
        raise Conflict(f"An agent {slug!r} already exists.", code="agent_exists") from None
    ExtractionSchema.objects.create(
        tenant_id=tenant_id, agent=agent, version=1, fields=fields, is_active=True,
        note="initial", created_by=actor,
    )  # fmt: skip
    audit_record(
        tenant=tenant_id, actor=actor, action="agent.create", target_type="agent",
        target_id=agent.slug, after={"name": name, "settings": agent.settings_dict()},
    )  # fmt: skip
    return agent


@transaction.atomic
def agent_update(
    *, agent: Agent, name: str | None = None, description: str | None = None, actor: str
) -> Agent:
    agent = Agent.objects.select_for_update().get(pk=agent.pk, tenant_id=agent.tenant_id)
    before = {"name": agent.name, "description": agent.description}
    if name is not None:
        agent.name = name
    if description is not None:
        agent.description = description
    after = {"name": agent.name, "description": agent.description}
    if after != before:
        agent.save(update_fields=["name", "description", "updated_at"])
        audit_record(
            tenant=agent.tenant_id, actor=actor, action="agent.update", target_type="agent",
            target_id=agent.slug, before=before, after=after,
        )  # fmt: skip
    return agent


@transaction.atomic
def agent_settings_update(*, agent: Agent, changes: dict[str, Any], actor: str) -> Agent:
    """Validate and apply a partial settings change; effective on the next read or run."""
    agent = Agent.objects.select_for_update().get(pk=agent.pk, tenant_id=agent.tenant_id)
    current = agent.settings_dict()
    try:
        clean = agent_settings_validate(
            changes, current=current, connections=_connections_if_named(changes, agent.tenant_id)
        )
    except ValidationFailed as exc:
        raise exc.invalid() from None
    changed = {name: value for name, value in clean.items() if current[name] != value}
    if changed:
        for name, value in changed.items():
            setattr(agent, name, value)
        agent.save(update_fields=[*changed, "updated_at"])
        audit_record(
            tenant=agent.tenant_id, actor=actor, action="agent.settings", target_type="agent",
            target_id=agent.slug, before={n: current[n] for n in changed}, after=changed,
        )  # fmt: skip
    return agent


@transaction.atomic
def schema_publish(
    *, agent: Agent, fields: object, note: str = "", activate: bool = True, actor: str
) -> tuple[ExtractionSchema, bool]:
    """Publish the fields as a new version; returns (version, created).

    Publishing fields identical to the newest version creates nothing and returns that version.
    """
    try:
        clean = schema_fields_validate(fields)
    except ValidationFailed as exc:
        raise exc.invalid() from None
    # The agent row lock serialises publishers, so version numbers have no gaps or races.
    Agent.objects.select_for_update().filter(pk=agent.pk).first()
    latest = ExtractionSchema.objects.filter(agent=agent).order_by("-version").first()
    if latest is not None and latest.fields == clean:
        if activate and not latest.is_active:
            return schema_activate(agent=agent, version=latest.version, actor=actor), False
        return latest, False
    top = ExtractionSchema.objects.filter(agent=agent).aggregate(top=Max("version"))["top"] or 0
    schema = ExtractionSchema.objects.create(
        tenant_id=agent.tenant_id, agent=agent, version=top + 1, fields=clean, note=note,
        created_by=actor,
    )  # fmt: skip
    audit_record(
        tenant=agent.tenant_id, actor=actor, action="schema.publish", target_type="agent",
        target_id=agent.slug, after={"version": schema.version, "fields": len(clean), "note": note},
    )  # fmt: skip
    if activate:
        schema = schema_activate(agent=agent, version=schema.version, actor=actor)
    return schema, True


@transaction.atomic
def schema_activate(*, agent: Agent, version: int, actor: str) -> ExtractionSchema:
    """Make ``version`` the one the next extraction run uses (also how to roll back)."""
    Agent.objects.select_for_update().filter(pk=agent.pk).first()
    target = schema_get(agent=agent, version=version)
    previous = ExtractionSchema.objects.filter(agent=agent, is_active=True).first()
    if previous is not None and previous.pk == target.pk:
        return target
    ExtractionSchema.objects.filter(agent=agent, is_active=True).update(is_active=False)
    ExtractionSchema.objects.filter(pk=target.pk).update(is_active=True)
    target.is_active = True
    audit_record(
        tenant=agent.tenant_id, actor=actor, action="schema.activate", target_type="agent",
        target_id=agent.slug, before={"version": previous.version if previous else None},
        after={"version": version},
    )  # fmt: skip
    return target

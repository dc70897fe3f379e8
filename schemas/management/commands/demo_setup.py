"""Make sure the demo tenant, operator login, agent and API key exist; write their credentials.

Run by ``make run`` on every start. Idempotent: with a credentials file whose key and password
still work, nothing changes and the same credentials are written back.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from schemas.defaults import PROPERTY_ADVISOR
from schemas.models import Agent
from schemas.services import agent_create
from tenants.models import ApiKey, KeyRole, Role, Tenant
from tenants.services import (
    api_key_create,
    api_key_hash,
    api_key_parse,
    membership_set,
    tenant_create,
)

ACTOR = "system:demo_setup"


def _key_works(raw: str | None, tenant: Tenant) -> bool:
    parsed = api_key_parse(raw or "")
    if parsed is None:
        return False
    prefix, secret = parsed
    key = ApiKey.objects.filter(prefix=prefix, tenant=tenant, revoked_at__isnull=True).first()
    return key is not None and hmac.compare_digest(key.secret_hash, api_key_hash(secret))


class Command(BaseCommand):
    help = "Ensure the demo tenant, operator, agent and API key exist and write their credentials."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--base-url", default="http://127.0.0.1:8000")
        parser.add_argument("--write", required=True, help="path of the credentials JSON")

    @transaction.atomic
    def handle(self, *args: Any, base_url: str, write: str, **options: Any) -> None:
        path = Path(write)
        previous: dict[str, Any] = {}
        if path.exists():
            try:
                previous = json.loads(path.read_text())
            except ValueError:
                previous = {}

        tenant = Tenant.objects.filter(slug="demo").first() or tenant_create(
            name="Demo", slug="demo"
        )
        agent = Agent.objects.filter(tenant=tenant, slug="demo").first() or agent_create(
            tenant_id=tenant.pk,
            slug="demo",
            name="Property advisor (demo)",
            description="Helps home buyers; remembers budget, city and preferences.",
            schema_fields=PROPERTY_ADVISOR,
            actor=ACTOR,
        )

        username = "operator"
        user = get_user_model().objects.filter(username=username).first()
        password = previous.get("admin_password")
        if user is None:
            password = secrets.token_urlsafe(12)
            user = get_user_model().objects.create_user(
                username=username, password=password, is_staff=True
            )
        elif not (password and user.check_password(password)):
            password = secrets.token_urlsafe(12)
            user.set_password(password)
            user.is_staff = True
            user.save()
        membership_set(tenant=tenant, user=user, role=Role.OPERATOR)

        api_key = previous.get("api_key")
        if not _key_works(api_key, tenant):
            _, api_key = api_key_create(
                tenant=tenant, name="demo operator key", role=KeyRole.OPERATOR, actor=ACTOR
            )

        credentials = {
            "base_url": base_url,
            "api_key": api_key,
            "agent": agent.slug,
            "admin_username": username,
            "admin_password": password,
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            json.dump(credentials, handle, indent=2)
            handle.write("\n")
        tmp.replace(path)
        self.stdout.write(f"demo credentials written to {path}")

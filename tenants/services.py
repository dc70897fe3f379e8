from __future__ import annotations

import hashlib
import secrets
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from tenants.models import ApiKey, AuditEvent, KeyRole, Membership, Role, Tenant
from tenants.principal import principal_local_forget

KEY_PREFIX_BYTES = 6  # 12 hex characters: collisions are checked, not merely improbable
KEY_SECRET_BYTES = 32  # 256 bits


def api_key_cache_key(prefix: str) -> str:
    return f"apikey:{prefix}"


def api_key_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def api_key_parse(raw: str) -> tuple[str, str] | None:
    """Split ``hv_<prefix>_<secret>``; None when it is not of that form."""
    parts = raw.split("_", 2)
    if len(parts) != 3 or parts[0] != "hv" or not parts[1] or not parts[2]:
        return None
    return parts[1], parts[2]


def audit_record(
    *,
    tenant: Tenant | int,
    actor: str,
    action: str,
    target_type: str,
    target_id: object,
    before: Any = None,
    after: Any = None,
) -> AuditEvent:
    tenant_id = tenant if isinstance(tenant, int) else tenant.pk
    return AuditEvent.objects.create(
        tenant_id=tenant_id,
        actor=actor,
        action=action,
        target_type=target_type,
        target_id=str(target_id),
        before=before,
        after=after,
    )


def actor_for_user(user: AbstractBaseUser) -> str:
    return f"user:{user.get_username()}"


@transaction.atomic
def tenant_create(*, name: str, slug: str) -> Tenant:
    return Tenant.objects.create(name=name, slug=slug)


@transaction.atomic
def membership_set(*, tenant: Tenant, user: AbstractBaseUser, role: Role | str) -> Membership:
    membership, _ = Membership.objects.update_or_create(
        tenant=tenant, user_id=user.pk, defaults={"role": role}
    )
    return membership


@transaction.atomic
def api_key_create(
    *,
    tenant: Tenant,
    name: str,
    role: KeyRole | str = KeyRole.AGENT,
    agent_id: int | None = None,
    actor: str,
) -> tuple[ApiKey, str]:
    """Create a key; returns it with the full key string, which is never stored or shown again."""
    while True:
        prefix = secrets.token_hex(KEY_PREFIX_BYTES)
        if not ApiKey.objects.filter(prefix=prefix).exists():
            break
    secret = secrets.token_urlsafe(KEY_SECRET_BYTES)
    key = ApiKey.objects.create(
        tenant=tenant,
        name=name,
        prefix=prefix,
        secret_hash=api_key_hash(secret),
        role=role,
        agent_id=agent_id,
        created_by=actor,
    )
    # A miss for this prefix may have been cached as "unknown" while it did not exist.
    transaction.on_commit(lambda: cache.delete(api_key_cache_key(prefix)))
    audit_record(
        tenant=tenant,
        actor=actor,
        action="api_key.create",
        target_type="api_key",
        target_id=key.pk,
        after={"name": name, "prefix": prefix, "role": str(role), "agent_id": agent_id},
    )
    return key, f"hv_{prefix}_{secret}"


@transaction.atomic
def api_key_revoke(*, api_key: ApiKey, actor: str) -> ApiKey:
    updated = ApiKey.objects.filter(pk=api_key.pk, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
    api_key.refresh_from_db()
    if updated:
        audit_record(
            tenant=api_key.tenant_id,
            actor=actor,
            action="api_key.revoke",
            target_type="api_key",
            target_id=api_key.pk,
            after={"prefix": api_key.prefix},
        )
    # Drop the cached principal now and again after commit, so no request keeps using it
    # (other processes' own copies expire within API_KEY_LOCAL_CACHE_SECONDS).
    _principal_drop(api_key.prefix)
    transaction.on_commit(lambda: _principal_drop(api_key.prefix))
    return api_key


def _principal_drop(prefix: str) -> None:
    cache.delete(api_key_cache_key(prefix))
    principal_local_forget(prefix)

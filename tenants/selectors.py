from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser

from tenants.models import ApiKey, Membership, Role
from tenants.principal import ApiPrincipal


def api_principal_load(*, prefix: str) -> ApiPrincipal | None:
    key = ApiKey.objects.filter(prefix=prefix).first()
    if key is None:
        return None
    return ApiPrincipal(
        key_id=key.pk,
        prefix=key.prefix,
        tenant_id=key.tenant_id,
        role=key.role,
        agent_id=key.agent_id,
        secret_hash=key.secret_hash,
        revoked=key.revoked_at is not None,
    )


def tenant_ids_for_user(
    *, user: AbstractBaseUser, roles: tuple[str, ...] | None = None
) -> set[int]:
    memberships = Membership.objects.filter(user_id=user.pk)
    if roles is not None:
        memberships = memberships.filter(role__in=roles)
    return set(memberships.values_list("tenant_id", flat=True))


WRITE_ROLES = (Role.OWNER, Role.OPERATOR)

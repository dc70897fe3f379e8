"""What an authenticated API request carries, cached so the hot path reads no table for it."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

from tenants.models import KeyRole


@dataclass(frozen=True, slots=True)
class ApiPrincipal:
    key_id: int
    prefix: str
    tenant_id: int
    role: str
    agent_id: int | None
    secret_hash: str
    revoked: bool

    # DRF and Django look at these on request.user.
    is_authenticated = True
    is_active = True
    pk = None

    @property
    def actor(self) -> str:
        return f"api_key:hv_{self.prefix}"

    @property
    def can_manage(self) -> bool:
        return self.role == KeyRole.OPERATOR

    @property
    def can_read_management(self) -> bool:
        return self.role in (KeyRole.OPERATOR, KeyRole.VIEWER)

    def to_cache(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_cache(cls, data: dict[str, object]) -> ApiPrincipal:
        return cls(**data)  # type: ignore[arg-type]


# Each process's copy of the principals it read (tenants.authentication): prefix → (monotonic
# time it was read, the principal). Known keys only, so it is bounded by the live keys; cleared
# whole if it ever passes _LOCAL_MAX.
_local: dict[str, tuple[float, ApiPrincipal]] = {}
_LOCAL_MAX = 10_000


def principal_local_get(prefix: str, seconds: float) -> ApiPrincipal | None:
    held = _local.get(prefix)
    if held is None or time.monotonic() - held[0] >= seconds:
        return None
    return held[1]


def principal_local_put(principal: ApiPrincipal) -> None:
    if len(_local) >= _LOCAL_MAX:
        _local.clear()
    _local[principal.prefix] = (time.monotonic(), principal)


def principal_local_forget(prefix: str) -> None:
    """Drop this process's copy of a key's principal (a revoke does, before and after commit)."""
    _local.pop(prefix, None)

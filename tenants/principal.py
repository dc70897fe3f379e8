"""What an authenticated API request carries, cached so the hot path reads no table for it."""

from __future__ import annotations

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

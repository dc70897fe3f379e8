from __future__ import annotations

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models


class Tenant(models.Model):
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # The lifecycle policy (docs/gdpr.md), applied by the Celery beat sweeps.
    turn_retention_days = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text="Raw turns said longer ago than this many days are deleted, and expired "
        "ephemeral facts that long past their expiry. Empty: kept for ever (the default).",
    )
    retention_purges_derived = models.BooleanField(
        default=False,
        help_text="With a turn retention: also delete memory units and no-longer-current fact "
        "versions older than it. Off: facts and memory units derived from old turns stay.",
    )
    extraction_tokens_per_day = models.PositiveBigIntegerField(
        null=True,
        blank=True,
        help_text="Model tokens (in + out) the tenant's extraction runs may spend per UTC day. "
        "When spent, extraction pauses until midnight UTC; ingestion and reads go on. "
        "Empty: no cap (the default; the offline rules extractor spends none).",
    )
    session_idle_days = models.PositiveIntegerField(
        null=True,
        blank=True,
        default=30,
        validators=[MinValueValidator(1)],
        help_text="Sessions idle longer are tiered down (hot cache evicted, marked archived); "
        "resuming one rebuilds it from PostgreSQL. Empty: never.",
    )

    def __str__(self) -> str:
        return self.name


class Role(models.TextChoices):
    OWNER = "owner", "Owner"
    OPERATOR = "operator", "Operator"
    VIEWER = "viewer", "Viewer"


class Membership(models.Model):
    """A Django login's access to one tenant in the admin."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.VIEWER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "user"], name="membership_unique_user"),
        ]

    def __str__(self) -> str:
        return f"{self.user} · {self.tenant} ({self.role})"


class KeyRole(models.TextChoices):
    AGENT = "agent", "Agent (call path: sessions, turns, search, facts)"
    OPERATOR = "operator", "Operator (call path and management)"
    VIEWER = "viewer", "Viewer (reads management endpoints)"


class ApiKey(models.Model):
    """An API key. The secret is shown once; only its SHA-256 is stored.

    A key is ``hv_<prefix>_<secret>``: the prefix is public and indexed for lookup, the secret
    is 256 random bits, so a fast hash is enough (nothing to brute-force, unlike a password).
    """

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=200)
    prefix = models.CharField(max_length=16, unique=True)
    secret_hash = models.CharField(max_length=64)
    role = models.CharField(max_length=16, choices=KeyRole.choices, default=KeyRole.AGENT)
    # Referenced by name so that this app imports nothing above it (ADR 0003).
    agent = models.ForeignKey(
        "schemas.Agent",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="api_keys",
        help_text="When set, the key reaches only this agent.",
        # The database holds (agent_id, tenant_id) → schemas_agent (tenants.distribution).
        db_constraint=False,
    )
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.CharField(max_length=200, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["tenant", "created_at"], name="apikey_tenant_created")]

    def __str__(self) -> str:
        return f"{self.name} (hv_{self.prefix}_…)"

    @property
    def is_revoked(self) -> bool:
        return self.revoked_at is not None


class AuditEvent(models.Model):
    """Who changed what, when, with the value before and after.

    Lives at the bottom of the dependency order so that every app can write one in the same
    transaction as its change (ADR 0003). Fact values that an erase or forget removes are never
    written here.
    """

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="audit_events")
    actor = models.CharField(max_length=200)
    action = models.CharField(max_length=64)
    target_type = models.CharField(max_length=64)
    target_id = models.CharField(max_length=64)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        indexes = [
            models.Index(fields=["tenant", "-created_at"], name="audit_tenant_time"),
            models.Index(fields=["tenant", "target_type", "target_id"], name="audit_target"),
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.target_type}:{self.target_id} by {self.actor}"

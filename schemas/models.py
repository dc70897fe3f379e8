from __future__ import annotations

from typing import Any

from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models

from schemas.validation import SETTINGS
from tenants.models import Tenant

AGENT_SLUG = RegexValidator(
    r"^[a-z0-9][a-z0-9_-]{0,62}$", "Use a-z, 0-9, - and _, starting with a letter or digit."
)


def _numeric(name: str) -> dict[str, Any]:
    setting = SETTINGS[name]
    return {
        "default": setting.default,
        "help_text": setting.help,
        "validators": [
            MinValueValidator(setting.minimum),
            MaxValueValidator(setting.maximum),
        ],
    }


class Agent(models.Model):
    """An agent of a tenant, addressed by its slug, with the settings operators tune (§6)."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="agents")
    slug = models.CharField(max_length=63, validators=[AGENT_SLUG])
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    extraction_token_threshold = models.PositiveIntegerField(
        **_numeric("extraction_token_threshold")
    )
    min_kept_turns = models.PositiveIntegerField(**_numeric("min_kept_turns"))
    acu_segment_turns = models.PositiveIntegerField(**_numeric("acu_segment_turns"))
    context_window_turns = models.PositiveIntegerField(**_numeric("context_window_turns"))
    ephemeral_ttl_hours = models.PositiveIntegerField(**_numeric("ephemeral_ttl_hours"))
    dedup_threshold = models.FloatField(**_numeric("dedup_threshold"))
    search_confidence_threshold = models.FloatField(**_numeric("search_confidence_threshold"))
    cold_fallback_min_results = models.PositiveIntegerField(**_numeric("cold_fallback_min_results"))
    hybrid_search = models.BooleanField(
        default=SETTINGS["hybrid_search"].default, help_text=SETTINGS["hybrid_search"].help
    )
    search_recency_weight = models.FloatField(**_numeric("search_recency_weight"))
    search_language = models.CharField(
        max_length=32,
        default=SETTINGS["search_language"].default,
        choices=[(c, c) for c in SETTINGS["search_language"].choices or ()],
        help_text=SETTINGS["search_language"].help,
    )
    context_budget_tokens = models.PositiveIntegerField(**_numeric("context_budget_tokens"))
    summary_max_tokens = models.PositiveIntegerField(**_numeric("summary_max_tokens"))
    extractor = models.CharField(
        max_length=16,
        default=SETTINGS["extractor"].default,
        choices=[(c, c) for c in SETTINGS["extractor"].choices or ()],
        help_text=SETTINGS["extractor"].help,
    )
    extractor_model = models.CharField(
        max_length=200, blank=True, default="", help_text=SETTINGS["extractor_model"].help
    )
    extractor_connection = models.CharField(
        max_length=50,
        default=SETTINGS["extractor_connection"].default,
        help_text=SETTINGS["extractor_connection"].help,
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "slug"], name="agent_unique_slug"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.slug})"

    def settings_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in SETTINGS}


class ExtractionSchema(models.Model):
    """One immutable, numbered version of an agent's extraction schema; one is active."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey(
        Agent, on_delete=models.CASCADE, related_name="schemas", db_constraint=False
    )
    version = models.PositiveIntegerField()
    fields = models.JSONField()
    note = models.CharField(max_length=500, blank=True)
    is_active = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.CharField(max_length=200)

    class Meta:
        ordering = ["agent_id", "-version"]
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "agent", "version"], name="schema_unique_version"
            ),
            models.UniqueConstraint(
                fields=["tenant", "agent"],
                condition=models.Q(is_active=True),
                name="schema_one_active_per_agent",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.agent.slug} v{self.version}{' (active)' if self.is_active else ''}"

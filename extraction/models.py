from __future__ import annotations

import uuid

from django.contrib.postgres.functions import RandomUUID
from django.db import models

from memory.models import EndUser
from schemas.models import Agent
from tenants.models import Tenant


class RunStatus(models.TextChoices):
    PENDING = "pending"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"
    PAUSED = "paused"  # the tenant's daily model-token budget was spent; nothing written


class ExtractionRun(models.Model):
    """One pass of the write lane over a user's turns after the watermark."""

    # What the API shows: the row id counts every run of every tenant, so it would tell a
    # tenant the service's volume. The database default covers the scheduler's raw INSERT.
    public_id = models.UUIDField(default=uuid.uuid4, db_default=RandomUUID(), editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey(
        Agent, on_delete=models.CASCADE, related_name="+", db_constraint=False
    )
    end_user = models.ForeignKey(
        EndUser, on_delete=models.CASCADE, related_name="+", db_constraint=False
    )
    status = models.CharField(max_length=16, choices=RunStatus.choices, default=RunStatus.PENDING)
    trigger = models.CharField(max_length=32, default="threshold")
    pending_tokens = models.BigIntegerField(default=0)
    schema_version = models.PositiveIntegerField(null=True, blank=True)
    first_turn_id = models.BigIntegerField(null=True, blank=True)
    last_turn_id = models.BigIntegerField(null=True, blank=True)
    timings = models.JSONField(default=dict, blank=True)
    counts = models.JSONField(default=dict, blank=True)
    # Per fact: key, value, source, turns, why (the cue and figures that decided it), outcome;
    # and what was considered and not written, with the reason. The run inspector shows them.
    explanations = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # At most one run waiting or running per user: scheduling is idempotent.
            models.UniqueConstraint(
                fields=["tenant", "agent", "end_user"],
                condition=models.Q(status__in=["pending", "running"]),
                name="run_one_open_per_user",
            ),
            models.UniqueConstraint(fields=["tenant", "public_id"], name="run_unique_public_id"),
        ]
        indexes = [models.Index(fields=["tenant", "-created_at"], name="run_tenant_time")]

    def __str__(self) -> str:
        return f"run {self.pk} ({self.status})"

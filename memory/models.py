"""The three tiers. The turn log is the source of truth; everything else is derived from it.

Every row carries ``tenant`` and every query filters on it (ADR 0003, STYLE.md). In the
database every primary key is ``(id, tenant_id)`` and every unique key holds ``tenant_id``, so
the tables can be distributed by tenant; the foreign keys between tenant tables are composite
there, which Django cannot express, hence ``db_constraint=False`` on them here
(tenants/distribution.py, ADR 0028).
"""

from __future__ import annotations

import datetime
import uuid

from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from pgvector.django import VectorField

from schemas.models import Agent
from schemas.validation import Category
from tenants.models import Tenant

EMBEDDING_DIMENSIONS = 384  # all-MiniLM-L6-v2 / bge-small class models


class EndUser(models.Model):
    """The person an agent talks to, known to the tenant by ``external_id``."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    external_id = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "external_id"], name="enduser_unique_external"
            ),
        ]

    def __str__(self) -> str:
        return self.external_id


class Session(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # Indexed through session_user_recent (tenant first).
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+", db_index=False)
    agent = models.ForeignKey(
        Agent, on_delete=models.CASCADE, related_name="+", db_constraint=False
    )
    end_user = models.ForeignKey(
        EndUser, on_delete=models.CASCADE, related_name="sessions", db_constraint=False
    )
    # NULL, not "": sessions without a client id must not collide in the unique constraint.
    external_id = models.CharField(max_length=200, null=True, blank=True)  # noqa: DJ001
    metadata = models.JSONField(default=dict, blank=True)
    started_at = models.DateTimeField()
    last_activity_at = models.DateTimeField()
    next_seq = models.BigIntegerField(default=1)
    # Tiered down after a long idle time (its hot cache evicted); cleared when it is resumed.
    archived_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "agent", "external_id"],
                condition=models.Q(external_id__isnull=False),
                name="session_unique_external",
            ),
        ]
        indexes = [
            models.Index(
                fields=["tenant", "end_user", "-last_activity_at"], name="session_user_recent"
            )
        ]

    def __str__(self) -> str:
        return self.external_id or str(self.id)


class Role(models.TextChoices):
    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    TOOL = "tool"


class Turn(models.Model):
    """Append-only. Never rewritten; eviction from the hot tier only sets ``archived_at``."""

    id = models.BigAutoField(primary_key=True)
    # Every insert pays for every index: tenant and agent are covered by turn_user_log, the
    # session by turn_unique_seq, so their foreign keys get no index of their own.
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+", db_index=False)
    session = models.ForeignKey(
        Session, on_delete=models.CASCADE, related_name="turns", db_index=False, db_constraint=False
    )
    # Denormalised from the session: the write lane reads "this user's turns after the watermark".
    agent = models.ForeignKey(
        Agent, on_delete=models.CASCADE, related_name="+", db_index=False, db_constraint=False
    )
    end_user = models.ForeignKey(
        EndUser, on_delete=models.CASCADE, related_name="+", db_constraint=False
    )
    seq = models.BigIntegerField()
    role = models.CharField(max_length=16, choices=Role.choices)
    text = models.TextField()
    tokens = models.PositiveIntegerField()
    occurred_at = models.DateTimeField()
    # The UTC offset the client gave with ``occurred_at``, in minutes (None: not known, read as
    # UTC). PostgreSQL keeps the moment, not the offset; the write lane reads "tomorrow" and
    # "on Friday" on the user's own calendar day, which at 08:10 in Sydney is not UTC's.
    utc_offset = models.SmallIntegerField(null=True, blank=True)
    recorded_at = models.DateTimeField()
    archived_at = models.DateTimeField(null=True, blank=True)
    # Stored so that search ranks turns without re-parsing them (english; ADR 0010).
    text_search = models.GeneratedField(
        expression=SearchVector("text", config="english"),
        output_field=SearchVectorField(),
        db_persist=True,
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "session", "seq"], name="turn_unique_seq"),
        ]
        indexes = [
            models.Index(fields=["tenant", "agent", "end_user", "id"], name="turn_user_log"),
            GinIndex(fields=["text_search"], name="turn_text_search"),
        ]

    def __str__(self) -> str:
        return f"{self.session_id}#{self.seq} {self.role}"

    @property
    def occurred_local(self) -> datetime.datetime:
        """``occurred_at`` at the offset the client gave it with: its date is the user's day."""
        if self.utc_offset is None:
            return self.occurred_at
        zone = datetime.timezone(datetime.timedelta(minutes=self.utc_offset))
        return self.occurred_at.astimezone(zone)


class HotDocument(models.Model):
    """Tier 1: everything session start needs, for one (agent, end user), in one row.

    ``stable_block`` is the pre-rendered stable part of the context block (pinned, profile,
    facts, possibilities, summary); the recent conversation is appended from ``recent_turns``
    at read time, so a turn append never re-renders facts.
    """

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey(
        Agent, on_delete=models.CASCADE, related_name="+", db_constraint=False
    )
    end_user = models.ForeignKey(
        EndUser, on_delete=models.CASCADE, related_name="+", db_constraint=False
    )
    cache_key = models.CharField(max_length=200)
    # Bumped by every change (an append, a rebuild). The Redis copy is trusted only while its
    # tail holds ``version`` and its stable part at least ``stable_version`` (ADR 0020).
    version = models.BigIntegerField(default=1)
    # The version of the last change to the stable part (a rebuild); appends leave it alone.
    stable_version = models.BigIntegerField(default=0, db_default=0)
    profile = models.JSONField(default=list)
    facts = models.JSONField(default=list)
    possibilities = models.JSONField(default=list)
    pinned = models.JSONField(default=list)
    summary = models.TextField(blank=True, default="")
    stable_block = models.TextField(blank=True, default="")
    recent_turns = models.JSONField(default=list)
    # When the earliest shown ephemeral fact expires: a read after it rebuilds the document.
    expires_next_at = models.DateTimeField(null=True, blank=True)
    pending_tokens = models.BigIntegerField(default=0)
    # The last turn the write lane has extracted from; the next run reads the turns after it.
    watermark_turn_id = models.BigIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "agent", "end_user"], name="hotdoc_unique_user"
            ),
            models.UniqueConstraint(fields=["tenant", "cache_key"], name="hotdoc_unique_key"),
        ]

    def __str__(self) -> str:
        return f"hot {self.agent_id}/{self.end_user_id} v{self.version}"


class Source(models.TextChoices):
    EXPLICIT = "explicit", "Explicit (the user said it)"
    CONFIRMED = "confirmed", "Confirmed (the user confirmed it)"
    INFERRED = "inferred", "Inferred (a possibility, never asserted)"
    OPERATOR = "operator", "Operator (set by a person)"


class Status(models.TextChoices):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    RETRACTED = "retracted"


class Entity(models.Model):
    """A bi-temporal fact.

    World time: ``valid_from`` .. ``valid_until`` (when it was true). Transaction time:
    ``recorded_at`` (when Handover learned it) and ``superseded_at`` (when Handover learned its
    ``valid_until``). So "as known at R" sees this row from ``recorded_at`` on, open-ended until
    ``superseded_at``. Supersession never deletes.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey(
        Agent, on_delete=models.CASCADE, related_name="+", db_constraint=False
    )
    end_user = models.ForeignKey(
        EndUser, on_delete=models.CASCADE, related_name="+", db_constraint=False
    )
    key = models.CharField(max_length=200, help_text="Schema field, optionally ':qualifier'")
    field = models.CharField(max_length=63)
    # Labels as Django's TextChoices spells them ("Profile"), so the migrated choices stand.
    category = models.CharField(
        max_length=16, choices=[(c.value, c.name.title()) for c in Category]
    )
    value = models.JSONField()
    value_text = models.CharField(max_length=1000)
    source = models.CharField(max_length=16, choices=Source.choices)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    valid_from = models.DateTimeField()
    valid_until = models.DateTimeField(null=True, blank=True)
    recorded_at = models.DateTimeField()
    superseded_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    superseded_by = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        db_constraint=False,
    )
    source_turns = models.JSONField(default=list, blank=True)
    pinned = models.BooleanField(default=False)
    created_by = models.CharField(max_length=200)

    class Meta:
        verbose_name_plural = "entities"
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "agent", "end_user", "key"],
                condition=models.Q(status="active"),
                name="entity_one_active_per_key",
            ),
        ]
        indexes = [
            models.Index(
                fields=["tenant", "agent", "end_user", "key", "valid_from"], name="entity_user_key"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.key} = {self.value_text} ({self.status})"


class ACU(models.Model):
    """Tier 2: an Atomic Context Unit, a self-contained fact with its embedding."""

    id = models.BigAutoField(primary_key=True)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey(
        Agent, on_delete=models.CASCADE, related_name="+", db_constraint=False
    )
    end_user = models.ForeignKey(
        EndUser, on_delete=models.CASCADE, related_name="+", db_constraint=False
    )
    session = models.ForeignKey(
        Session, on_delete=models.SET_NULL, null=True, related_name="+", db_constraint=False
    )
    text = models.TextField()
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS, null=True)
    keywords = SearchVectorField(null=True)
    first_seq = models.BigIntegerField(null=True)
    last_seq = models.BigIntegerField(null=True)
    occurred_at = models.DateTimeField()
    content_hash = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "ACU"
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "agent", "end_user", "content_hash"], name="acu_unique_content"
            ),
        ]
        indexes = [
            models.Index(
                fields=["tenant", "agent", "end_user", "occurred_at"], name="acu_user_time"
            ),
            GinIndex(fields=["keywords"], name="acu_keywords"),
            # Search credits a unit for matches in the turns it came from: (session, seq) → units.
            models.Index(fields=["session", "first_seq", "last_seq"], name="acu_session_seq"),
        ]

    def __str__(self) -> str:
        return self.text[:80]


class ErasureStatus(models.TextChoices):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class Erasure(models.Model):
    """An erase job, and afterwards the tombstone of the end user it erased.

    Holds no personal content: the subject is a keyed hash (HMAC-SHA256 with the SECRET_KEY) of
    the tenant and external id, so an operator can prove a given person was erased without the
    table naming anyone. ``end_user`` is set only while the job runs.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    subject_hash = models.CharField(max_length=64)
    end_user = models.ForeignKey(
        EndUser,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        db_constraint=False,
    )
    status = models.CharField(
        max_length=16, choices=ErasureStatus.choices, default=ErasureStatus.PENDING
    )
    counts = models.JSONField(default=dict, blank=True, help_text="rows deleted per table")
    actor = models.CharField(max_length=200)
    requested_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["tenant", "subject_hash"], name="erasure_subject"),
            models.Index(fields=["tenant", "-requested_at"], name="erasure_tenant_time"),
        ]

    def __str__(self) -> str:
        return f"erasure {self.pk} ({self.status})"

"""Read-only admin pages over the memory tables. The end user page with its timeline and
corrections is the console's (console/admin.py): it composes memory with extraction."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from memory.models import ACU, Entity, Erasure, HotDocument, Session, Turn
from tenants.admin import CappedCountPaginator, TenantScopedAdmin


class ReadOnlyTenantAdmin(TenantScopedAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


@admin.register(Session)
class SessionAdmin(ReadOnlyTenantAdmin):
    list_display = [
        "id",
        "external_id",
        "agent",
        "end_user",
        "started_at",
        "last_activity_at",
        "next_seq",
    ]
    list_select_related = ["agent", "end_user"]
    raw_id_fields = ["agent", "end_user"]
    search_fields = ["external_id", "end_user__external_id"]
    show_full_result_count = False
    paginator = CappedCountPaginator


@admin.register(Turn)
class TurnAdmin(ReadOnlyTenantAdmin):
    list_display = ["id", "session", "seq", "role", "tokens", "occurred_at", "archived_at"]
    list_select_related = ["session"]
    raw_id_fields = ["session", "agent", "end_user"]
    show_full_result_count = False
    paginator = CappedCountPaginator  # the turn log is the largest table: no COUNT(*)


@admin.register(Entity)
class EntityAdmin(ReadOnlyTenantAdmin):
    list_display = [
        "key",
        "value_text",
        "status",
        "source",
        "valid_from",
        "valid_until",
        "recorded_at",
        "end_user",
    ]
    list_filter = ["status", "source", "category"]
    show_full_result_count = False
    paginator = CappedCountPaginator
    list_select_related = ["end_user"]
    raw_id_fields = ["agent", "end_user", "superseded_by"]
    search_fields = ["key", "end_user__external_id"]


@admin.register(HotDocument)
class HotDocumentAdmin(ReadOnlyTenantAdmin):
    list_display = ["agent", "end_user", "version", "pending_tokens", "updated_at"]
    list_select_related = ["agent", "end_user"]
    raw_id_fields = ["agent", "end_user"]


@admin.register(ACU)
class ACUAdmin(ReadOnlyTenantAdmin):
    list_display = ["id", "end_user", "occurred_at", "text"]
    raw_id_fields = ["agent", "end_user", "session"]
    show_full_result_count = False
    paginator = CappedCountPaginator

    def get_queryset(self, request: HttpRequest) -> QuerySet[ACU]:
        return super().get_queryset(request).defer("embedding", "keywords")


@admin.register(Erasure)
class ErasureAdmin(ReadOnlyTenantAdmin):
    """Erase jobs and, once done, their tombstones: no personal content, only a keyed hash."""

    list_display = ["id", "status", "subject", "actor", "requested_at", "finished_at", "rows"]
    list_filter = ["status"]
    search_fields = ["subject_hash", "actor"]
    fields = readonly_fields = (
        "id", "tenant", "status", "subject_hash", "actor", "counts", "requested_at",
        "started_at", "finished_at", "error",
    )  # fmt: skip
    show_full_result_count = False
    paginator = CappedCountPaginator

    @admin.display(description="subject (keyed hash)")
    def subject(self, obj: Erasure) -> str:
        return f"{obj.subject_hash[:16]}…"

    @admin.display(description="rows deleted")
    def rows(self, obj: Erasure) -> int:
        return sum(v for v in (obj.counts or {}).values() if isinstance(v, int))

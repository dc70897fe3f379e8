from __future__ import annotations

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest

from extraction.models import ExtractionRun
from tenants.admin import TenantScopedAdmin


@admin.register(ExtractionRun)
class ExtractionRunAdmin(TenantScopedAdmin):
    list_display = [
        "id",
        "agent",
        "end_user",
        "status",
        "trigger",
        "pending_tokens",
        "created_at",
        "finished_at",
    ]
    list_filter = ["status", "trigger"]
    list_select_related = ["agent", "end_user"]
    raw_id_fields = ["agent", "end_user"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

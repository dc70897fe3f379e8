from __future__ import annotations

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from extraction.models import ExtractionRun
from tenants.admin import CappedCountPaginator, TenantScopedAdmin

RUN_FIELDS = (
    "agent", "end_user", "status", "trigger", "schema_version", "pending_tokens",
    "first_turn_id", "last_turn_id", "created_at", "started_at", "finished_at",
    "stage_timings", "stage_counts", "error", "why_facts",
)  # fmt: skip


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
        "duration",
    ]
    list_filter = ["status", "trigger", "agent"]
    list_select_related = ["agent", "end_user"]
    raw_id_fields = ["agent", "end_user"]
    search_fields = ["end_user__external_id"]
    show_full_result_count = False
    paginator = CappedCountPaginator
    date_hierarchy = "created_at"
    fields = RUN_FIELDS
    readonly_fields = RUN_FIELDS

    @admin.display(description="duration")
    def duration(self, obj: ExtractionRun) -> str:
        total = (obj.timings or {}).get("total")
        return f"{total / 1000:.2f} s" if isinstance(total, int | float) else "—"

    @admin.display(description="per-stage timings (ms)")
    def stage_timings(self, obj: ExtractionRun) -> str:
        return _table(obj.timings or {}, unit=" ms")

    @admin.display(description="counts")
    def stage_counts(self, obj: ExtractionRun) -> str:
        return _table(obj.counts or {})

    @admin.display(description="why each fact (and what was not written)")
    def why_facts(self, obj: ExtractionRun) -> str:
        rows = obj.explanations or []
        if not rows:
            return "—"
        body = format_html_join(
            "", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            ((r.get("key") or r.get("kind", ""), r.get("value", ""), r.get("source", ""), r.get("outcome", ""),
              _why(r), ", ".join(f"{t.get('session', '')[:8]}…#{t.get('seq')}" for t in r.get("turns") or []))
             for r in rows),
        )  # fmt: skip
        head = mark_safe(  # a constant
            "<tr><th>fact</th><th>value</th><th>source</th><th>outcome</th><th>why</th><th>turns</th></tr>"
        )
        return format_html("<table>{}{}</table>", head, body)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


def _why(row: dict[str, object]) -> str:
    """ "cue: example: allergic to; similarity 0.62; points 3.1" — or the reason it was not written."""
    why = row.get("why")
    if isinstance(why, dict):
        return "; ".join(f"{k}: {v}" for k, v in why.items())
    return str(row.get("detail", ""))


def _table(values: dict[str, object], unit: str = "") -> str:
    if not values:
        return "—"
    rows = format_html_join(
        "", "<tr><th>{}</th><td style='text-align:right'>{}{}</td></tr>",
        ((name, value, unit) for name, value in values.items()),
    )  # fmt: skip
    return format_html("<table>{}</table>", rows)

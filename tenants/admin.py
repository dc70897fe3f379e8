"""The operator console's base: every admin page sees only the user's tenants.

A superuser sees everything. Owners and operators change their tenants' objects; viewers only
read. Another tenant's object by URL behaves as a missing one. Django's model permissions are not
used: the membership role is the permission.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.paginator import Paginator
from django.db.models import Model, QuerySet
from django.forms import ModelForm
from django.http import Http404, HttpRequest, HttpResponseRedirect
from django.utils.functional import cached_property

from tenants.models import ApiKey, AuditEvent, Membership, Role, Tenant
from tenants.selectors import WRITE_ROLES, tenant_ids_for_user
from tenants.services import actor_for_user, api_key_create, api_key_revoke


class CappedCountPaginator(Paginator):
    """Counts at most ``CAP`` rows: a list page of the turn log or the audit log must not scan
    millions of rows to print a page count. Past the cap the last pages are not reachable by
    number; filters and search narrow the list instead."""

    CAP = 10_000

    @cached_property
    def count(self) -> int:
        return int(self.object_list[: self.CAP].count())  # type: ignore[attr-defined]  # a QuerySet here


class TenantScopedAdmin(admin.ModelAdmin):
    tenant_field = "tenant"
    write_roles: tuple[str, ...] = WRITE_ROLES

    def _tenant_ids(self, request: HttpRequest, *, write: bool) -> set[int] | None:
        user = request.user
        if not user.is_active or not user.is_staff:
            return set()
        if user.is_superuser:
            return None
        return tenant_ids_for_user(user=user, roles=self.write_roles if write else None)

    def _object_tenant_id(self, obj: Model) -> int:
        return int(obj.tenant_id)  # type: ignore[attr-defined]  # every tenant table has it

    def _allowed(self, request: HttpRequest, obj: Model | None, *, write: bool) -> bool:
        ids = self._tenant_ids(request, write=write)
        if ids is None:
            return True
        if obj is None:
            return bool(ids)
        return self._object_tenant_id(obj) in ids

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset = super().get_queryset(request)
        ids = self._tenant_ids(request, write=False)
        if ids is None:
            return queryset
        return queryset.filter(**{f"{self.tenant_field}__in": ids})

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self._allowed(request, None, write=False)

    def has_view_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return self._allowed(request, obj, write=False)

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return self._allowed(request, obj, write=True)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return self._allowed(request, None, write=True)

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False  # deletes go through services (erase, forget), never a bare admin delete

    def _get_obj_does_not_exist_redirect(
        self, request: HttpRequest, opts: Any, object_id: str
    ) -> HttpResponseRedirect:
        # Django redirects to the index with a message naming the id; the console answers
        # "not yours" and "does not exist" alike, with a plain 404.
        raise Http404("Not found.")

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        ids = self._tenant_ids(request, write=True)
        if ids is not None:
            related = db_field.related_model
            if related is Tenant:
                kwargs["queryset"] = Tenant.objects.filter(pk__in=ids)
            elif any(f.name == "tenant" for f in related._meta.fields):
                kwargs["queryset"] = related._default_manager.filter(tenant_id__in=ids)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


@admin.register(Tenant)
class TenantAdmin(TenantScopedAdmin):
    tenant_field = "pk"
    write_roles = (Role.OWNER,)
    list_display = ["name", "slug", "created_at"]
    search_fields = ["name", "slug"]

    def _object_tenant_id(self, obj: Model) -> int:
        return int(obj.pk)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset = admin.ModelAdmin.get_queryset(self, request)
        ids = self._tenant_ids(request, write=False)
        return queryset if ids is None else queryset.filter(pk__in=ids)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_superuser)


@admin.register(Membership)
class MembershipAdmin(TenantScopedAdmin):
    write_roles = (Role.OWNER,)
    list_display = ["user", "tenant", "role", "created_at"]
    list_filter = ["role"]
    list_select_related = ["user", "tenant"]
    raw_id_fields = ["user"]


@admin.register(ApiKey)
class ApiKeyAdmin(TenantScopedAdmin):
    list_display = [
        "name",
        "display_prefix",
        "tenant",
        "role",
        "agent",
        "last_used_at",
        "revoked_at",
    ]
    list_filter = ["role", ("revoked_at", admin.EmptyFieldListFilter)]
    list_select_related = ["tenant", "agent"]
    search_fields = ["name", "prefix"]
    fields = [
        "tenant",
        "name",
        "role",
        "agent",
        "prefix",
        "created_by",
        "created_at",
        "last_used_at",
        "revoked_at",
    ]
    readonly_fields = ["prefix", "created_by", "created_at", "last_used_at", "revoked_at"]
    actions = ["revoke"]

    @admin.display(description="key")
    def display_prefix(self, obj: ApiKey) -> str:
        return f"hv_{obj.prefix}_…"

    def get_readonly_fields(self, request: HttpRequest, obj: Model | None = None) -> Any:
        if obj is not None:  # a key's tenant, role and scope never change: issue a new one
            return ["tenant", "role", "agent", *self.readonly_fields]
        return self.readonly_fields

    def save_model(self, request: HttpRequest, obj: ApiKey, form: ModelForm, change: bool) -> None:
        if change:
            ApiKey.objects.filter(pk=obj.pk, tenant_id=obj.tenant_id).update(name=obj.name)
            return
        key, secret = api_key_create(
            tenant=obj.tenant,
            name=obj.name,
            role=obj.role,
            agent_id=obj.agent_id,
            actor=actor_for_user(request.user),  # type: ignore[arg-type]
        )
        obj.pk = key.pk
        obj.prefix = key.prefix
        self.message_user(
            request,
            f"API key created. Copy it now, it is not shown again: {secret}",
            level=messages.WARNING,
        )

    @admin.action(description="Revoke the selected keys")
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiKey]) -> None:
        ids = self._tenant_ids(request, write=True)
        if ids is not None:
            queryset = queryset.filter(tenant_id__in=ids)
        for key in queryset:
            api_key_revoke(api_key=key, actor=actor_for_user(request.user))  # type: ignore[arg-type]
        self.message_user(request, f"Revoked {len(queryset)} key(s).")


class ActorFilter(admin.SimpleListFilter):
    """Who did it: the actors seen in the visible tenants' audit log (most recent first)."""

    title = "actor"
    parameter_name = "actor"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        events = model_admin.get_queryset(request).order_by("-created_at")
        actors = list(dict.fromkeys(events.values_list("actor", flat=True)[:2000]))[:30]
        return [(actor, actor) for actor in actors]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.filter(actor=self.value()) if self.value() else queryset


@admin.register(AuditEvent)
class AuditEventAdmin(TenantScopedAdmin):
    list_display = ["created_at", "tenant", "actor", "action", "target_type", "target_id"]
    list_filter = [ActorFilter, "action", "target_type", "created_at"]
    list_select_related = ["tenant"]
    search_fields = ["actor", "action", "target_id"]
    readonly_fields = [
        "created_at",
        "tenant",
        "actor",
        "action",
        "target_type",
        "target_id",
        "before",
        "after",
    ]
    date_hierarchy = "created_at"
    show_full_result_count = False
    paginator = CappedCountPaginator

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

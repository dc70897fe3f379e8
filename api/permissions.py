from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from tenants.models import KeyRole
from tenants.principal import ApiPrincipal


class HasApiKey(BasePermission):
    """The agent's call path: agent and operator keys; viewer keys only read.

    A view whose POST only reads (search, context packing) says so with ``reads_only = True``.
    """

    def has_permission(self, request: Request, view: Any) -> bool:
        principal = request.auth
        if not isinstance(principal, ApiPrincipal):
            raise exceptions.NotAuthenticated(
                "Send 'Authorization: Bearer <api key>'.", code="missing_api_key"
            )
        writes = request.method not in SAFE_METHODS and not getattr(view, "reads_only", False)
        if writes and principal.role == KeyRole.VIEWER:
            raise exceptions.PermissionDenied(
                "A viewer key only reads; use an agent or operator key.", code="permission_denied"
            )
        return True


class IsOperatorKey(HasApiKey):
    """Management endpoints: operator keys write, viewer keys read, agent keys neither."""

    def has_permission(self, request: Request, view: Any) -> bool:
        super().has_permission(request, view)
        principal = request.auth
        assert isinstance(principal, ApiPrincipal)
        allowed = (
            principal.can_read_management
            if request.method in SAFE_METHODS
            else principal.can_manage
        )
        if not allowed:
            raise exceptions.PermissionDenied(
                "This key's role cannot do this; use an operator key.", code="permission_denied"
            )
        return True


class ReadsSchemas(IsOperatorKey):
    """Extraction schemas: every key reads those of the agents it reaches (an agent writing facts
    needs the fields, e.g. the MCP server's schema resource); only operator keys publish and
    activate."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.method in SAFE_METHODS:
            return HasApiKey.has_permission(self, request, view)
        return super().has_permission(request, view)


class IsTenantOperatorKey(HasApiKey):
    """Requests about a person across the whole tenant (export, erase): an operator key that is
    not scoped to one agent, since an end user belongs to the tenant, not to an agent."""

    def has_permission(self, request: Request, view: Any) -> bool:
        super().has_permission(request, view)
        principal = request.auth
        assert isinstance(principal, ApiPrincipal)
        if not principal.can_manage or principal.agent_id is not None:
            raise exceptions.PermissionDenied(
                "Use an operator key that is not scoped to one agent.", code="permission_denied"
            )
        return True

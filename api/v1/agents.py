"""Agents, their settings and their versioned extraction schemas (operator keys manage; every
key reads the schemas of the agents it reaches)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.permissions import IsOperatorKey, ReadsSchemas
from api.schema import conflict
from api.serializers import StrictSerializer
from api.v1.common import agent_of, principal_of
from core.errors import Forbidden, Invalid
from schemas.models import ExtractionSchema
from schemas.selectors import agent_list, schema_get, schema_list
from schemas.services import (
    agent_create,
    agent_settings_update,
    agent_update,
    schema_activate,
    schema_publish,
)
from schemas.validation import CATEGORIES, SETTINGS, TYPES

_FIELD_FOR = {int: serializers.IntegerField, float: serializers.FloatField,
              bool: serializers.BooleanField, str: serializers.CharField}  # fmt: skip

SettingsSerializer = type(
    "AgentSettings",
    (serializers.Serializer,),
    {name: _FIELD_FOR[s.kind](required=False, help_text=s.help) for name, s in SETTINGS.items()},
)


class SchemaFieldSerializer(serializers.Serializer):
    key = serializers.CharField()
    description = serializers.CharField()
    category = serializers.ChoiceField(choices=CATEGORIES)
    type = serializers.ChoiceField(choices=TYPES)
    choices = serializers.ListField(child=serializers.CharField(), required=False)
    ttl_hours = serializers.IntegerField(required=False)
    examples = serializers.ListField(child=serializers.CharField(), required=False)


class SchemaOutputSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    is_active = serializers.BooleanField()
    note = serializers.CharField()
    fields = SchemaFieldSerializer(many=True)  # type: ignore[assignment]  # DRF pops declared fields
    created_at = serializers.DateTimeField()
    created_by = serializers.CharField()


class AgentOutputSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    settings = SettingsSerializer(source="settings_dict")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


def _raw_object(request: Request) -> dict[str, Any]:
    # The settings are validated by schemas.validation, which names an unknown one; only the
    # shape is checked here.
    if not isinstance(request.data, dict):
        raise Invalid("body: expected a JSON object.", fields={"body": ["Expected a JSON object."]})
    return request.data


class CanCreateAgents(IsOperatorKey):
    """An operator key, not scoped to one agent, for POST: a scoped key creating agents would
    reach beyond its agent. Checked before the body is read, like the role."""

    def has_permission(self, request: Request, view: Any) -> bool:
        super().has_permission(request, view)
        if request.method == "POST" and principal_of(request).agent_id is not None:
            raise Forbidden(
                "A key scoped to one agent cannot create agents.", code="permission_denied"
            )
        return True


class AgentListApi(APIView):
    permission_classes = [CanCreateAgents]

    class InputSerializer(StrictSerializer):
        slug = serializers.CharField(max_length=63)
        name = serializers.CharField(max_length=200)
        description = serializers.CharField(required=False, allow_blank=True, default="")
        # Validated by schemas.validation, which names the setting or schema place at fault.
        settings = serializers.JSONField(required=False, default=dict)
        schema_fields = serializers.JSONField(required=False, default=None)

        class Meta:
            ref_name = "AgentCreate"

    @extend_schema(responses=AgentOutputSerializer(many=True), tags=["agents"])
    def get(self, request: Request) -> Response:
        principal = principal_of(request)
        agents = agent_list(tenant_id=principal.tenant_id, agent_scope=principal.agent_id)
        return Response(AgentOutputSerializer(agents, many=True).data)

    @extend_schema(
        request=InputSerializer,
        responses={201: AgentOutputSerializer, 409: conflict("agent_exists")},
        tags=["agents"],
    )
    def post(self, request: Request) -> Response:
        principal = principal_of(request)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        agent = agent_create(
            tenant_id=principal.tenant_id, actor=principal.actor, **serializer.validated_data
        )
        return Response(AgentOutputSerializer(agent).data, status=status.HTTP_201_CREATED)


class AgentDetailApi(APIView):
    permission_classes = [IsOperatorKey]

    class InputSerializer(StrictSerializer):
        name = serializers.CharField(max_length=200, required=False)
        description = serializers.CharField(required=False, allow_blank=True)

        class Meta:
            ref_name = "AgentUpdate"

    @extend_schema(responses=AgentOutputSerializer, tags=["agents"])
    def get(self, request: Request, slug: str) -> Response:
        return Response(AgentOutputSerializer(agent_of(request, slug)).data)

    @extend_schema(request=InputSerializer, responses=AgentOutputSerializer, tags=["agents"])
    def patch(self, request: Request, slug: str) -> Response:
        agent = agent_of(request, slug)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        agent = agent_update(
            agent=agent, actor=principal_of(request).actor, **serializer.validated_data
        )
        return Response(AgentOutputSerializer(agent).data)


class AgentSettingsApi(APIView):
    permission_classes = [IsOperatorKey]

    @extend_schema(responses=SettingsSerializer, tags=["agents"])
    def get(self, request: Request, slug: str) -> Response:
        return Response(agent_of(request, slug).settings_dict())

    @extend_schema(request=SettingsSerializer, responses=SettingsSerializer, tags=["agents"])
    def patch(self, request: Request, slug: str) -> Response:
        agent = agent_of(request, slug)
        agent = agent_settings_update(
            agent=agent, changes=_raw_object(request), actor=principal_of(request).actor
        )
        return Response(agent.settings_dict())


class SchemaListApi(APIView):
    permission_classes = [ReadsSchemas]

    class InputSerializer(StrictSerializer):
        fields = serializers.JSONField()  # type: ignore[assignment]  # validated by schemas.validation
        note = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")
        activate = serializers.BooleanField(required=False, default=True)

        class Meta:
            ref_name = "SchemaPublish"

    @extend_schema(responses=SchemaOutputSerializer(many=True), tags=["schemas"])
    def get(self, request: Request, slug: str) -> Response:
        schemas = schema_list(agent=agent_of(request, slug))
        return Response(SchemaOutputSerializer(schemas, many=True).data)

    @extend_schema(
        request=InputSerializer,
        responses={201: SchemaOutputSerializer, 200: SchemaOutputSerializer},
        tags=["schemas"],
        description="Publish a new version (201). Fields identical to the newest version "
        "publish nothing and return that version (200).",
    )
    def post(self, request: Request, slug: str) -> Response:
        agent = agent_of(request, slug)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        schema, created = schema_publish(
            agent=agent, actor=principal_of(request).actor, **serializer.validated_data
        )
        return Response(
            SchemaOutputSerializer(schema).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class SchemaDetailApi(APIView):
    permission_classes = [ReadsSchemas]

    @extend_schema(responses=SchemaOutputSerializer, tags=["schemas"])
    def get(self, request: Request, slug: str, version: int) -> Response:
        schema: ExtractionSchema = schema_get(agent=agent_of(request, slug), version=version)
        return Response(SchemaOutputSerializer(schema).data)


class SchemaActivateApi(APIView):
    permission_classes = [IsOperatorKey]

    @extend_schema(request=None, responses=SchemaOutputSerializer, tags=["schemas"])
    def post(self, request: Request, slug: str, version: int) -> Response:
        schema = schema_activate(
            agent=agent_of(request, slug), version=version, actor=principal_of(request).actor
        )
        return Response(SchemaOutputSerializer(schema).data)

"""Facts: structured writes, the bi-temporal read, corrections, pins and forgetting one fact."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.schema import conflict
from api.serializers import StrictCharField, StrictSerializer, moment_field, valid_from_field
from api.v1.common import agent_of, principal_of
from memory.models import Entity, Source, Status
from memory.presenters import entity_present
from memory.selectors.facts import entity_get_for_tenant, entity_list_for_user
from memory.services.facts import entity_correct, entity_pin_set, entity_upsert_for_user
from memory.services.forget import entity_forget


class EntityOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    key = serializers.CharField()
    field = serializers.CharField()
    category = serializers.CharField()
    value = serializers.JSONField()
    value_text = serializers.CharField()
    source = serializers.CharField()  # type: ignore[assignment]  # DRF pops declared fields
    status = serializers.CharField()
    valid_from = serializers.DateTimeField()
    valid_until = serializers.DateTimeField(allow_null=True)
    recorded_at = serializers.DateTimeField()
    superseded_at = serializers.DateTimeField(allow_null=True)
    expires_at = serializers.DateTimeField(allow_null=True)
    expired = serializers.BooleanField()
    superseded_by = serializers.UUIDField(allow_null=True)
    source_turns = serializers.JSONField()
    pinned = serializers.BooleanField()
    created_by = serializers.CharField()

    class Meta:
        ref_name = "Entity"


class FactCreateApi(APIView):
    class InputSerializer(StrictSerializer):
        agent = StrictCharField(max_length=63, required=False)
        key = StrictCharField(max_length=200)
        value = serializers.JSONField()
        source = serializers.ChoiceField(choices=Source.choices, default=Source.EXPLICIT)  # type: ignore[assignment]
        valid_from = valid_from_field(required=False, allow_null=True)
        value_text = StrictCharField(max_length=1000, required=False, allow_null=True)
        source_turns = serializers.ListField(
            child=serializers.JSONField(), required=False, max_length=100
        )

        class Meta:
            ref_name = "FactWrite"

    @extend_schema(
        request=InputSerializer,
        responses={201: EntityOutputSerializer, 200: EntityOutputSerializer},
        tags=["facts"],
        description="Write a fact directly (no model), validated against the agent's active "
        "schema. A new value supersedes the active one (201); the same value changes nothing (200).",
    )
    def post(self, request: Request, user: str) -> Response:
        principal = principal_of(request)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        entity, created = entity_upsert_for_user(
            agent=agent_of(request, data.get("agent")),
            user_external_id=user,
            key=data["key"],
            value=data["value"],
            source=data["source"],
            valid_from=data.get("valid_from"),
            value_text=data.get("value_text"),
            source_turns=data.get("source_turns"),
            actor=principal.actor,
        )
        return Response(
            entity_present(entity, full=True),
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class EntityListApi(APIView):
    class QuerySerializer(StrictSerializer):
        agent = serializers.CharField(max_length=63, required=False)
        key = serializers.CharField(max_length=200, required=False)
        status = serializers.ChoiceField(choices=[*Status.values, "any"], required=False)
        as_of = moment_field(required=False)
        known_at = moment_field(required=False)

        class Meta:
            ref_name = "EntityQuery"

    @extend_schema(
        parameters=[QuerySerializer],
        responses=EntityOutputSerializer(many=True),
        tags=["facts"],
        description="Current facts by default. `as_of`: what was true at that world time; "
        "`known_at`: what Handover knew at that moment; both combine. `status=any` without "
        "times: the whole timeline, superseded and expired versions included.",
    )
    def get(self, request: Request, user: str) -> Response:
        serializer = self.QuerySerializer(data=request.query_params.dict())
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        entities = entity_list_for_user(
            agent=agent_of(request, data.get("agent")),
            user_external_id=user,
            key=data.get("key"),
            status=data.get("status"),
            as_of=data.get("as_of"),
            known_at=data.get("known_at"),
        )
        return Response([entity_present(e, full=True) for e in entities])


def _entity(request: Request, entity_id: str) -> Entity:
    principal = principal_of(request)
    return entity_get_for_tenant(
        tenant_id=principal.tenant_id, entity_id=entity_id, agent_scope=principal.agent_id
    )


class EntityDetailApi(APIView):
    @extend_schema(responses=EntityOutputSerializer, tags=["facts"])
    def get(self, request: Request, entity_id: str) -> Response:
        return Response(entity_present(_entity(request, entity_id), full=True))

    class ForgetSerializer(StrictSerializer):
        redact_turns = serializers.BooleanField(required=False, default=False)

        class Meta:
            ref_name = "EntityForget"

    @extend_schema(
        request=ForgetSerializer,
        responses={
            200: inline_serializer(
                "Forgotten",
                {
                    "key": serializers.CharField(),
                    "deleted_versions": serializers.IntegerField(),
                    "deleted_acus": serializers.IntegerField(),
                    "redacted_turns": serializers.IntegerField(),
                },
            )
        },
        tags=["facts"],
        description="Forget this fact: every version of its key, and every memory unit that "
        "states its value, are deleted. `redact_turns: true` also replaces the text of the "
        "turns it was extracted from by `[redacted]` (re-indexed). The audit event records the "
        "key and counts, never the value.",
    )
    def delete(self, request: Request, entity_id: str) -> Response:
        entity = _entity(request, entity_id)
        serializer = self.ForgetSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        forgotten = entity_forget(
            entity=entity,
            actor=principal_of(request).actor,
            redact_turns=serializer.validated_data["redact_turns"],
        )
        return Response(
            {
                "key": forgotten.key,
                "deleted_versions": forgotten.versions,
                "deleted_acus": forgotten.acus,
                "redacted_turns": forgotten.turns_redacted,
            }
        )


class EntityCorrectApi(APIView):
    class InputSerializer(StrictSerializer):
        value = serializers.JSONField()
        valid_from = valid_from_field(required=False, allow_null=True)
        source = serializers.ChoiceField(  # type: ignore[assignment]  # DRF pops declared fields
            choices=[Source.OPERATOR, Source.CONFIRMED], default=Source.OPERATOR
        )
        value_text = StrictCharField(max_length=1000, required=False, allow_null=True)

        class Meta:
            ref_name = "EntityCorrect"

    @extend_schema(
        request=InputSerializer,
        responses={
            201: EntityOutputSerializer,
            200: EntityOutputSerializer,
            409: conflict("entity_not_active"),
        },
        tags=["facts"],
        description="Replace a wrong value: a new active version (source operator or confirmed) "
        "supersedes this one, valid from this one's start unless `valid_from` is given (201). "
        "The value it already has changes nothing (200). Only the active version: else 409.",
    )
    def post(self, request: Request, entity_id: str) -> Response:
        entity = _entity(request, entity_id)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        corrected, created = entity_correct(
            entity=entity, actor=principal_of(request).actor, **serializer.validated_data
        )
        return Response(
            entity_present(corrected, full=True),
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class EntityPinApi(APIView):
    pinned = True

    @extend_schema(
        request=None,
        responses={200: EntityOutputSerializer, 409: conflict("entity_not_active")},
        tags=["facts"],
    )
    def post(self, request: Request, entity_id: str) -> Response:
        entity = entity_pin_set(
            entity=_entity(request, entity_id),
            pinned=self.pinned,
            actor=principal_of(request).actor,
        )
        return Response(entity_present(entity, full=True))


class EntityUnpinApi(EntityPinApi):
    pinned = False

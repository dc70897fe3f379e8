"""Extraction runs of a user: what the write lane did, and a way for operators to start one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.permissions import IsOperatorKey
from api.schema import conflict
from api.serializers import StrictCharField, StrictSerializer
from api.v1.common import agent_of, principal_of
from extraction.selectors import extraction_run_list, extraction_run_turn_refs
from extraction.services import extraction_run_start
from memory.models import EndUser
from memory.selectors import end_user_get_for_tenant
from schemas.models import Agent


class TurnRefSerializer(serializers.Serializer):
    session = serializers.UUIDField()
    seq = serializers.IntegerField()


class RunOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField(source="public_id", help_text="opaque")
    status = serializers.CharField()
    trigger = serializers.CharField()
    pending_tokens = serializers.IntegerField()
    schema_version = serializers.IntegerField(allow_null=True)
    first_turn = TurnRefSerializer(allow_null=True, help_text="the first turn the run read")
    last_turn = TurnRefSerializer(allow_null=True, help_text="the last turn the run read")
    timings = serializers.DictField(help_text="milliseconds per stage")
    counts = serializers.DictField(
        help_text="turns, facts, superseded, acus, duplicates_dropped, atomicity_rejects, "
        "archived, kept, model_calls, tokens_in, tokens_out"
    )
    error = serializers.CharField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)

    class Meta:
        ref_name = "ExtractionRun"


def _agent_and_user(request: Request, agent: str | None, user: str) -> tuple[Agent, EndUser]:
    """The agent named (or the key's own) and the tenant's user: both 404 when not yours."""
    tenant_id = principal_of(request).tenant_id
    return agent_of(request, agent), end_user_get_for_tenant(tenant_id=tenant_id, external_id=user)


class RunListApi(APIView):
    class QuerySerializer(StrictSerializer):
        agent = StrictCharField(max_length=63, required=False)

        class Meta:
            ref_name = "RunQuery"

    class InputSerializer(StrictSerializer):
        agent = StrictCharField(max_length=63, required=False)

        class Meta:
            ref_name = "RunRequest"

    def get_permissions(self) -> Sequence[Any]:
        return [IsOperatorKey()] if self.request.method == "POST" else super().get_permissions()

    @extend_schema(
        parameters=[QuerySerializer], responses=RunOutputSerializer(many=True), tags=["write lane"]
    )
    def get(self, request: Request, user: str) -> Response:
        serializer = self.QuerySerializer(data=request.query_params.dict())
        serializer.is_valid(raise_exception=True)
        agent, end_user = _agent_and_user(request, serializer.validated_data.get("agent"), user)
        runs = extraction_run_turn_refs(extraction_run_list(agent=agent, end_user=end_user))
        return Response(RunOutputSerializer(runs, many=True).data)

    @extend_schema(
        request=InputSerializer,
        responses={202: RunOutputSerializer, 409: conflict("run_open")},
        tags=["write lane"],
        description="Start a run for this user now (operator keys), whatever the pending count. "
        "409 `run_open` while one is pending or running.",
    )
    def post(self, request: Request, user: str) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        agent, end_user = _agent_and_user(request, serializer.validated_data.get("agent"), user)
        run = extraction_run_start(
            agent=agent, end_user=end_user, actor=principal_of(request).actor
        )
        [run] = extraction_run_turn_refs([run])
        return Response(RunOutputSerializer(run).data, status=status.HTTP_202_ACCEPTED)

"""A data subject's rights: export everything held about an end user; erase it (ADR 0014-0015)."""

from __future__ import annotations

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.permissions import IsTenantOperatorKey
from api.serializers import StrictSerializer
from api.v1.common import principal_of
from core.text import iso
from memory.models import Erasure
from memory.services.erasure import erasure_get_for_tenant, erasure_request
from memory.services.export import user_export


class ErasureOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    status = serializers.CharField(help_text="pending, running, done or failed")
    counts = serializers.DictField(help_text="rows deleted per table (app.Model → count)")
    requested_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    error = serializers.CharField()

    class Meta:
        ref_name = "Erasure"


def _erasure_body(erasure: Erasure) -> dict[str, object]:
    return {
        "id": str(erasure.pk),
        "status": erasure.status,
        "counts": erasure.counts,
        "requested_at": iso(erasure.requested_at),
        "started_at": iso(erasure.started_at),
        "finished_at": iso(erasure.finished_at),
        "error": erasure.error,
    }


class UserExportApi(APIView):
    permission_classes = [IsTenantOperatorKey]

    class QuerySerializer(StrictSerializer):
        embeddings = serializers.BooleanField(required=False, default=False)

        class Meta:
            ref_name = "ExportQuery"

    @extend_schema(
        parameters=[QuerySerializer],
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT, description="docs/gdpr.md")},
        tags=["gdpr"],
        description="Everything held about this end user, as one streamed JSON document "
        "(`format_version` 1): sessions, turns, every fact version, memory units (`embeddings="
        "true` adds their vectors), hot documents, extraction runs, audit events.",
    )
    def get(self, request: Request, user: str) -> StreamingHttpResponse:
        serializer = self.QuerySerializer(data=request.query_params.dict())
        serializer.is_valid(raise_exception=True)
        principal = principal_of(request)
        export = user_export(
            tenant_id=principal.tenant_id,
            external_id=user,
            actor=principal.actor,
            via="api",
            embeddings=serializer.validated_data["embeddings"],
        )
        response = StreamingHttpResponse(export.chunks, content_type="application/json")
        response["Content-Disposition"] = f'attachment; filename="export-{export.end_user_id}.json"'
        return response


class UserEraseApi(APIView):
    permission_classes = [IsTenantOperatorKey]

    @extend_schema(
        request=None,
        responses={202: ErasureOutputSerializer, 200: ErasureOutputSerializer},
        tags=["gdpr"],
        description="Erase everything held about this end user, in every table and in Redis, "
        "as a background job (202 with its id). The external id is free at once: a new user "
        "with it starts empty. Asking again returns the same job (200).",
    )
    def delete(self, request: Request, user: str) -> Response:
        principal = principal_of(request)
        erasure, created = erasure_request(
            tenant_id=principal.tenant_id, external_id=user, actor=principal.actor
        )
        return Response(
            _erasure_body(erasure),
            status=status.HTTP_202_ACCEPTED if created else status.HTTP_200_OK,
        )


class ErasureDetailApi(APIView):
    # An erasure is about a person of the whole tenant: like erase itself, an operator key not
    # scoped to one agent (a scoped key would read jobs of users erased under other agents).
    permission_classes = [IsTenantOperatorKey]

    @extend_schema(responses=ErasureOutputSerializer, tags=["gdpr"])
    def get(self, request: Request, erasure_id: str) -> Response:
        erasure = erasure_get_for_tenant(
            tenant_id=principal_of(request).tenant_id, erasure_id=erasure_id
        )
        return Response(_erasure_body(erasure))

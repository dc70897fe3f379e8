"""Memory search: the one memory call an agent makes on demand (DESIGN §7)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.serializers import StrictCharField, StrictIntegerField, StrictSerializer
from api.v1.common import agent_for, principal_of
from memory.models import EndUser
from memory.selectors.sessions import agent_user_get
from memory.services.context import memory_search_for_user
from schemas.models import Agent
from tenants.principal import ApiPrincipal


class HitSerializer(serializers.Serializer):
    text = serializers.CharField()
    score = serializers.FloatField()
    confidence = serializers.ChoiceField(choices=["high", "medium", "low"])
    source = serializers.ChoiceField(choices=["entity", "acu", "turn"])  # type: ignore[assignment]
    occurred_at = serializers.DateTimeField(allow_null=True)
    session = serializers.UUIDField(allow_null=True)
    turns = serializers.ListField(child=serializers.DictField())
    stale = serializers.BooleanField()
    note = serializers.CharField(required=False)
    explain = serializers.DictField(required=False)

    class Meta:
        ref_name = "SearchHit"


class MemorySearchApi(APIView):
    reads_only = True  # a POST that writes nothing: viewer keys may call it

    class InputSerializer(StrictSerializer):
        agent = StrictCharField(max_length=63, required=False)
        user = StrictCharField(max_length=200, trim_whitespace=False)
        query = StrictCharField(max_length=2000)
        k = StrictIntegerField(required=False, default=10, min_value=1, max_value=50)
        session = serializers.UUIDField(required=False, allow_null=True)
        explain = serializers.BooleanField(required=False, default=False)

        class Meta:
            ref_name = "MemorySearch"

    @extend_schema(
        request=InputSerializer,
        responses=inline_serializer(
            "MemorySearchResult",
            {
                "results": HitSerializer(many=True),
                "confidence": serializers.ChoiceField(choices=["high", "medium", "low"]),
                "fallback": serializers.BooleanField(),
                "timings": serializers.DictField(),
            },
        ),
        tags=["call path"],
        description="Ranked memory for one user of one agent: current facts, memory units "
        "(semantic + keyword, fused with a recency prior) and, when those are weak, the raw turn "
        "log (always ranked last, confidence low). `explain` adds each leg's rank and score.",
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        body, status = memory_search_answer(principal_of(request), serializer.validated_data)
        return Response(body, status=status)


def memory_search_answer(
    principal: ApiPrincipal, data: dict[str, Any]
) -> tuple[dict[str, Any], int]:
    """The search's answer to validated input: the view's, and the call path's lean lane's."""
    agent, end_user = _agent_and_user(principal, data.get("agent"), data["user"])
    result = memory_search_for_user(
        agent=agent,
        end_user=end_user,
        user_external_id=data["user"],
        query=data["query"],
        k=data["k"],
        session_id=data.get("session"),
    )
    body = {
        "results": [hit.body(data["explain"]) for hit in result.hits],
        "confidence": result.confidence,
        "fallback": result.fallback,
        "timings": result.timings,
    }
    return body, 200


def _agent_and_user(
    principal: ApiPrincipal, slug: str | None, user: str
) -> tuple[Agent, EndUser | None]:
    """The agent as ``agent_for`` finds it and, by name, the user with it: one statement."""
    if not slug:
        return agent_for(principal, slug), None
    agent, end_user, _ = agent_user_get(tenant_id=principal.tenant_id, agent_slug=slug,
                                        agent_scope=principal.agent_id, user_external_id=user)  # fmt: skip
    return agent, end_user

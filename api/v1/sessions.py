"""The call path: open a session with its context block, append turns, pack context."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.serializers import StrictCharField, StrictIntegerField, StrictSerializer
from api.v1.common import agent_of, principal_of
from core.text import iso
from extraction.services import extraction_schedule_if_due
from memory.models import Role, Turn
from memory.rendering import context_block_render
from memory.search import memory_search
from memory.selectors import (
    context_pack,
    hot_document_cached,
    hot_document_current,
    session_get_for_tenant,
)
from memory.services import (
    AppendResult,
    TurnIn,
    end_user_get_or_create,
    hot_document_load,
    metadata_validate,
    session_open,
    turn_append,
)
from memory.tokens import TOKENIZER

MAX_BATCH = 500
MEMORY_TOOL = {
    "type": "function",
    "function": {
        "name": "search_memory",
        "description": (
            "Search long-term memory about this user: earlier conversations and facts not shown "
            "in the context. Call it only when the user refers to something from the past, or "
            "when the context you were given does not contain the answer. Do not call it for "
            "anything already in the context."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "What to look for: the user's words plus any names, places, dates or numbers.",
                },
                "k": {"type": "integer", "minimum": 1, "maximum": 20, "default": 5},
            },
            "required": ["query"],
        },
    },
}


class FactSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    key = serializers.CharField()
    category = serializers.CharField()
    value = serializers.JSONField()
    value_text = serializers.CharField()
    source = serializers.CharField()  # type: ignore[assignment]  # DRF pops declared fields
    valid_from = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True)
    pinned = serializers.BooleanField()

    class Meta:
        ref_name = "Fact"


class RecentTurnSerializer(serializers.Serializer):
    session = serializers.UUIDField()
    seq = serializers.IntegerField()
    role = serializers.CharField()
    text = serializers.CharField()
    occurred_at = serializers.DateTimeField()

    class Meta:
        ref_name = "RecentTurn"


class SessionOpenApi(APIView):
    class InputSerializer(StrictSerializer):
        agent = serializers.CharField(max_length=63)
        user = serializers.CharField(max_length=200, trim_whitespace=False)
        session = serializers.CharField(
            max_length=200, required=False, allow_null=True, trim_whitespace=False
        )
        metadata = serializers.DictField(required=False, default=dict)

        class Meta:
            ref_name = "SessionOpen"

    @extend_schema(
        request=InputSerializer,
        responses={
            201: inline_serializer(
                "SessionOpened",
                {
                    "session_id": serializers.UUIDField(),
                    "created": serializers.BooleanField(),
                    "agent": serializers.CharField(),
                    "user": serializers.CharField(),
                    "hot_version": serializers.IntegerField(),
                    "context_block": serializers.CharField(),
                    "profile": serializers.DictField(child=FactSerializer()),
                    "facts": FactSerializer(many=True),
                    "possibilities": FactSerializer(many=True),
                    "pinned": FactSerializer(many=True),
                    "recent_turns": RecentTurnSerializer(many=True),
                    "summary": serializers.CharField(),
                    "memory_tool": serializers.DictField(),
                },
            )
        },
        tags=["call path"],
        description="Open a session (201) or resume the one with this `session` id (200). "
        "One read of the hot document; no embedding.",
    )
    def post(self, request: Request) -> Response:
        principal = principal_of(request)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        metadata_validate(data["metadata"])  # before anything is created: bad input changes nothing
        document = hot_document_cached(
            tenant_id=principal.tenant_id, agent_slug=data["agent"], user_external_id=data["user"]
        )
        from_cache = document is not None and (
            principal.agent_id is None or document["agent_id"] == principal.agent_id
        )
        if document is None or not from_cache:
            document = self._load(request, data)
        opened = session_open(
            tenant_id=principal.tenant_id,
            agent_id=document["agent_id"],
            end_user_id=document["end_user_id"],
            external_id=data.get("session"),
            metadata=data["metadata"],
        )
        if not hot_document_current(
            document, version=opened.hot_version, stable_version=opened.hot_stable_version
        ):
            # Redis held an older copy (a write to it failed), read here or by the load above
            # (Redis may come back between the two reads): PostgreSQL's, re-cached.
            current = (opened.hot_version, opened.hot_stable_version)
            document = self._load(request, data, current=current)
        body = {
            "session_id": str(opened.id),
            "created": opened.created,
            "agent": data["agent"],
            "user": data["user"],
            "hot_version": document["version"],
            "context_block": context_block_render(
                document["stable_block"], document["recent_turns"]
            ),
            "profile": {fact["key"]: fact for fact in document["profile"]},
            "facts": document["facts"],
            "possibilities": document["possibilities"],
            "pinned": document["pinned"],
            "recent_turns": document["recent_turns"],
            "summary": document["summary"],
            "memory_tool": MEMORY_TOOL,
        }
        return Response(
            body, status=status.HTTP_201_CREATED if opened.created else status.HTTP_200_OK
        )

    @staticmethod
    def _load(
        request: Request,
        data: dict[str, Any],
        current: tuple[int | None, int | None] | None = None,
    ) -> dict[str, Any]:
        agent = agent_of(request, data["agent"])
        end_user = end_user_get_or_create(
            tenant_id=principal_of(request).tenant_id, external_id=data["user"]
        )
        return hot_document_load(agent=agent, end_user=end_user, current=current)


class TurnInputSerializer(StrictSerializer):
    role = serializers.ChoiceField(choices=Role.choices)
    text = StrictCharField(trim_whitespace=False, allow_blank=True)
    seq = StrictIntegerField(required=False, allow_null=True, min_value=1, max_value=2**62)
    occurred_at = serializers.DateTimeField(required=False, allow_null=True)

    class Meta:
        ref_name = "TurnAppend"


class TurnOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    session_id = serializers.UUIDField()
    seq = serializers.IntegerField()
    role = serializers.CharField()
    text = serializers.CharField()
    tokens = serializers.IntegerField()
    occurred_at = serializers.DateTimeField()
    recorded_at = serializers.DateTimeField()
    created = serializers.BooleanField()

    class Meta:
        ref_name = "Turn"


def _turn_body(turn: Turn, created: bool) -> dict[str, Any]:
    return {
        "id": turn.id,
        "session_id": str(turn.session_id),
        "seq": turn.seq,
        "role": turn.role,
        "text": turn.text,
        "tokens": turn.tokens,
        "occurred_at": iso(turn.occurred_at),
        "recorded_at": iso(turn.recorded_at),
        "created": created,
    }


def _append(request: Request, session_id: str, turns: list[dict[str, Any]]) -> AppendResult:
    principal = principal_of(request)
    result = turn_append(
        tenant_id=principal.tenant_id,
        session_id=session_id,  # type: ignore[arg-type]  # the URL converter gave a UUID
        turns=[TurnIn(t["role"], t["text"], t.get("seq"), t.get("occurred_at")) for t in turns],
        agent_scope=principal.agent_id,
    )
    extraction_schedule_if_due(
        tenant_id=principal.tenant_id,
        agent_id=result.agent_id,
        end_user_id=result.end_user_id,
        pending_tokens=result.pending_tokens,
        threshold=result.extraction_threshold,
    )
    return result


class TurnAppendApi(APIView):
    @extend_schema(
        request=TurnInputSerializer,
        responses={201: TurnOutputSerializer, 200: TurnOutputSerializer},
        tags=["call path"],
        description="Append a turn, durably, then acknowledge (201). The same `seq` again with "
        "the same role and text returns the stored turn (200); with other content, 409. Without "
        f"`seq` the server assigns the next one. Tokens are counted with {TOKENIZER}.",
    )
    def post(self, request: Request, session_id: str) -> Response:
        serializer = TurnInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        result = _append(request, session_id, [serializer.validated_data])
        appended = result.turns[0]
        body = _turn_body(appended.turn, appended.created)
        body["hot_version"] = result.hot_version
        return Response(
            body, status=status.HTTP_201_CREATED if appended.created else status.HTTP_200_OK
        )


class TurnBatchApi(APIView):
    class InputSerializer(StrictSerializer):
        turns = TurnInputSerializer(many=True, allow_empty=False, max_length=MAX_BATCH)  # type: ignore[call-arg]

        class Meta:
            ref_name = "TurnBatch"

    @extend_schema(
        request=InputSerializer,
        responses={
            201: inline_serializer(
                "TurnBatchResult",
                {
                    "turns": TurnOutputSerializer(many=True),
                    "created": serializers.IntegerField(),
                    "existing": serializers.IntegerField(),
                },
            )
        },
        tags=["call path"],
        description=f"Append up to {MAX_BATCH} turns in order, all or nothing, same rules as one.",
    )
    def post(self, request: Request, session_id: str) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        result = _append(request, session_id, serializer.validated_data["turns"])
        created = sum(1 for t in result.turns if t.created)
        body = {
            "turns": [_turn_body(t.turn, t.created) for t in result.turns],
            "created": created,
            "existing": len(result.turns) - created,
            "hot_version": result.hot_version,
        }
        return Response(body, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class ContextPackApi(APIView):
    class InputSerializer(StrictSerializer):
        session = serializers.UUIDField()
        query = StrictCharField(required=False, allow_null=True, max_length=2000)
        budget_tokens = StrictIntegerField(required=False, min_value=50, max_value=32_000)

        class Meta:
            ref_name = "ContextPack"

    @extend_schema(
        request=InputSerializer,
        responses=inline_serializer(
            "PackedContext",
            {
                "context": serializers.CharField(),
                "tokens": serializers.IntegerField(),
                "stable_tokens": serializers.IntegerField(),
                "budget_tokens": serializers.IntegerField(),
                "included": serializers.DictField(child=serializers.IntegerField()),
                "dropped": serializers.DictField(child=serializers.IntegerField()),
                "hot_version": serializers.IntegerField(),
                "tokenizer": serializers.CharField(),
            },
        ),
        tags=["call path"],
        description="Pack pinned facts, profile, current facts, summary (the stable prefix, "
        "byte-identical while memory is unchanged) and recent turns into a token budget.",
    )
    def post(self, request: Request) -> Response:
        principal = principal_of(request)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        session = session_get_for_tenant(
            tenant_id=principal.tenant_id,
            session_id=data["session"],
            agent_scope=principal.agent_id,
        )
        document = hot_document_load(
            agent=session.agent,
            end_user=session.end_user,
            current=(session.hot_version, session.hot_stable_version),  # type: ignore[attr-defined]
        )
        hits: list[str] = []
        if data.get("query"):
            # Search hits join the volatile part, after the stable prefix, within the budget.
            found = memory_search(
                agent=session.agent, end_user=session.end_user, query=data["query"], k=5
            )
            hits = [hit.text for hit in found.hits if hit.source != "entity"]
        packed = context_pack(
            document=document,
            budget_tokens=data.get("budget_tokens") or session.agent.context_budget_tokens,
            hits=hits,
        )
        return Response(
            {
                "context": packed.text,
                "tokens": packed.tokens,
                "stable_tokens": packed.stable_tokens,
                "budget_tokens": packed.budget_tokens,
                "included": packed.included,
                "dropped": packed.dropped,
                "hot_version": document["version"],
                "tokenizer": TOKENIZER,
            }
        )

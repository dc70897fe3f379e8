"""The call path: open a session with its context block, append turns, pack context."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.schema import conflict
from api.serializers import (
    StrictCharField,
    StrictIntegerField,
    StrictSerializer,
    occurred_at_field,
)
from api.v1.common import principal_of
from extraction.services import extraction_schedule_if_due
from memory.models import Role
from memory.presenters import turn_present
from memory.services.context import context_pack_for_session
from memory.services.sessions import session_start
from memory.services.turns import AppendResult, TurnAppended, TurnIn, turn_append
from memory.tokens import TOKENIZER
from tenants.principal import ApiPrincipal

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


class ChatMessageSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=["user", "assistant"])
    content = serializers.CharField()

    class Meta:
        ref_name = "ChatMessage"


class SessionOpenedSerializer(serializers.Serializer):
    session_id = serializers.UUIDField()
    created = serializers.BooleanField(help_text="false: an existing session was resumed (200)")
    next_seq = serializers.IntegerField(
        help_text="the seq the session's next turn takes: number appends from it (exactly-once)"
    )
    agent = serializers.CharField()
    user = serializers.CharField()
    hot_version = serializers.IntegerField()
    system_block = serializers.CharField(
        help_text="memory as system text, without any turn: put this in the system prompt"
    )
    recent_messages = ChatMessageSerializer(
        many=True, help_text="the recent user and assistant turns as chat messages, oldest first"
    )
    context_block = serializers.CharField(
        help_text="system_block and the recent turns (quoted) in one text; kept for older callers"
    )
    profile = serializers.DictField(child=FactSerializer())
    facts = FactSerializer(many=True)
    possibilities = FactSerializer(many=True)
    pinned = FactSerializer(many=True)
    recent_turns = RecentTurnSerializer(many=True)
    summary = serializers.CharField()
    memory_tool = serializers.DictField()

    class Meta:
        ref_name = "SessionOpened"


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
            201: SessionOpenedSerializer,
            200: SessionOpenedSerializer,
            409: conflict("session_user_mismatch"),
        },
        tags=["call path"],
        description="Open a session (201) or resume the one with this `session` id (200). "
        "One read of the hot document; no embedding.",
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(*session_open_answer(principal_of(request), serializer.validated_data))


class TurnInputSerializer(StrictSerializer):
    role = serializers.ChoiceField(choices=Role.choices)
    text = StrictCharField(trim_whitespace=False, allow_blank=True)
    seq = StrictIntegerField(required=False, allow_null=True, min_value=1, max_value=2**62)
    occurred_at = occurred_at_field(required=False, allow_null=True)

    class Meta:
        ref_name = "TurnAppend"


class StoredTurnSerializer(serializers.Serializer):
    """A turn of the log (``turn_present(full=True)``): the history endpoint lists these."""

    id = serializers.IntegerField()
    session_id = serializers.UUIDField()
    seq = serializers.IntegerField()
    role = serializers.CharField()
    text = serializers.CharField()
    tokens = serializers.IntegerField()
    occurred_at = serializers.DateTimeField()
    recorded_at = serializers.DateTimeField()

    class Meta:
        ref_name = "HistoryTurn"


class TurnOutputSerializer(StoredTurnSerializer):
    created = serializers.BooleanField()

    class Meta:
        ref_name = "Turn"


class TurnAppendedSerializer(TurnOutputSerializer):
    hot_version = serializers.IntegerField(
        allow_null=True, help_text="the hot document's version after the append; null for a repeat"
    )

    class Meta:
        ref_name = "TurnAppended"


def _turn_body(appended: TurnAppended) -> dict[str, Any]:
    return {**turn_present(appended.turn, full=True), "created": appended.created}


def _append(principal: ApiPrincipal, session_id: str, turns: list[dict[str, Any]]) -> AppendResult:
    """Append, then schedule extraction if it is due: composed here, above both apps (memory
    does not import extraction)."""
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
        responses={
            201: TurnAppendedSerializer,
            200: TurnAppendedSerializer,
            409: conflict("turn_conflict"),
        },
        tags=["call path"],
        description="Append a turn, durably, then acknowledge (201). The same `seq` again with "
        "the same role and text returns the stored turn (200); with other content, 409. Without "
        f"`seq` the server assigns the next one. Tokens are counted with {TOKENIZER}.",
    )
    def post(self, request: Request, session_id: str) -> Response:
        serializer = TurnInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        principal = principal_of(request)
        return Response(*turn_append_answer(principal, session_id, serializer.validated_data))


class TurnBatchResultSerializer(serializers.Serializer):
    turns = TurnOutputSerializer(many=True)
    created = serializers.IntegerField(help_text="turns stored by this call (0: all repeats, 200)")
    existing = serializers.IntegerField(help_text="turns already stored with the same content")
    hot_version = serializers.IntegerField(allow_null=True, help_text="null when none was new")

    class Meta:
        ref_name = "TurnBatchResult"


class TurnBatchApi(APIView):
    class InputSerializer(StrictSerializer):
        turns = TurnInputSerializer(many=True, allow_empty=False, max_length=MAX_BATCH)  # type: ignore[call-arg]

        class Meta:
            ref_name = "TurnBatch"

    @extend_schema(
        request=InputSerializer,
        responses={
            201: TurnBatchResultSerializer,
            200: TurnBatchResultSerializer,
            409: conflict("turn_conflict"),
        },
        tags=["call path"],
        description=f"Append up to {MAX_BATCH} turns in order, all or nothing, same rules as one: "
        "201 when at least one was new, 200 when every one was already stored.",
    )
    def post(self, request: Request, session_id: str) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        result = _append(principal_of(request), session_id, serializer.validated_data["turns"])
        created = sum(1 for t in result.turns if t.created)
        body = {
            "turns": [_turn_body(t) for t in result.turns],
            "created": created,
            "existing": len(result.turns) - created,
            "hot_version": result.hot_version,
        }
        return Response(body, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class ContextPackApi(APIView):
    reads_only = True  # a POST that writes nothing: viewer keys may call it

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
                "retrieved": inline_serializer(
                    "ContextRetrieved",
                    {
                        "text": serializers.CharField(),
                        # Plain strings: a second "source" enum would collide with the facts' one.
                        "source": serializers.CharField(help_text="entity, acu or turn"),
                        "confidence": serializers.CharField(help_text="high, medium or low"),
                        "reference": serializers.BooleanField(),
                        "session": serializers.UUIDField(allow_null=True),
                        "turns": serializers.ListField(child=serializers.DictField()),
                    },
                    many=True,
                ),
            },
        ),
        tags=["call path"],
        description="Pack pinned facts, profile, current facts, summary (the stable prefix, "
        "byte-identical while memory is unchanged) and recent turns into a token budget. With a "
        '`query`, what it refers back to in the session ("the other account", "the previous '
        'one", "same as last time") and the top search hits join the volatile part; '
        "`retrieved` lists them as packed, in order, with the turns each came from.",
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(*context_pack_answer(principal_of(request), serializer.validated_data))


# The three calls' answers from validated input: the DRF views above, and the lean
# lane (api.callpath, ADR 0030) that serves the same calls without the framework, both use them.
Answer = tuple[dict[str, Any], int]


def session_open_answer(principal: ApiPrincipal, data: dict[str, Any]) -> Answer:
    started = session_start(
        tenant_id=principal.tenant_id,
        agent_scope=principal.agent_id,
        agent_slug=data["agent"],
        user_external_id=data["user"],
        external_id=data.get("session"),
        metadata=data["metadata"],
    )
    return {**started.body, "memory_tool": MEMORY_TOOL}, 201 if started.created else 200


def turn_append_answer(principal: ApiPrincipal, session_id: str, data: dict[str, Any]) -> Answer:
    result = _append(principal, session_id, [data])
    appended = result.turns[0]
    body = {**_turn_body(appended), "hot_version": result.hot_version}
    return body, 201 if appended.created else 200


def context_pack_answer(principal: ApiPrincipal, data: dict[str, Any]) -> Answer:
    result = context_pack_for_session(
        tenant_id=principal.tenant_id,
        session_id=data["session"],
        agent_scope=principal.agent_id,
        query=data.get("query"),
        budget_tokens=data.get("budget_tokens"),
    )
    packed = result.packed
    body = {
        "context": packed.text,
        "tokens": packed.tokens,
        "stable_tokens": packed.stable_tokens,
        "budget_tokens": packed.budget_tokens,
        "included": packed.included,
        "dropped": packed.dropped,
        "hot_version": result.hot_version,
        "tokenizer": TOKENIZER,
        "retrieved": [
            {
                "text": hit.text,
                "source": hit.source,
                "confidence": hit.confidence,
                "reference": "reference" in hit.legs,
                "session": hit.session,
                "turns": hit.turns,
            }
            for hit in result.retrieved
        ],
    }
    return body, 200

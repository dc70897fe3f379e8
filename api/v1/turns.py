"""A session's history, as a chat framework's adapter needs it: read it a page at a time, undo
the last turn, clear the session from the hot tier. Appending is ``api.v1.sessions``."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.schema import conflict
from api.serializers import StrictSerializer
from api.v1.common import principal_of
from api.v1.sessions import StoredTurnSerializer, TurnAppendApi
from memory.models import Session
from memory.presenters import turn_present
from memory.selectors import session_get_for_tenant
from memory.selectors.turns import MAX_PAGE, turn_list
from memory.services.history import turn_clear_hot, turn_remove_last


def _session(request: Request, session_id: str) -> Session:
    principal = principal_of(request)
    return session_get_for_tenant(
        tenant_id=principal.tenant_id, session_id=session_id, agent_scope=principal.agent_id
    )


class SessionTurnsApi(TurnAppendApi):
    """GET lists the session's turns; POST appends one (``TurnAppendApi``)."""

    class QuerySerializer(StrictSerializer):
        limit = serializers.IntegerField(
            required=False, default=50, min_value=1, max_value=MAX_PAGE
        )
        before_seq = serializers.IntegerField(required=False, min_value=1, max_value=2**62)

        class Meta:
            ref_name = "TurnListQuery"

    @extend_schema(
        parameters=[QuerySerializer],
        responses=inline_serializer(
            "TurnPage",
            {
                "turns": StoredTurnSerializer(many=True),
                "next_before_seq": serializers.IntegerField(allow_null=True),
            },
        ),
        tags=["call path"],
        description="The session's turns, **newest first** (highest `seq` first), `limit` "
        f"(default 50, at most {MAX_PAGE}) at a time; for the next, older page pass "
        "`before_seq=next_before_seq` (null: no older turns). The whole log, turns the hot tier "
        "has let go of included.",
    )
    def get(self, request: Request, session_id: str) -> Response:
        serializer = self.QuerySerializer(data=request.query_params.dict())
        serializer.is_valid(raise_exception=True)
        page = turn_list(session=_session(request, session_id), **serializer.validated_data)
        return Response(
            {
                "turns": [turn_present(t, full=True) for t in page.turns],
                "next_before_seq": page.next_before_seq,
            }
        )


class TurnLastApi(APIView):
    @extend_schema(
        request=None,
        responses={
            200: inline_serializer(
                "TurnRemoved",
                {
                    "seq": serializers.IntegerField(),
                    "role": serializers.CharField(),
                    "hot_version": serializers.IntegerField(),
                },
            ),
            409: conflict("turn_extracted"),
        },
        tags=["call path"],
        description="Undo the last turn appended (highest `seq`): deleted from the log and the "
        "hot tail, audited (`turn.remove`, without the text). 409 `turn_extracted` once the "
        "write lane has read it (facts may come from it: forget those instead); 404 "
        "`turn_not_found` when the session has none. Its seq is not given out again.",
    )
    def delete(self, request: Request, session_id: str) -> Response:
        removed = turn_remove_last(
            session=_session(request, session_id), actor=principal_of(request).actor
        )
        return Response(
            {"seq": removed.seq, "role": removed.role, "hot_version": removed.hot_version}
        )


class TurnClearApi(APIView):
    @extend_schema(
        request=None,
        responses=inline_serializer(
            "TurnsCleared",
            {"cleared": serializers.IntegerField(), "hot_version": serializers.IntegerField()},
        ),
        tags=["call path"],
        description="Clear the session's turns from the hot tier: they leave the recent "
        "conversation of the next session start and context. The log keeps them (history, "
        "search, export, extraction) until the user is erased. Audited (`turn.clear_hot`).",
    )
    def post(self, request: Request, session_id: str) -> Response:
        cleared = turn_clear_hot(
            session=_session(request, session_id), actor=principal_of(request).actor
        )
        return Response({"cleared": cleared.cleared, "hot_version": cleared.hot_version})

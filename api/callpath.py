"""The lean lane of the call path: session start, turn append, context packing and memory search
served by a middleware, without URL resolution, DRF's dispatch or the rest of the middleware
stack (ADR 0030).

It answers only what it can answer exactly as the full stack would: a POST to one of the four
routes with a JSON body that the endpoint's own serializer fields accept, from an API key that
authenticates, may make the call and is within its rate. It uses the same authentication,
permission and throttle classes, the same field instances, the same answer functions
(``api.v1.sessions``, ``api.v1.search``) and the same exception handler as the DRF views.
Anything else (a bad key, bad input, an unusual header) goes on, untouched and before anything
is written, to the full stack, whose answer is the error contract. The middlewares before this
one (request id, metrics, the request log, Server-Timing, body size, security headers, CSP) run
for both lanes.

``API_LEAN_CALL_PATH=false`` turns the lane off (every request takes the full stack).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.core.handlers.exception import response_for_exception
from django.http import HttpRequest, HttpResponse
from rest_framework import exceptions
from rest_framework.fields import SkipField, empty
from rest_framework.renderers import JSONRenderer
from rest_framework.views import APIView

from api.exceptions import exception_handler
from api.v1 import search, sessions
from api.v1.turns import SessionTurnsApi
from tenants.principal import ApiPrincipal

Answer = Callable[[ApiPrincipal, dict[str, Any], dict[str, str]], sessions.Answer]


class _Route:
    """One call of the lane: its path, the DRF view that serves it otherwise (whose
    authentication, permission and throttle classes apply here too), its input fields."""

    def __init__(
        self,
        name: str,
        pattern: str,
        view: type[APIView],
        serializer: Any,
        answer: Answer,
    ) -> None:
        self.name = name  # the URL name: what the request metrics and log line call it
        self.pattern = re.compile(pattern)
        self.view = view
        # Bound once, used by every request: DRF fields keep no per-call state in validation.
        self.fields = serializer().fields
        self.answer = answer
        instance = view()
        instance.setup(HttpRequest())  # as dispatch would: HEAD where there is a GET
        self.allow = ", ".join(instance.allowed_methods)  # DRF's Allow header


_UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"  # Django's <uuid:…>
ROUTES = [
    _Route(
        "session-open",
        r"/v1/sessions",
        sessions.SessionOpenApi,
        sessions.SessionOpenApi.InputSerializer,
        lambda principal, data, _: sessions.session_open_answer(principal, data),
    ),
    _Route(
        "turn-append",
        rf"/v1/sessions/(?P<session_id>{_UUID})/turns",
        SessionTurnsApi,
        sessions.TurnInputSerializer,
        lambda principal, data, url: sessions.turn_append_answer(
            principal, url["session_id"], data
        ),
    ),
    _Route(
        "context-pack",
        r"/v1/context",
        sessions.ContextPackApi,
        sessions.ContextPackApi.InputSerializer,
        lambda principal, data, _: sessions.context_pack_answer(principal, data),
    ),
    _Route(
        "memory-search",
        r"/v1/memory/search",
        search.MemorySearchApi,
        search.MemorySearchApi.InputSerializer,
        lambda principal, data, _: search.memory_search_answer(principal, data),
    ),
]
# What DRF's content negotiation answers with plain JSON: no Accept, or one JSON satisfies.
_PLAIN_ACCEPT = frozenset({"", "*/*", "application/json"})
_RENDERER = JSONRenderer()


class _DrfRequest:
    """What DRF's authentication, permission and throttle classes read of a request, over the
    Django request (as ``rest_framework.request.Request`` does, without its parsing machinery)."""

    def __init__(self, request: HttpRequest) -> None:
        self._request = request
        self.method = request.method
        self.user: ApiPrincipal | None = None
        self.auth: ApiPrincipal | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._request, name)


def _strict_constant(value: str) -> None:
    raise ValueError(f"{value} is not valid JSON")  # as DRF's parser: no NaN or Infinity


def _body(request: HttpRequest) -> Any:
    charset = request.content_params.get("charset", "utf-8") if request.content_params else "utf-8"
    if request.content_type != "application/json" or charset.lower() != "utf-8":
        return None
    try:
        return json.loads(request.body.decode(), parse_constant=_strict_constant)
    except ValueError:  # not UTF-8, not JSON: the full stack says which
        return None


def _validated(route: _Route, data: Any) -> dict[str, Any] | None:
    """What the endpoint's serializer would validate ``data`` to, or None for any error (the
    full stack then words it). As ``StrictSerializer``: a JSON object of known fields only."""
    if not isinstance(data, dict) or not data.keys() <= route.fields.keys():
        return None
    validated = {}
    for name, field in route.fields.items():
        try:
            validated[field.source] = field.run_validation(data.get(name, empty))
        except SkipField:
            continue
        except exceptions.ValidationError:
            return None
    return validated


def _principal(route: _Route, request: _DrfRequest) -> ApiPrincipal | None:
    """The key's principal when the view's own classes would let the call through, else None
    (DRF's dispatch then raises and words the refusal)."""
    view = route.view
    try:
        for authentication in view.authentication_classes:
            found = authentication().authenticate(request)  # type: ignore[arg-type]
            if found is not None:
                request.user, request.auth = found
                break
        else:
            return None
        if not all(
            permission().has_permission(request, view)  # type: ignore[arg-type]
            for permission in view.permission_classes
        ):
            return None
        if not all(
            throttle().allow_request(request, view)  # type: ignore[arg-type]
            for throttle in view.throttle_classes
        ):
            return None
    except Exception:  # a refusal, or Redis / PostgreSQL down: DRF answers it
        return None
    return request.auth if isinstance(request.auth, ApiPrincipal) else None


def _response(route: _Route, body: dict[str, Any], status: int, **headers: str) -> HttpResponse:
    response = HttpResponse(_RENDERER.render(body), content_type="application/json", status=status)
    response["Allow"] = route.allow
    for name, value in headers.items():
        response[name] = value
    return _finished(response)


def _finished(response: HttpResponse) -> HttpResponse:
    # What CommonMiddleware and XFrameOptionsMiddleware, after this one, would add.
    response["Content-Length"] = str(len(response.content))
    response.headers.setdefault("X-Frame-Options", settings.X_FRAME_OPTIONS.upper())
    return response


class CallPathMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.enabled = settings.API_LEAN_CALL_PATH

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not self.enabled or request.method != "POST":
            return self.get_response(request)
        for route in ROUTES:
            match = route.pattern.fullmatch(request.path_info)
            if match is not None:
                break
        else:
            return self.get_response(request)
        try:
            request.get_host()
        except DisallowedHost:
            return self.get_response(request)  # CommonMiddleware answers it, as it always has
        if request.META.get("HTTP_ACCEPT", "") not in _PLAIN_ACCEPT:
            return self.get_response(request)
        data = _validated(route, _body(request))
        if data is None:
            return self.get_response(request)
        drf_request = _DrfRequest(request)
        principal = _principal(route, drf_request)
        if principal is None:
            return self.get_response(request)
        request.route_name = route.name  # type: ignore[attr-defined]  # for the request log
        request.user = request.auth = principal  # type: ignore[attr-defined,assignment]
        try:
            body, status = route.answer(principal, data, match.groupdict())
        except Exception as exc:
            # The views' exception handler: a missing session, a conflicting turn, a database
            # or Redis outage get the same code, status and headers here; a bug stays a 500.
            handled = exception_handler(exc, {})
            if handled is None:  # a bug: logged and answered 500 as Django would, sized
                return _finished(response_for_exception(request, exc))
            extra = {k: v for k, v in handled.items() if k.lower() != "content-type"}
            return _response(route, handled.data, handled.status_code, **extra)
        return _response(route, body, status)

"""``Authorization: Bearer hv_<prefix>_<secret>``.

The principal behind a prefix is cached in Redis, so a request on the hot path reads no table
for authentication; a revoke deletes the cache entry. Each process also keeps the principals it
read for ``API_KEY_LOCAL_CACHE_SECONDS`` (2 s), so a busy key costs no Redis round trip either
(ADR 0030, "the principal in the process"): a revoke drops the key at once in the process that
revokes it and within those seconds in every other. ``last_used_at`` is written at most once a
minute per key, not on every request.
"""

from __future__ import annotations

import contextlib
import hmac
import logging
import time

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone
from redis.exceptions import RedisError
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from tenants.models import ApiKey
from tenants.principal import ApiPrincipal, principal_local_get, principal_local_put
from tenants.rls import tenant_scope_enter, tenant_scope_exit
from tenants.selectors import api_principal_load
from tenants.services import api_key_cache_key, api_key_hash, api_key_parse

logger = logging.getLogger(__name__)

PRINCIPAL_CACHE_SECONDS = 300
UNKNOWN_CACHE_SECONDS = 30
LAST_USED_RESOLUTION_SECONDS = 60
_UNKNOWN = "unknown"
# Compared against when a prefix is unknown: a hash no secret has (not hex).
_NO_SUCH_KEY = "-" * 64


class ApiKeyFailed(exceptions.AuthenticationFailed):
    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail=detail, code=code)


def _principal_for(prefix: str) -> ApiPrincipal | None:
    seconds = settings.API_KEY_LOCAL_CACHE_SECONDS
    if seconds:
        held = principal_local_get(prefix, seconds)
        if held is not None:
            return held
    principal = _principal_read(prefix)
    if seconds and principal is not None:  # known keys only: guessed ones cannot fill it
        principal_local_put(principal)
    return principal


def _principal_read(prefix: str) -> ApiPrincipal | None:
    cache_key = api_key_cache_key(prefix)
    try:
        cached = cache.get(cache_key)
    except RedisError:
        logger.warning("Redis unavailable; authenticating hv_%s from PostgreSQL", prefix)
        tenant_scope_exit()  # keys of every tenant are looked up as the tables' owner
        return api_principal_load(prefix=prefix)
    if cached == _UNKNOWN:
        return None
    if cached is not None:
        return ApiPrincipal.from_cache(cached)
    tenant_scope_exit()  # keys of every tenant are looked up as the tables' owner
    principal = api_principal_load(prefix=prefix)
    with contextlib.suppress(RedisError):
        if principal is None:
            cache.set(cache_key, _UNKNOWN, UNKNOWN_CACHE_SECONDS)
        else:
            cache.set(cache_key, principal.to_cache(), PRINCIPAL_CACHE_SECONDS)
    return principal


_touched: dict[int, float] = {}  # key id → monotonic time this process last recorded a use


def _touch(principal: ApiPrincipal) -> None:
    # Most requests stop here: this process recorded a use of this key within the minute.
    now = time.monotonic()
    if now - _touched.get(principal.key_id, -1e9) < LAST_USED_RESOLUTION_SECONDS:
        return
    _touched[principal.key_id] = now
    try:
        due = cache.add(f"apikey-used:{principal.key_id}", 1, LAST_USED_RESOLUTION_SECONDS)
    except RedisError:
        return  # bookkeeping only: never fail or slow a request for it
    if due:
        ApiKey.objects.filter(pk=principal.key_id).update(last_used_at=timezone.now())


class ApiKeyAuthentication(BaseAuthentication):
    keyword = b"bearer"

    def authenticate(self, request: Request) -> tuple[ApiPrincipal, ApiPrincipal] | None:
        header = get_authorization_header(request).split()
        if not header:
            return None  # the permission class answers 401 missing_api_key
        if header[0].lower() != self.keyword or len(header) != 2:
            raise ApiKeyFailed("invalid_authorization_header", "Use 'Authorization: Bearer <key>'.")
        try:
            raw = header[1].decode("ascii")
        except UnicodeDecodeError:
            raise ApiKeyFailed("invalid_api_key", "The API key is not valid.") from None
        parsed = api_key_parse(raw)
        if parsed is None:
            raise ApiKeyFailed("invalid_api_key", "The API key is not valid.")
        prefix, secret = parsed
        principal = _principal_for(prefix)
        # The same work whether the prefix exists or not, and a constant-time comparison: how
        # long a refusal takes tells nothing about which part of a guessed key was right.
        expected = principal.secret_hash if principal is not None else _NO_SUCH_KEY
        matches = hmac.compare_digest(expected, api_key_hash(secret))
        if principal is None or not matches:
            raise ApiKeyFailed("invalid_api_key", "The API key is not valid.")
        if principal.revoked:
            raise ApiKeyFailed("revoked_api_key", "The API key has been revoked.")
        # From here on this request's queries see only its tenant's rows (ADR 0022).
        tenant_scope_enter(principal.tenant_id)
        _touch(principal)
        return principal, principal

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="handover"'

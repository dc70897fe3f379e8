"""The Redis copy of each hot document, written compare-and-set on its version.

A writer stores version N only if Redis holds nothing newer, and a reader that repopulates after
a miss does the same; so an older document can never overwrite a newer one, whatever the order in
which concurrent requests finish. Redis failures degrade to PostgreSQL, never to an error.
"""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

from django.core.cache import cache
from django_redis import get_redis_connection
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

TTL_SECONDS = 24 * 3600  # idle users fall out of Redis; PostgreSQL is the copy of record

_SET_IF_NEWER = """
local current = redis.call('GET', KEYS[1])
if current then
  local version = tonumber(string.match(current, '^(%d+):'))
  if version and version >= tonumber(ARGV[1]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. ARGV[2], 'EX', ARGV[3])
return 1
"""


def hot_cache_key(*, tenant_id: int, agent_slug: str, user_external_id: str) -> str:
    # The external id is hashed: no personal identifier appears in Redis key names.
    digest = hashlib.sha256(user_external_id.encode()).hexdigest()[:32]
    return f"hot:{tenant_id}:{agent_slug}:{digest}"


def _redis() -> Any:
    return get_redis_connection("default")


def hot_cache_get(key: str) -> dict[str, Any] | None:
    try:
        raw = _redis().get(cache.make_key(key))
    except RedisError:
        logger.warning("Redis unavailable; hot document read from PostgreSQL")
        return None
    if raw is None:
        return None
    _, _, body = raw.partition(b":")
    document: dict[str, Any] = json.loads(body)
    return document


def hot_cache_put(key: str, document: dict[str, Any]) -> bool:
    payload = json.dumps(document, separators=(",", ":"), ensure_ascii=False)
    try:
        return bool(
            _redis().eval(
                _SET_IF_NEWER, 1, cache.make_key(key), document["version"], payload, TTL_SECONDS
            )
        )
    except RedisError:
        logger.warning("Redis unavailable; hot document %s not cached", key)
        return False


def hot_cache_delete(key: str) -> None:
    try:
        _redis().delete(cache.make_key(key))
    except RedisError:
        logger.warning("Redis unavailable; hot document %s not evicted", key)

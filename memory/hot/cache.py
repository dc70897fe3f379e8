"""The Redis copy of each hot document, written compare-and-set on its version.

A document is two keys: ``<key>`` holds the stable part (facts, summary, the pre-rendered
block), which changes when memory changes; ``<key>:tail`` holds the recent turns and the
pending-token count, which change on every append. An append rewrites only the small tail; a
session start reads both in one MGET.

Every write stores version N only if Redis holds nothing newer under that key, and a reader
that repopulates after a miss does the same; so an older copy never overwrites a newer one,
whatever order concurrent requests finish in. Redis failures degrade to PostgreSQL, never to an
error.

A write that failed (Redis down, a timeout) leaves an older copy behind, and Redis may come back
with it (its append-only file). So a reader never trusts a copy by itself: it compares the
tail's version and the stable part's version with PostgreSQL's, read in the statement that
opens the session (``hot_document_current``, ADR 0020).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django_redis import get_redis_connection
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

TTL_SECONDS = 24 * 3600  # idle users fall out of Redis; PostgreSQL is the copy of record
TAIL_FIELDS = ("recent_turns", "pending_tokens")
VERSION_FIELDS = ("version", "stable_version")  # kept in each key's "<version>:" prefix

# KEYS: the keys to write. ARGV: version, payload for each key in turn, then the TTL.
_SET_IF_NEWER = """
local ttl = ARGV[#ARGV]
local written = 0
for i, key in ipairs(KEYS) do
  local version = tonumber(ARGV[2 * i - 1])
  local current = redis.call('GET', key)
  local held = current and tonumber(string.match(current, '^(%d+):'))
  if not held or held < version then
    redis.call('SET', key, ARGV[2 * i - 1] .. ':' .. ARGV[2 * i], 'EX', ttl)
    written = written + 1
  end
end
return written
"""


def hot_cache_key(*, tenant_id: int, agent_slug: str, user_external_id: str) -> str:
    """``hot:{<tenant>:<agent>:<digest>}``: the external id under a keyed hash (HMAC with a key
    derived from SECRET_KEY), so neither the id nor a guess at it can be confirmed from Redis
    key names; the braces are a Redis Cluster hash tag, so a document's two keys (``…`` and
    ``…:tail``) share a slot and one MGET reads both. After rotating SECRET_KEY run
    ``manage.py hot_cache_rekey`` (the stored keys are recomputed)."""
    return f"hot:{{{tenant_id}:{agent_slug}:{user_key_digest(user_external_id)}}}"


def user_key_digest(user_external_id: str) -> str:
    return hmac.new(_key_secret(), user_external_id.encode(), hashlib.sha256).hexdigest()[:32]


def _key_secret() -> bytes:
    return hashlib.sha256(
        b"handover hot-cache key names\x00" + settings.SECRET_KEY.encode()
    ).digest()


def _redis() -> Any:
    return get_redis_connection("default")


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _body(raw: bytes) -> tuple[int, Any]:
    version, _, body = raw.partition(b":")
    return int(version), json.loads(body)


def hot_cache_get(key: str) -> dict[str, Any] | None:
    try:
        stable_raw, tail_raw = _redis().mget([cache.make_key(key), cache.make_key(f"{key}:tail")])
    except RedisError:
        logger.warning("Redis unavailable; hot document read from PostgreSQL")
        return None
    if stable_raw is None or tail_raw is None:
        return None
    stable_version, document = _body(stable_raw)
    tail_version, tail = _body(tail_raw)
    document.update(tail)
    # Every change writes the tail, so its version is the document's; the stable part's may be
    # older (appends do not rewrite it) and only has to be no older than the last rebuild.
    document["version"] = tail_version
    document["stable_version"] = stable_version
    return dict(document)


def hot_cache_put(key: str, document: dict[str, Any]) -> bool:
    """Write both parts of a whole document (after a rebuild, or on a cache miss)."""
    version = document["version"]
    stable = {k: v for k, v in document.items() if k not in TAIL_FIELDS and k not in VERSION_FIELDS}
    tail = {k: document[k] for k in TAIL_FIELDS}
    return _write({key: (version, stable), f"{key}:tail": (version, tail)})


def hot_cache_put_tail(
    key: str, *, version: int, recent_turns: list[Any] | str, pending_tokens: int
) -> bool:
    """Write only the tail (after an append). ``recent_turns`` may be the JSON text PostgreSQL
    returned: it goes into the cached value as it is, not parsed and written again."""
    turns = recent_turns if isinstance(recent_turns, str) else _dumps(recent_turns)
    tail = f'{{"recent_turns":{turns},"pending_tokens":{int(pending_tokens)}}}'
    return _write({f"{key}:tail": (version, tail)})


def _write(parts: dict[str, tuple[int, Any]]) -> bool:
    """Each part is (version, value); a value that is a str is JSON text already."""
    keys = [cache.make_key(name) for name in parts]
    args: list[Any] = []
    for version, value in parts.values():
        args += [version, value if isinstance(value, str) else _dumps(value)]
    try:
        return bool(_redis().eval(_SET_IF_NEWER, len(keys), *keys, *args, TTL_SECONDS))
    except RedisError:
        logger.warning("Redis unavailable; hot document %s not cached", next(iter(parts)))
        return False


def hot_cache_evict(keys: list[str], *, strict: bool = False) -> int:
    """Delete documents (both parts) from Redis; returns how many keys existed.

    ``strict`` raises when Redis cannot be reached (an erase must not report success with a
    copy left behind); otherwise a failure is logged and the copy expires with its TTL.
    """
    if not keys:
        return 0
    names = [cache.make_key(name) for key in keys for name in (key, f"{key}:tail")]
    try:
        return int(_redis().delete(*names))
    except RedisError:
        if strict:
            raise
        logger.warning("Redis unavailable; %d hot documents not evicted", len(keys))
        return 0

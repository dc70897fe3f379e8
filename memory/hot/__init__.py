"""The hot tier: ``cache`` is the Redis copy of each hot document, ``document`` builds and loads
the document itself. This package re-exports the Redis layer (what ``memory.hot`` always was);
``memory.hot.document`` is imported by name, so reading the cache never pulls in the writers."""

from memory.hot.cache import (
    TAIL_FIELDS,
    TTL_SECONDS,
    VERSION_FIELDS,
    hot_cache_evict,
    hot_cache_get,
    hot_cache_key,
    hot_cache_put,
    hot_cache_put_tail,
)

__all__ = [
    "TAIL_FIELDS",
    "TTL_SECONDS",
    "VERSION_FIELDS",
    "hot_cache_evict",
    "hot_cache_get",
    "hot_cache_key",
    "hot_cache_put",
    "hot_cache_put_tail",
]

"""Per-API-key rate limits, counted in Redis: fixed one-minute windows, one round trip.

A request over the key's limit is 429 ``rate_limited`` with ``Retry-After`` (seconds to the next
window). If Redis cannot be reached the request is let through: a rate limiter must not take the
API down with it (the outage itself shows in /readyz and the logs).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django_redis import get_redis_connection
from redis.exceptions import RedisError
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from tenants.principal import ApiPrincipal

logger = logging.getLogger(__name__)
WINDOW_SECONDS = 60


class ApiKeyRateThrottle(BaseThrottle):
    wait_seconds: float | None = None

    def allow_request(self, request: Request, view: Any) -> bool:
        principal = request.user
        limit = settings.API_KEY_RATE_PER_MINUTE
        if not isinstance(principal, ApiPrincipal) or limit <= 0:
            return True
        now = time.time()
        window = int(now // WINDOW_SECONDS)
        key = cache.make_key(f"rate:{principal.key_id}:{window}")  # under the cache's prefix
        try:
            pipe = get_redis_connection("default").pipeline(transaction=False)
            pipe.incr(key)
            pipe.expire(key, 2 * WINDOW_SECONDS)
            count = int(pipe.execute()[0])
        except RedisError as exc:
            logger.warning("rate limit not checked, Redis unavailable: %s", type(exc).__name__)
            return True
        if count > limit:
            self.wait_seconds = WINDOW_SECONDS - (now % WINDOW_SECONDS)
            return False
        return True

    def wait(self) -> float | None:
        return self.wait_seconds

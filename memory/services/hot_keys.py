"""Keeping the stored Redis key names of hot documents equal to what ``hot_cache_key`` computes."""

from __future__ import annotations

from memory.hot.cache import hot_cache_evict, hot_cache_key
from memory.models import HotDocument
from memory.services.erasure import DETACHED_SUFFIX

BATCH = 1000


def hot_cache_keys_rekey(model: type[HotDocument] = HotDocument) -> int:
    """Recompute every document's key; evict the old names. Returns how many changed."""
    changed = 0
    documents = (
        model.objects.select_related("agent", "end_user")
        .exclude(cache_key__endswith=DETACHED_SUFFIX)  # being erased: left as the erase put it
        .order_by("pk")
    )
    last = 0
    while True:
        batch = list(documents.filter(pk__gt=last)[:BATCH])
        if not batch:
            return changed
        stale = []
        for document in batch:
            key = hot_cache_key(
                tenant_id=document.tenant_id, agent_slug=document.agent.slug,
                user_external_id=document.end_user.external_id,
            )  # fmt: skip
            if key != document.cache_key:
                stale.append(document.cache_key)
                model.objects.filter(pk=document.pk).update(cache_key=key)
                changed += 1
        hot_cache_evict(stale)
        last = batch[-1].pk

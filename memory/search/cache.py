"""What one process remembers between searches: recent query embeddings and, per user, the
names of the two sides of their conversations. Erasing a user forgets theirs
(``search_cache_forget_user``)."""

from __future__ import annotations

import time
from collections import OrderedDict
from threading import Lock

import numpy as np

from memory.embedding import default_embedder
from memory.models import EndUser, Session
from memory.search.index import index_forget_user
from memory.validation import participants_of
from schemas.models import Agent


class _QueryCache:
    """Recent query embeddings: a repeated question skips the model (≈2 ms)."""

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        self.items: OrderedDict[str, np.ndarray] = OrderedDict()
        self.lock = Lock()

    def clear(self) -> None:
        with self.lock:
            self.items.clear()

    def get(self, text: str) -> np.ndarray:
        return self.get_many([text])[0]

    def get_many(self, texts: list[str]) -> list[np.ndarray]:
        """The vectors of ``texts``, in order: the cached ones refreshed as recently used, the
        others embedded in one batch."""
        with self.lock:
            for text in texts:
                if text in self.items:
                    self.items.move_to_end(text)
            missing = list(dict.fromkeys(t for t in texts if t not in self.items))
        fresh = dict(zip(missing, default_embedder().embed(missing), strict=True)) if missing else {}  # fmt: skip
        with self.lock:
            self.items.update(fresh)
            found = [self.items.get(t, fresh.get(t)) for t in texts]
            while len(self.items) > self.size:
                self.items.popitem(last=False)
        return found  # type: ignore[return-value]


query_cache = _QueryCache()

_PARTICIPANTS_SECONDS = 60.0
_participants_seen: dict[tuple[int, int], tuple[float, set[str]]] = {}


def participants(agent: Agent, user: EndUser) -> set[str]:
    """Names of the two sides of this user's conversations (session metadata), lower-case;
    remembered for a minute per process (they change when a new session names someone new)."""
    key = (agent.pk, user.pk)
    seen = _participants_seen.get(key)
    if seen is not None and time.monotonic() - seen[0] < _PARTICIPANTS_SECONDS:
        return seen[1]
    names = _participants_load(agent, user)
    if len(_participants_seen) > 10_000:
        _participants_seen.clear()
    _participants_seen[key] = (time.monotonic(), names)
    return names


def search_cache_forget_user(*, end_user_id: int) -> None:
    """Drop what this process remembers of a user after an erase: their participants' names,
    their search index (memory.search.index) and every cached query (their questions may be
    among them; which ones is not recorded). Other processes forget the index when it is next
    evicted (the user's id is never searched again)."""
    for key in [k for k in _participants_seen if k[1] == end_user_id]:
        _participants_seen.pop(key, None)
    index_forget_user(end_user_id)
    query_cache.clear()


def _participants_load(agent: Agent, user: EndUser) -> set[str]:
    names: set[str] = set()
    rows = (
        Session.objects.filter(tenant_id=agent.tenant_id, agent=agent, end_user=user)
        .exclude(metadata={})
        .values_list("metadata", flat=True)
        .distinct()[:20]
    )
    for metadata in rows:
        for name in participants_of(metadata).values():
            names |= {part.lower() for part in str(name).split()}
    return names

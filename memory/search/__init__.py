"""Memory search (DESIGN §7): scoped to one (tenant, agent, user) before anything else.

Legs (``legs``): semantic (pgvector cosine over the user's memory units, exact scan), keyword
(PostgreSQL full text, an OR of the query's lexemes, ranked by cover density), turn keyword (the
same over the raw turns, credited to their units) and current facts (active facts whose key or
value the query names). Fusion (``fusion``): reciprocal rank fusion plus a subject and a recency
prior. When the best semantic similarity is under the agent's confidence threshold, or too few
results come back, the raw turn log is searched too; those results always score below every
memory unit and say `confidence: low`. A memory unit said while a fact it mentions held an older
value is marked stale, with its date, and is never high confidence: only facts are current.
``cache`` is what one process remembers between searches; ``pipeline`` runs the steps in order.
"""

from memory.search.cache import search_cache_forget_user
from memory.search.hits import Hit, SearchResult
from memory.search.pipeline import memory_search

__all__ = ["Hit", "SearchResult", "memory_search", "search_cache_forget_user"]

"""Memory search (DESIGN §7): scoped to one (tenant, agent, user) before anything else.

Legs: semantic (cosine over the user's memory units), turn keyword (BM25 over the raw turns,
credited to the units made from them), keyword (the units' own words, for units whose turns are
gone), date (units said on the day or month the query names) and current facts — over the
user's index held in the process (``index``, ``index_legs``, ``bm25``, ``dates``), or in SQL
(``legs``) for very large users and other languages. Over the in-process index the legs are
one: the ranker (``ranker``) scores every unit by a linear model over what the legs measure, its
turn's neighbours included. Fusion (``fusion``): reciprocal rank fusion of the legs (the ranker's
list and the facts) plus a recency prior, and a subject prior where the ranker did not run. When the best semantic similarity is under the
agent's confidence threshold, or too few results come back, the raw turn log is searched too;
those results always score below every memory unit and say `confidence: low`. A memory unit said
while a fact it mentions held an older value is marked stale, with its date, and is never high
confidence: only facts are current. With a session, references in the query ("the other one",
"same as last time") are resolved first (``references``, ``resolve``) and what they point at
leads. ``cache`` is what one process remembers between searches; ``pipeline`` runs the steps.
"""

from memory.search.cache import search_cache_forget_user
from memory.search.hits import Hit, SearchResult
from memory.search.pipeline import memory_search

__all__ = ["Hit", "SearchResult", "memory_search", "search_cache_forget_user"]

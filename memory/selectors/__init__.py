"""Reads of memory (HackSoft's selectors): ``sessions`` (sessions, end users), ``facts`` and
``hot`` (the hot document). Callers outside the package import from here; modules inside it
import from the submodules, so the package has no import cycle."""

from memory.selectors.facts import entity_get_for_tenant, entity_list, entity_list_for_user
from memory.selectors.hot import (
    BlockAsOf,
    context_block_as_of,
    context_pack,
    hot_document_cached,
    hot_document_current,
    hot_document_payload,
)
from memory.selectors.sessions import (
    end_user_get_for_tenant,
    session_get_for_tenant,
    session_get_for_user,
    uuid_or_not_found,
)
from memory.selectors.turns import TurnPage, turn_list

_uuid = uuid_or_not_found  # the name tests/tenants imports

__all__ = [
    "BlockAsOf",
    "TurnPage",
    "context_block_as_of",
    "context_pack",
    "end_user_get_for_tenant",
    "entity_get_for_tenant",
    "entity_list",
    "entity_list_for_user",
    "hot_document_cached",
    "hot_document_current",
    "hot_document_payload",
    "session_get_for_tenant",
    "session_get_for_user",
    "turn_list",
    "uuid_or_not_found",
]

"""Writes to memory (HackSoft's services), one module per area: ``sessions``, ``turns``,
``facts``, ``forget``, ``units`` (the write lane's), ``context`` (what an agent reads on demand),
``erasure``, ``lifecycle``, ``export``. Each public function is one transaction and leaves the
hot document (``memory.hot.document``) re-rendered when what it changed is visible there.

This package re-exports what ``memory.services`` held before it was split, so callers keep
importing from here; modules inside ``memory`` import from the submodules (no import cycle).
"""

from memory.hot.document import hot_document_load, hot_document_rebuild
from memory.services.facts import (
    SOURCE_RANK,
    entity_correct,
    entity_end,
    entity_pin_set,
    entity_upsert,
)
from memory.services.forget import MIN_NEEDLE_CHARS, REDACTED, Forgotten, entity_forget
from memory.services.history import TurnRemoved, TurnsCleared, turn_clear_hot, turn_remove_last
from memory.services.sessions import SessionOpened, end_user_get_or_create, session_open
from memory.services.turns import AppendResult, TurnAppended, TurnIn, turn_append
from memory.services.units import acu_create_many, acu_nearest, end_user_lock_live, turns_archive
from memory.validation import (
    MAX_EXTERNAL_ID,
    MAX_METADATA_BYTES,
    MAX_TURN_CHARS,
    external_id_validate,
    metadata_validate,
    turn_text_validate,
)

__all__ = [
    "MAX_EXTERNAL_ID",
    "MAX_METADATA_BYTES",
    "MAX_TURN_CHARS",
    "MIN_NEEDLE_CHARS",
    "REDACTED",
    "SOURCE_RANK",
    "AppendResult",
    "Forgotten",
    "SessionOpened",
    "TurnAppended",
    "TurnIn",
    "TurnRemoved",
    "TurnsCleared",
    "acu_create_many",
    "acu_nearest",
    "end_user_get_or_create",
    "end_user_lock_live",
    "entity_correct",
    "entity_end",
    "entity_forget",
    "entity_pin_set",
    "entity_upsert",
    "external_id_validate",
    "hot_document_load",
    "hot_document_rebuild",
    "metadata_validate",
    "session_open",
    "turn_append",
    "turn_clear_hot",
    "turn_remove_last",
    "turn_text_validate",
    "turns_archive",
]

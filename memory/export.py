"""Moved to ``memory.services.export``; this name stays for the callers outside memory (the
console, extraction's export section)."""

from memory.services.export import (
    CHUNK_ROWS,
    FORMAT_VERSION,
    section_register,
    user_export_record,
    user_export_stream,
)

__all__ = [
    "CHUNK_ROWS",
    "FORMAT_VERSION",
    "section_register",
    "user_export_record",
    "user_export_stream",
]

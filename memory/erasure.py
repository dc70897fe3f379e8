"""Moved to ``memory.services.erasure``; this name stays for the callers outside memory (the
console, tests/hostile)."""

from memory.services.erasure import (
    ERASURE_TASK,
    erasure_get_for_tenant,
    erasure_request,
    erasure_resume,
    erasure_run_to_end,
    subject_hash,
)

__all__ = [
    "ERASURE_TASK",
    "erasure_get_for_tenant",
    "erasure_request",
    "erasure_resume",
    "erasure_run_to_end",
    "subject_hash",
]

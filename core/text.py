"""Text helpers every layer shares: what PostgreSQL can store, the one sentence splitter, ISO
timestamps."""

from __future__ import annotations

import datetime
import re

# A sentence ends at . ! or ? followed by space and what can start a sentence ("e.g. the flat"
# stays one sentence). Dialogue, memory units and the rolling summary are all split with it, so
# forgetting a fact removes exactly the summary sentences the summary writer put there.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")


def sentences(text: str) -> list[str]:
    """The sentences of ``text``: each line on its own, then split at sentence ends."""
    out: list[str] = []
    for part in re.split(r"\n+", text):
        out.extend(s.strip() for s in _SENTENCE_END.split(part.strip()) if s.strip())
    return out


def text_storable(text: str) -> bool:
    """PostgreSQL text and JSONB hold neither NUL characters nor lone surrogates."""
    if "\x00" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def utc_offset_minutes(moment: datetime.datetime | None) -> int | None:
    """The offset a time was given with, in whole minutes east of UTC (None: no time, or a naive
    one)."""
    offset = moment.utcoffset() if moment is not None else None
    return None if offset is None else int(offset.total_seconds() // 60)


def iso(moment: datetime.datetime | None) -> str | None:
    if moment is None:
        return None
    return moment.astimezone(datetime.UTC).isoformat()

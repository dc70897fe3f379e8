"""Reading a LoCoMo-format file: what ingestion may see, the questions, and (for scoring only)
the evidence."""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path
from typing import Any

from bench.extraction import conversations
from bench.locomo.metrics import CATEGORIES


def load(path: Path) -> list[dict[str, Any]]:
    """Conversations for ingestion: speakers, sessions, dates, turns (image captions as text;
    no qa)."""
    return conversations(path)


def questions(path: Path) -> list[dict[str, Any]]:
    """Question text and category only; the rest stays in the file until scoring."""
    return [{"conversation": item["sample_id"], "index": i, "question": q["question"], "category": str(q["category"])}
            for item in json.loads(path.read_text()) for i, q in enumerate(item["qa"]) if str(q["category"]) in CATEGORIES]  # fmt: skip


def evidence_ids(raw: list[str]) -> set[str]:
    """Normalised evidence ids (LOCOMO.md): split on ';' or spaces, strip leading zeros, accept
    `D:11:26`. A string that is no id at all (`"D"`) is dropped; an id of a turn that does not
    exist stays, so it simply cannot be covered."""
    ids = set()
    for entry in raw:
        for part in re.split(r"[;\s]+", entry):
            match = re.fullmatch(r"D:?(\d+):0*(\d+)", part.strip())
            if match:
                ids.add(f"D{int(match.group(1))}:{int(match.group(2))}")
    return ids


def evidence(path: Path) -> dict[tuple[str, int], set[str]]:
    """Scoring only: normalised evidence ids per question."""
    return {(item["sample_id"], i): evidence_ids(q.get("evidence") or [])
            for item in json.loads(path.read_text()) for i, q in enumerate(item["qa"])}  # fmt: skip


def turn_lines(conversation: dict[str, Any]) -> list[tuple[str, str]]:
    """(dia id, text) of every turn in order, as the baselines index and return it: the session's
    date as LoCoMo writes it and the speaker before the text, `[1:56 pm on 8 May, 2023] Caroline:
    …`. Of the forms tried for the dense baseline this one scored best (recall@8 on the dev set:
    0.509, against 0.490 for `2023-05-08`, 0.481 for `8 May 2023`, 0.468 with no date)."""
    return [
        (t["dia_id"], f"[{locomo_date(s['when'])}] {t['speaker']}: {t['text']}")
        for s in conversation["sessions"]
        for t in s["turns"]
    ]


def locomo_date(when: datetime.datetime) -> str:
    """The inverse of bench.extraction.session_time: `1:56 pm on 8 May, 2023`."""
    half = "am" if when.hour < 12 else "pm"
    return f"{when.hour % 12 or 12}:{when.minute:02d} {half} on {when.day} {when:%B}, {when.year}"

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


def answers(path: Path) -> dict[str, list[str]]:
    """Scoring only: the answers of each conversation's questions."""
    return {item["sample_id"]: [str(q["answer"]) for q in item["qa"]
                                if str(q["category"]) in CATEGORIES and "answer" in q]
            for item in json.loads(path.read_text())}  # fmt: skip


_STOP = frozenset(
    [
        "the",
        "a",
        "an",
        "of",
        "and",
        "or",
        "to",
        "in",
        "on",
        "at",
        "for",
        "with",
        "is",
        "was",
        "by",
        "from",
        "her",
        "his",
        "their",
        "it",
        "as",
        "i",
    ]
)


def answer_coverage(blocks: dict[str, str], path: Path) -> dict[str, float]:
    """How much of the questions' answers a block holds: the share of answers found whole, and
    of their words (a measure of what the block tells, so it cannot shrink by saying less)."""
    words = lambda text: [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _STOP]  # noqa: E731
    whole = share = n = 0.0
    for conversation, said in answers(path).items():
        block = blocks.get(conversation, "").lower()
        present = set(words(block))
        for answer in said:
            if not words(answer):
                continue
            n += 1
            whole += answer.lower() in block
            share += sum(w in present for w in words(answer)) / len(words(answer))
    return {"answers": int(n), "whole": round(whole / n, 4), "words": round(share / n, 4)}


def tail_block(conversation: dict[str, Any], tokens: int) -> str:
    """The baseline block: the history's last turns, speaker and date before each, as many as
    fit in ``tokens`` (what an agent without memory would hand its model)."""
    from memory.tokens import count_tokens

    kept: list[str] = []
    used = 0
    for _, line in reversed(turn_lines(conversation)):
        used += count_tokens(line)
        if used > tokens:
            break
        kept.append(line)
    return "\n".join(reversed(kept))


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

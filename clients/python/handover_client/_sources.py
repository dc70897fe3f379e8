"""Conversation history from files, for ``handover import``: JSON lines, a ChatGPT export, LoCoMo.

Every conversation becomes one Handover session whose id is derived from the source (the
ChatGPT conversation's id, the LoCoMo sample and session number, the JSON lines' ``session``),
and every turn gets its position in the conversation as its ``seq``. The same file imported
again therefore names the same sessions and seqs, which the API stores exactly once.
"""

from __future__ import annotations

import datetime
import json
import re
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from handover_client.models import TurnInput

FORMATS = ("jsonl", "chatgpt", "locomo")
ROLES = ("user", "assistant", "system", "tool")
UTC = datetime.timezone.utc


class SourceError(ValueError):
    """The file is not what its format says: the message names the place."""


@dataclass
class Conversation:
    user: str
    session: str
    turns: list[TurnInput] = field(default_factory=list)
    metadata: dict[str, Any] | None = None


def read(path: Path, kind: str | None, user: str | None) -> list[Conversation]:
    """The conversations in ``path`` (``kind`` None: guessed from the name and content)."""
    kind = kind or guess(path)
    if kind == "jsonl":
        return jsonl(path.read_text(encoding="utf-8").splitlines(), user, default=path.stem)
    data = _load_json(path)
    if kind == "chatgpt":
        return chatgpt(data, _need(user, "a ChatGPT export"))
    if kind == "locomo":
        return locomo(data, user)
    raise SourceError(f"unknown format {kind!r} (one of {', '.join(FORMATS)})")


def guess(path: Path) -> str:
    if path.suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    data = _load_json(path)
    first = data[0] if isinstance(data, list) and data else {}
    if isinstance(first, dict) and "mapping" in first:
        return "chatgpt"
    if isinstance(first, dict) and "conversation" in first:
        return "locomo"
    raise SourceError(f"{path}: say which format it is (--format {'|'.join(FORMATS)})")


def _load_json(path: Path) -> Any:
    try:
        if path.suffix == ".zip":  # the ChatGPT export as downloaded
            with zipfile.ZipFile(path) as archive:
                return json.loads(archive.read("conversations.json"))
        return json.loads(path.read_text(encoding="utf-8"))
    except (KeyError, ValueError) as error:
        raise SourceError(f"{path}: {error}") from error


def _need(user: str | None, what: str) -> str:
    if not user:
        raise SourceError(f"say whose history {what} is (--user)")
    return user


def _numbered(conversation: Conversation, role: str, text: str, when: Any) -> None:
    seq = len(conversation.turns) + 1
    conversation.turns.append(TurnInput(role, text, seq, when))  # type: ignore[arg-type]


# --- JSON lines: {"session"?, "user"?, "role", "text" (or "content"), "occurred_at"?} per line


def jsonl(lines: Iterable[str], user: str | None, *, default: str) -> list[Conversation]:
    found: dict[tuple[str, str], Conversation] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as error:
            raise SourceError(f"line {number}: not JSON ({error})") from error
        if not isinstance(row, dict) or "role" not in row or not {"text", "content"} & set(row):
            raise SourceError(f"line {number}: a turn is an object with role and text")
        role, text = row["role"], row["text"] if "text" in row else row["content"]
        if role not in ROLES or not isinstance(text, str):
            raise SourceError(f"line {number}: role is one of {', '.join(ROLES)}, text a string")
        who = str(row.get("user") or _need(user, f"line {number}"))
        session = str(row.get("session") or default)
        conversation = found.setdefault((who, session), Conversation(who, session))
        _numbered(conversation, role, text, row.get("occurred_at"))
    return list(found.values())


# --- A ChatGPT export: conversations.json, each conversation a tree of message nodes


def chatgpt(data: Any, user: str) -> list[Conversation]:
    if not isinstance(data, list):
        raise SourceError("a ChatGPT export is a list of conversations")
    out = []
    for index, item in enumerate(data):
        try:
            ident = item.get("conversation_id") or item["id"]
            mapping = item["mapping"]
        except (AttributeError, KeyError) as error:
            raise SourceError(f"conversation {index}: no {error}") from error
        conversation = Conversation(
            user, f"chatgpt-{ident}", metadata={"source": "chatgpt", "title": item.get("title")}
        )
        last = _epoch(item.get("create_time"))
        for node in _thread(mapping, item.get("current_node")):
            spoken = _spoken(node.get("message"))
            if spoken:
                role, text, when = spoken
                last = when or last  # an undated message: when the one before it was
                _numbered(conversation, role, text, last)
        out.append(conversation)
    return out


def _thread(mapping: dict[str, Any], leaf: str | None) -> list[dict[str, Any]]:
    """The messages of the branch the user last saw: from the current node up to the root
    (edited and regenerated messages leave other branches in the tree)."""
    if leaf is None or leaf not in mapping:  # older exports: the last leaf
        leaves = [key for key, node in mapping.items() if not node.get("children")]
        leaf = leaves[-1] if leaves else None
    path, seen = [], set()
    while leaf is not None and leaf in mapping and leaf not in seen:
        seen.add(leaf)
        path.append(mapping[leaf])
        leaf = mapping[leaf].get("parent")
    return path[::-1]


def _spoken(message: Any) -> tuple[str, str, datetime.datetime | None] | None:
    """(role, text, time) of a message said in the conversation; None for what was not
    (system prompts, hidden context, tool calls and their output, images alone)."""
    if not isinstance(message, dict):
        return None
    role = (message.get("author") or {}).get("role")
    content = message.get("content") or {}
    metadata = message.get("metadata") or {}
    if role not in ("user", "assistant") or metadata.get("is_visually_hidden_from_conversation"):
        return None
    if message.get("recipient", "all") != "all":  # the assistant calling a tool
        return None
    if content.get("content_type") not in ("text", "multimodal_text"):
        return None
    text = "\n".join(p for p in content.get("parts") or [] if isinstance(p, str)).strip()
    return (role, text, _epoch(message.get("create_time"))) if text else None


def _epoch(value: Any) -> datetime.datetime | None:
    return datetime.datetime.fromtimestamp(value, UTC) if isinstance(value, int | float) else None


# --- LoCoMo: samples with speaker_a / speaker_b and session_N turns on session_N_date_time

LOCOMO_DATE = re.compile(r"(\d{1,2}):(\d{2})\s*(am|pm) on (\d{1,2}) ([A-Za-z]+),? (\d{4})", re.I)
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december"]  # fmt: skip


def locomo(data: Any, user: str | None) -> list[Conversation]:
    if not isinstance(data, list):
        raise SourceError("a LoCoMo file is a list of samples")
    out = []
    for index, sample in enumerate(data):
        try:
            ident, talk = str(sample["sample_id"]), sample["conversation"]
            a, b = talk["speaker_a"], talk["speaker_b"]
        except (KeyError, TypeError) as error:
            raise SourceError(f"sample {index}: no {error}") from error
        n = 1
        while f"session_{n}" in talk or f"session_{n}_date_time" in talk:
            metadata = {"source": "locomo", "participants": {"user": a, "assistant": b}}
            conversation = Conversation(user or ident, f"{ident}-s{n}", metadata=metadata)
            when = _locomo_time(talk.get(f"session_{n}_date_time"), f"{ident} session {n}")
            for i, turn in enumerate(talk.get(f"session_{n}") or []):
                text = turn["text"]
                if turn.get("blip_caption"):  # shared images, as the LoCoMo papers read them
                    text += f" [shares an image: {turn['blip_caption']}]"
                role = "user" if turn["speaker"] == a else "assistant"
                # Turns 30 s apart from the session's start: LoCoMo dates sessions, not turns.
                _numbered(conversation, role, text, when + datetime.timedelta(seconds=30 * i))
            if conversation.turns:
                out.append(conversation)
            n += 1
    return out


def _locomo_time(raw: Any, where: str) -> datetime.datetime:
    match = LOCOMO_DATE.fullmatch(str(raw or "").strip())
    if not match or match.group(5).lower() not in MONTHS:
        raise SourceError(f"{where}: a date like '1:56 pm on 8 May, 2023', not {raw!r}")
    hour, minute, half, day, month, year = match.groups()
    return datetime.datetime(
        int(year), MONTHS.index(month.lower()) + 1, int(day),
        int(hour) % 12 + (12 if half.lower() == "pm" else 0), int(minute), tzinfo=UTC,
    )  # fmt: skip

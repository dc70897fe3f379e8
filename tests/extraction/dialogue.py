"""A short dialogue through the rules extractor, for the pipeline tests written as exchanges:
turns as (role, text), "u" the user and "a" the agent, a minute apart from ``start``."""

from __future__ import annotations

import datetime
from typing import Any

from extraction.extractors import Usage, WindowTurn
from extraction.extractors.rules import RulesExtractor


def dialogue_facts(turns: list[tuple[str, str]], fields: list[dict[str, Any]],
                   known: dict[str, str] | None = None, *, start: datetime.datetime,
                   user: str, agent: str) -> dict[str, Any]:  # fmt: skip
    """Fact key → value of what the extractor writes from ``turns``; ``known``: memory before."""
    window = [
        WindowTurn(i, "s", i, "user" if r == "u" else "assistant", t,
                   start + datetime.timedelta(minutes=i), user if r == "u" else agent,
                   agent if r == "u" else user)
        for i, (r, t) in enumerate(turns)
    ]  # fmt: skip
    return {f.key: f.value for f in RulesExtractor().extract_facts(window, fields, Usage(), known)}

"""Extractors turn a window of turns into typed facts and memory units. Pluggable per agent."""

from __future__ import annotations

from typing import Any

from extraction.extractors.base import (
    AcuCandidate,
    Extraction,
    ExtractionFailed,
    Extractor,
    FactCandidate,
    RetryableError,
    Usage,
    WindowTurn,
)

__all__ = [
    "AcuCandidate",
    "Extraction",
    "ExtractionFailed",
    "Extractor",
    "FactCandidate",
    "RetryableError",
    "Usage",
    "WindowTurn",
    "extractor_for",
]


def extractor_for(agent: Any) -> Extractor:
    if agent.extractor == "openai":
        from django.conf import settings

        from extraction.extractors.openai import OpenAIExtractor

        connection = settings.MODEL_CONNECTIONS.get(agent.extractor_connection)
        if connection is None or not connection.open_to(agent.tenant.slug):
            raise ExtractionFailed(
                f"model connection {agent.extractor_connection!r} is not offered to this tenant"
            )
        return OpenAIExtractor(model=agent.extractor_model, connection=connection)
    from extraction.extractors.rules import RulesExtractor

    return RulesExtractor()

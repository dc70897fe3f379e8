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
        from extraction.extractors.openai import OpenAIExtractor

        return OpenAIExtractor(
            model=agent.extractor_model,
            base_url=agent.extractor_base_url,
            api_key_env=agent.extractor_api_key_env,
        )
    from extraction.extractors.rules import RulesExtractor

    return RulesExtractor()

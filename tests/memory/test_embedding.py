from __future__ import annotations

import numpy as np
import pytest

from memory.embedding import DIMENSIONS, MiniLMEmbedder, OpenAIEmbedder, default_embedder, embed
from tests.scripted_model import ScriptedModel


def test_bundled_model_matches_the_published_similarities() -> None:
    # sentence-transformers' own example for all-MiniLM-L6-v2: 0.6660, 0.1046, 0.1411 (int8 here)
    vectors = embed(
        ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]
    )
    assert vectors.shape == (3, DIMENSIONS)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    similarity = vectors @ vectors.T
    assert abs(similarity[0, 1] - 0.666) < 0.01
    assert abs(similarity[0, 2] - 0.105) < 0.01 and abs(similarity[1, 2] - 0.141) < 0.01


def test_the_default_is_the_bundled_model_loaded_once() -> None:
    assert isinstance(default_embedder(), MiniLMEmbedder)
    assert default_embedder() is default_embedder()
    assert embed([]).shape == (0, DIMENSIONS)


def test_an_openai_compatible_endpoint_can_replace_it() -> None:
    server = ScriptedModel()
    try:
        embedder = OpenAIEmbedder(base_url=server.url, model="embed-1", api_key="k")
        vectors = embedder.embed(["budget is 80 lakhs", "budget is 80 lakhs", "a dog named Max"])
        assert vectors.shape == (3, DIMENSIONS)
        assert float(vectors[0] @ vectors[1]) == pytest.approx(1.0)
        assert float(vectors[0] @ vectors[2]) < 0.99
        assert server.requests[-1] == {
            "model": "embed-1",
            "input": ["budget is 80 lakhs", "budget is 80 lakhs", "a dog named Max"],
            "dimensions": 384,
        }
    finally:
        server.close()
    with pytest.raises(RuntimeError, match="http"):
        OpenAIEmbedder(base_url="file:///etc/passwd", model="m")

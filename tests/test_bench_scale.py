"""bench/scale.py end to end at tiny sizes: its own server and embedded stack, the COPY load, the
read-back checks, every measurement and the report (the real run is `make bench-scale`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.scale_data import FACT_KEYS, TURNS_PER_SESSION, WINDOW

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parent.parent


def test_scale_smoke_run_loads_reads_back_and_measures(tmp_path: Path) -> None:
    out = tmp_path / "scale.json"
    run = subprocess.run(
        [sys.executable, "-m", "bench.scale", "--sizes", "4000,8000", "--heavy", "50,200",
         "--requests", "20", "--warmup", "2", "--heavy-requests", "5", "--pool", "100",
         "--workers", "2", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads(out.read_text())
    # Measured at 4,000 turns, then the heavy users (100 + 400 turns) join; the next size tops up.
    assert [(s["turns"], s["turns_after"]) for s in results["sizes"]] == [
        (4000, 4500),
        (8000, 8000),
    ]
    assert results["skipped"] == []
    verified = results["verified"]
    assert verified["ok"] and verified["facts_active"] == FACT_KEYS
    assert verified["recent_turns"] == WINDOW and verified["search_units_found"] > 0
    for i, size in enumerate(results["sizes"]):
        for endpoint in (
            "session_start_hot",
            "session_start_cold",
            "turn_append",
            "context",
            "search",
        ):
            assert 0 < size["latency"][endpoint]["p50_ms"] <= size["latency"][endpoint]["p99_ms"]
        assert set(size["heavy_search"]) == {"50", "200"}
        tables = size["disk"]["tables"]
        assert tables["memory_turn"]["rows"] == size["turns_after"] + 22 * (i + 1)  # + appended
        assert tables["memory_acu"]["bytes_per_row"] > 1536  # 384 float4 at least
        assert size["redis"]["bytes_per_user_mean"] > 0
        assert "turn_text_search" in size["disk"]["indexes"]
        # the turn log is partitioned: its bytes are its partitions' (it was 0 before)
        assert tables["memory_turn"]["table_bytes_per_row"] > 40
        assert size["disk"]["indexes"]["turn_text_search"] > 0
    assert tables["memory_session"]["rows"] >= size["turns_after"] // TURNS_PER_SESSION
    for units, ways in results["heavy"].items():
        assert ways["units"] == int(units)
        assert ways["approximate"]["ef_search_100"]["recall_at_10"] > 0.5
    assert out.with_suffix(".png").stat().st_size > 10_000
    assert "p99 ms by size" in run.stdout

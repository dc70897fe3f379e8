"""Benchmarks, run by hand: latency.py, extraction.py (see README)."""

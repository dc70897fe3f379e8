"""The bottom layer: errors, text helpers, the environment reader, metrics and logs.

It imports no app of the project (tests/test_layout.py checks it), so every app may use it.
"""

"""The development scenario suite's benchmark (issue 15): ``make bench-scenarios``.

43 hand-written multi-session conversations in nine domains (``bench/scenarios/*.json``, format
in ``bench/scenarios/README.md``) run through the real API and worker; the facts, timelines and
assembled contexts read back are scored against each conversation's expectations, per
phenomenon and overall. Modules: ``data`` (load, validate, format), ``compare`` (typed values),
``scoring`` (checks, contradictions), ``runner`` (HTTP), ``report`` (figures), ``cli``.
"""

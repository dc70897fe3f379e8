"""Dates a query names ("on 13 October 2023", "on May 23, 2023", "in July 2023", "in June"), as
tests on the day a memory unit was said: a question about a day or a month prefers what was
said then (the date leg, ADR 0010)."""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Sequence

import numpy as np

MONTHS = {name: i for i, name in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"], 1)}  # fmt: skip
_MONTH = r"(january|february|march|april|may|june|july|august|september|october|november|december)"
DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)? {_MONTH},? (\d{{4}})\b", re.I)
MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH} (\d{{1,2}})(?:st|nd|rd|th)?,? (\d{{4}})\b", re.I)
MONTH_YEAR = re.compile(rf"\b(?:in|during|of|since|early|late|mid) {_MONTH},? (\d{{4}})\b", re.I)
MONTH = re.compile(rf"\b(?:in|during|early|late|mid) {_MONTH}\b(?!,? \d)", re.I)
DAY_SLACK = datetime.timedelta(days=3)  # said the day of, or a few days after


def date_test(query: str) -> Callable[[datetime.date], bool] | None:
    """A test on a unit's day for the date the query names, or None when it names none."""
    if match := DAY_MONTH_YEAR.search(query):
        day, month, year = int(match.group(1)), MONTHS[match.group(2).lower()], int(match.group(3))
        return _near(year, month, day)
    if match := MONTH_DAY_YEAR.search(query):
        month, day, year = MONTHS[match.group(1).lower()], int(match.group(2)), int(match.group(3))
        return _near(year, month, day)
    if match := MONTH_YEAR.search(query):
        month, year = MONTHS[match.group(1).lower()], int(match.group(2))
        return lambda d: (d.year, d.month) == (year, month)
    if match := MONTH.search(query):
        month = MONTHS[match.group(1).lower()]
        return lambda d: d.month == month
    return None


def _near(year: int, month: int, day: int) -> Callable[[datetime.date], bool] | None:
    try:
        when = datetime.date(year, month, day)
    except ValueError:
        return None
    return lambda d: when - DAY_SLACK <= d <= when + DAY_SLACK


def said_then(query: str, days: Sequence[datetime.date]) -> np.ndarray | None:
    """Per day: whether it is (near) the day, or in the month, the query names; None when the
    query names none."""
    test = date_test(query)
    return None if test is None else np.array([test(day) for day in days], dtype=bool)

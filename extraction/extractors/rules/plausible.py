"""Values a field cannot hold whatever cue found them, by what the field counts or names: a
fraction of a count of whole things, a street for a town (keep.implausible asks)."""

from __future__ import annotations

import re

from extraction.extractors.rules.fields import TIME_UNITS
from extraction.extractors.rules.reader import Claim

_COUNT = re.compile(r"^\W*(?:the\s+)?(?:how many|number of|count of)\b", re.I)


def a_fraction_of_a_count(claim: Claim) -> bool:
    """A count of things ("How many bedrooms", key ``bedrooms``) is no 2.05 (a price in crore,
    proposed bare): people and rooms come whole, or in halves ("two and a half rooms")."""
    profile = claim.profile
    amount = claim.value.get("amount") if isinstance(claim.value, dict) else claim.value
    if profile.type != "number" or isinstance(amount, bool) or not isinstance(amount, float):
        return False
    measured = re.search(  # "2.5 baths", "1.5 hours": not counts of whole things
        rf"bath|{TIME_UNITS}|kilo|kg|gram|mile|km|litre|liter|pound|dollar|euro|point|percent",
        profile.about,
        re.I,
    )
    plural = re.fullmatch(r"(?:\w+_)?[a-z]{3,}[^s]s", profile.key)
    counted = plural or _COUNT.search(profile.field.get("description", ""))
    return not (amount * 2).is_integer() and bool(counted) and not measured  # "two and a half"


_STREET = re.compile(
    r"\b(?:road|street|st|lane|avenue|ave|drive|marg|boulevard|blvd)\W*$|"
    r"^(?:flat|apartment|apt|unit|suite)\s*\d",
    re.I,
)  # "Flat 3" neither


def a_street_for_a_town(claim: Claim) -> bool:
    """ "Hill Road" for the city the buyer wants to live in: a street, not a town."""
    town = re.search(r"\b(?:city|town)\b", claim.profile.key.replace("_", " "))
    return bool(town) and isinstance(claim.value, str) and bool(_STREET.search(claim.value))

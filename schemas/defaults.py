"""Starter schemas: what a new agent extracts until an operator publishes its own."""

from typing import Any

GENERAL_ASSISTANT: list[dict[str, Any]] = [
    {
        "key": "name",
        "description": "The user's name as they want to be addressed",
        "category": "profile",
        "type": "string",
    },
    {
        "key": "city",
        "description": "The city the user lives in",
        "category": "profile",
        "type": "string",
    },
    {
        "key": "occupation",
        "description": "The user's job or role",
        "category": "profile",
        "type": "string",
    },
    {
        "key": "preferred_language",
        "description": "The language the user prefers to talk in",
        "category": "profile",
        "type": "string",
    },
    {
        "key": "goal",
        "description": "What the user is currently trying to achieve",
        "category": "temporal",
        "type": "string",
    },
    {
        "key": "mood",
        "description": "How the user says they feel right now",
        "category": "ephemeral",
        "type": "string",
        "ttl_hours": 24,
    },
]

# The demo agent: a property advisor, the scenario of the design (budget 50 lakhs, then 80).
PROPERTY_ADVISOR: list[dict[str, Any]] = [
    {
        "key": "name",
        "description": "The buyer's name",
        "category": "profile",
        "type": "string",
        "examples": ["I'm Priya"],
    },
    {
        "key": "city",
        "description": "The city where the buyer wants to buy",
        "category": "profile",
        "type": "string",
        "examples": ["looking in Pune"],
    },
    {
        "key": "family_size",
        "description": "How many people will live in the home",
        "category": "profile",
        "type": "number",
    },
    {
        "key": "pet",
        "description": "A pet the buyer has (one fact per pet)",
        "category": "profile",
        "type": "string",
    },
    {
        "key": "budget",
        "description": "The buyer's maximum budget for the property",
        "category": "temporal",
        "type": "money",
        "examples": ["budget is 80 lakhs", "up to ₹1.2 crore"],
    },
    {
        "key": "bedrooms",
        "description": "Number of bedrooms wanted",
        "category": "temporal",
        "type": "number",
        "examples": ["a 3BHK"],
    },
    {
        "key": "property_type",
        "description": "The kind of property wanted",
        "category": "temporal",
        "type": "enum",
        "choices": ["apartment", "villa", "plot", "townhouse"],
    },
    {
        "key": "move_in_date",
        "description": "When the buyer wants to move in",
        "category": "temporal",
        "type": "date",
    },
    {
        "key": "loan_preapproved",
        "description": "Whether the buyer has a pre-approved home loan",
        "category": "temporal",
        "type": "boolean",
    },
    {
        "key": "site_visit_today",
        "description": "A site visit planned for today",
        "category": "ephemeral",
        "type": "string",
        "ttl_hours": 24,
    },
]

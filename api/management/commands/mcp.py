"""``manage.py mcp``: the MCP server for an agent's users' memory (handover_client.mcp_server).

It calls this deployment's HTTP API with ``HANDOVER_API_KEY`` (ADR 0018), so it runs anywhere
the API is reachable and needs no database access of its own.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core import env


class Command(BaseCommand):
    help = (
        "Serve search_memory, get_context, record_turn, remember_fact, forget_fact, the schema "
        "resource and prompts over MCP (stdio or HTTP)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        from handover_client.mcp_server import add_arguments

        add_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        import anyio
        from handover_client.mcp_server import serve

        key = env.string("HANDOVER_API_KEY")
        if not key:
            raise CommandError("set HANDOVER_API_KEY to the API key the server acts with")
        base_url = options["base_url"] or env.string("HANDOVER_URL", "http://127.0.0.1:8000")
        assert base_url is not None
        anyio.run(lambda: serve(
            api_key=key, base_url=base_url, agent=options["agent"], user=options["user"],
            session=options["session"], transport=options["transport"], host=options["host"],
            port=options["port"],
        ))  # fmt: skip

"""An MCP server that gives a model Handover's memory of one user of one agent.

Tools: ``search_memory``, ``get_context``, ``remember_fact``, ``forget_fact``. Each one is a call
to the Handover HTTP API with the configured API key, so the key's tenant, role and agent scope
apply exactly as they do to any other client (ADR 0018). Needs ``handover-client[mcp]``.

    HANDOVER_API_KEY=hv_… handover-mcp --agent demo --user priya                 # stdio
    HANDOVER_API_KEY=hv_… handover-mcp --agent demo --user priya --transport http --port 8765

Over HTTP (streamable HTTP at ``/mcp``) every request must carry ``Authorization: Bearer`` with
the same API key: whoever can reach the port could otherwise read this user's memory.
"""

from __future__ import annotations

import argparse
import contextlib
import hmac
import os
import sys
import uuid
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from handover_client.client import AsyncHandover
from handover_client.errors import APIError, HandoverError, NotFoundError

INSTRUCTIONS = (
    "Long-term memory of the user you are talking to. Call get_context once at the start of a "
    "conversation and keep what it returns in mind. Call search_memory only when the user refers "
    "to something from the past that the context does not contain. Call remember_fact when the "
    "user states a fact about themselves worth keeping (the key must be one of the agent's "
    "schema fields), and forget_fact when they ask you to forget one."
)

NOTHING_YET = "No memory found for this query."


def _tool_error(error: HandoverError) -> ToolError:
    if isinstance(error, APIError):
        return ToolError(f"{error.code}: {error.detail}")
    return ToolError(f"memory unavailable: {error}")


def build_server(
    client: AsyncHandover, *, agent: str, user: str, session: str | None = None
) -> MCPServer:
    """The MCP server for one (agent, user), calling the API through ``client``."""
    server: MCPServer = MCPServer("handover", instructions=INSTRUCTIONS)
    opened: dict[str, str] = {}

    async def session_id() -> str:
        # One Handover session per MCP server process, opened on first use.
        if "id" not in opened:
            name = session or f"mcp-{uuid.uuid4().hex}"
            opened["id"] = (await client.open_session(agent, user, session=name)).session_id
        return opened["id"]

    async def call(action: Callable[[], Awaitable[str]]) -> str:
        try:
            return await action()
        except HandoverError as error:
            raise _tool_error(error) from error

    @server.tool(
        description="Search long-term memory about this user: earlier conversations and facts "
        "not in the context. Use the user's words plus any names, places, dates or numbers."
    )
    async def search_memory(query: str, k: int = 5) -> str:
        async def run() -> str:
            try:
                result = await client.search(user, query, agent=agent, k=max(1, min(k, 20)))
            except NotFoundError as error:
                if error.code != "user_not_found":
                    raise
                return NOTHING_YET  # a user Handover has not met yet has no memory
            return result.as_tool_result()

        return await call(run)

    @server.tool(
        description="What to know about this user now: pinned and current facts, profile, "
        "summary and recent conversation, packed into a token budget. With a query, the best "
        "search hits are added."
    )
    async def get_context(query: str | None = None, budget_tokens: int | None = None) -> str:
        async def run() -> str:
            packed = await client.context(
                await session_id(), query=query, budget_tokens=budget_tokens
            )
            return packed.context

        return await call(run)

    @server.tool(
        description="Remember a fact the user stated about themselves. `key` is a field of the "
        "agent's schema (e.g. city, budget), or field:qualifier for one of several values "
        "(pet:Max). A new value replaces the current one; the old one stays in history."
    )
    async def remember_fact(
        key: str,
        value: str | int | float | bool | dict[str, Any],
        source: Literal["explicit", "confirmed", "inferred"] = "explicit",
    ) -> str:
        async def run() -> str:
            entity = await client.write_fact(user, key, value, agent=agent, source=source)
            if entity.created:
                return f"Remembered {entity.key}: {entity.value_text}."
            return f"Already known: {entity.key} is {entity.value_text}."

        return await call(run)

    @server.tool(
        description="Forget a fact about the user, every version of it, when they ask you to."
    )
    async def forget_fact(key: str) -> str:
        async def run() -> str:
            try:
                held = await client.list_entities(user, agent=agent, key=key)
            except NotFoundError as error:
                if error.code != "user_not_found":
                    raise
                held = []
            if not held:
                return f"Nothing is remembered under {key!r}."
            deleted = 0
            for entity in held:
                # A later version of the same key went with the first: not found, fine.
                with contextlib.suppress(NotFoundError):
                    deleted += (await client.forget_entity(entity.id)).deleted_versions
            return f"Forgot {key} ({deleted} version{'s' if deleted != 1 else ''})."

        return await call(run)

    return server


Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[..., Any], Callable[..., Any]], Awaitable[None]]


def require_bearer(app: ASGIApp, key: str) -> ASGIApp:
    """ASGI middleware: HTTP requests without ``Authorization: Bearer <key>`` get a 401."""
    expected = f"Bearer {key}".encode()

    async def guarded(scope: Scope, receive: Callable[..., Any], send: Callable[..., Any]) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, expected):
                body = b'{"code": "invalid_api_key", "detail": "Send the Handover API key."}'
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"www-authenticate", b'Bearer realm="handover-mcp"')]})  # fmt: skip
                await send({"type": "http.response.body", "body": body})
                return
        await app(scope, receive, send)

    return guarded


async def serve(
    *,
    api_key: str,
    base_url: str,
    agent: str,
    user: str,
    session: str | None = None,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = 8765,
) -> None:
    async with AsyncHandover(api_key=api_key, base_url=base_url) as client:
        server = build_server(client, agent=agent, user=user, session=session)
        if transport == "stdio":
            await server.run_stdio_async()
            return
        import uvicorn

        app = require_bearer(server.streamable_http_app(host=host), api_key)
        config = uvicorn.Config(app, host=host, port=port, log_level="warning")
        await uvicorn.Server(config).serve()


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="handover-mcp", description="MCP server for one user's Handover memory."
    )
    add_arguments(parser)
    return parser


def add_arguments(parser: Any) -> None:
    parser.add_argument("--agent", required=True, help="the agent's slug")
    parser.add_argument("--user", required=True, help="the end user's id")
    parser.add_argument("--session", help="the Handover session id to use (default: a new one)")
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    parser.add_argument("--host", default="127.0.0.1", help="http: the address to listen on")
    parser.add_argument("--port", type=int, default=8765, help="http: the port (path /mcp)")
    parser.add_argument("--base-url", help="the Handover API (default: $HANDOVER_URL or :8000)")


def main(argv: list[str] | None = None) -> int:
    import anyio

    args = parser().parse_args(argv)
    key = os.environ.get("HANDOVER_API_KEY")
    if not key:
        print("handover-mcp: set HANDOVER_API_KEY", file=sys.stderr)
        return 2
    base_url = args.base_url or os.environ.get("HANDOVER_URL") or "http://127.0.0.1:8000"
    anyio.run(lambda: serve(api_key=key, base_url=base_url, agent=args.agent, user=args.user,
                            session=args.session, transport=args.transport, host=args.host,
                            port=args.port))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

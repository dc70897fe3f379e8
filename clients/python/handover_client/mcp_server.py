"""An MCP server that gives a model Handover's memory of the users of one agent.

Tools: ``search_memory``, ``get_context``, ``record_turn``, ``remember_fact``, ``forget_fact``;
the agent's schema fields as a resource; prompts ``start_conversation`` and ``remember``
(``handover_client._mcp_tools``). Each is a call to the Handover HTTP API with the configured
API key, so the key's tenant, role and agent scope apply exactly as they do to any other client
(ADR 0018). Needs ``handover-client[mcp]``.

    HANDOVER_API_KEY=hv_… handover-mcp --agent demo --user priya                 # stdio
    HANDOVER_API_KEY=hv_… handover-mcp --agent demo --transport http --port 8765  # many users

The user of a call: the connection's (``X-Handover-User`` over HTTP), else the call's ``user``
argument, else ``--user``. Over HTTP (streamable HTTP at ``/mcp``) every request must carry
``Authorization: Bearer`` with the same API key: whoever can reach the port could otherwise read
every user's memory.
"""

from __future__ import annotations

import argparse
import hmac
import os
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from handover_client._mcp_tools import INSTRUCTIONS, USER_HEADER, build_server
from handover_client.client import AsyncHandover

__all__ = ["INSTRUCTIONS", "USER_HEADER", "build_server", "main", "serve"]

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
    user: str | None = None,
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
        prog="handover-mcp", description="MCP server for the Handover memory of an agent's users."
    )
    add_arguments(parser)
    return parser


def add_arguments(parser: Any) -> None:
    parser.add_argument("--agent", required=True, help="the agent's slug")
    parser.add_argument(
        "--user",
        help="the default end user: for calls that name none (the connection's "
        f"{USER_HEADER.title()} header comes first); without it every call must say",
    )
    parser.add_argument(
        "--session", help="the default user's session id (default: a new one per connection)"
    )
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

"""A loopback HTTP proxy in front of the live server that misbehaves on cue.

Each scripted step applies to the next request: ``("status", 429, {"Retry-After": "1"})``
answers without forwarding; ``("lose", 502)`` forwards the request (the server does the work)
and then answers 502 instead, as a load balancer that lost the answer would; ``("slow", 2.0)``
waits before forwarding. Unscripted requests are forwarded as they are.
"""

from __future__ import annotations

import threading
import time
import urllib.error
import urllib.request
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FaultyProxy:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.steps: deque[tuple[Any, ...]] = deque()
        self.seen: list[tuple[str, str, bytes]] = []
        self.forwarded = 0  # requests the server has answered (to the proxy)
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                proxy.seen.append((self.command, self.path, body))
                step = proxy.steps.popleft() if proxy.steps else ("pass",)
                if step[0] == "status":
                    self._reply(step[1], b'{"code": "scripted", "detail": "scripted"}', step[2])
                    return
                if step[0] == "slow":
                    time.sleep(step[1])
                status, data, headers = self._forward(body)
                proxy.forwarded += 1
                if step[0] == "lose":
                    self._reply(step[1], b"<html>bad gateway</html>", {})
                else:
                    self._reply(status, data, headers)

            def _forward(self, body: bytes) -> tuple[int, bytes, dict[str, str]]:
                headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
                request = urllib.request.Request(
                    proxy.upstream + self.path,
                    data=body if self.command != "GET" else None,
                    headers=headers,
                    method=self.command,
                )
                try:
                    with urllib.request.urlopen(request, timeout=30) as response:
                        return response.status, response.read(), dict(response.headers)
                except urllib.error.HTTPError as error:
                    return error.code, error.read(), dict(error.headers)

            def _reply(self, status: int, data: bytes, headers: dict[str, str]) -> None:
                try:
                    self.send_response(status)
                    for name, value in headers.items():
                        if name.lower() not in {"content-length", "connection", "server", "date"}:
                            self.send_header(name, value)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = do_POST = do_DELETE = do_PATCH = _handle

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def script(self, *steps: tuple[Any, ...]) -> None:
        self.steps.extend(steps)

    def wait_forwarded(self, count: int, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while self.forwarded < count:
            assert time.monotonic() < deadline, f"{self.forwarded} of {count} forwarded"
            time.sleep(0.02)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

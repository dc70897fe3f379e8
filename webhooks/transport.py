"""The one HTTP POST a delivery makes, to an address checked by ``core.outbound``.

The host is resolved once, every address checked (public only, unless the deployment allows
private ones), and the connection made to a checked address, never to a second resolution:
a DNS answer that changes between the check and the connect (rebinding) cannot reach an
internal address. TLS still verifies the certificate against the host name (SNI). No
redirects (http.client follows none); the response body is read (bounded) and dropped.
"""

from __future__ import annotations

import http.client
import socket
import ssl
from urllib.parse import urlsplit

from core.outbound import address_resolve

MAX_RESPONSE_BYTES = 64 * 1024  # read and dropped: lets the connection close cleanly


def _connect(addresses: list[str], port: int, timeout: float) -> socket.socket:
    last: OSError | None = None
    for address in addresses:
        try:
            return socket.create_connection((address, port), timeout=timeout)
        except OSError as exc:
            last = exc
    raise last or OSError("no address to connect to")


class _PinnedHTTP(http.client.HTTPConnection):
    def __init__(self, host: str, port: int, addresses: list[str], timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self.addresses = addresses

    def connect(self) -> None:
        self.sock = _connect(self.addresses, self.port, self.timeout)  # type: ignore[arg-type]


class _PinnedHTTPS(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, addresses: list[str], timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self.addresses = addresses

    def connect(self) -> None:
        sock = _connect(self.addresses, self.port, self.timeout)  # type: ignore[arg-type]
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]


def post(
    url: str, body: bytes, headers: dict[str, str], *, timeout: float, allow_private: bool
) -> int:
    """POST ``body`` to ``url``; the response status. Raises ``OutboundRefused`` for an address
    the rules refuse, ``OSError`` / ``http.client.HTTPException`` when the call fails."""
    addresses = address_resolve(url, allow_private=allow_private)
    parts = urlsplit(url)
    https = parts.scheme == "https"
    port = parts.port or (443 if https else 80)
    connection = (_PinnedHTTPS if https else _PinnedHTTP)(
        str(parts.hostname), port, addresses, timeout
    )
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        connection.request("POST", target, body=body, headers=headers)
        response = connection.getresponse()
        response.read(MAX_RESPONSE_BYTES)
        return int(response.status)
    finally:
        connection.close()

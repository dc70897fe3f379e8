"""Every call the service makes to another host goes through here (docs/security.md).

- ``ModelConnection``: a model endpoint the *deployment* configured (``MODEL_CONNECTIONS``),
  with the name of the environment variable holding its key. Tenants choose a connection by
  name; they never give a URL, a key or a variable name.
- ``address_check``: the URL is http(s) and every address its host resolves to is a public
  one — never loopback, private, link-local (cloud metadata at 169.254.169.254), shared,
  multicast or reserved — unless the deployment allowed private addresses for that target.
- ``opener``: urllib without redirects (a public endpoint answering 30x to an internal address
  would otherwise get around the check).
"""

from __future__ import annotations

import ipaddress
import json
import re
import socket
import urllib.request
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import SplitResult, urlsplit

NAME = re.compile(r"^[a-z][a-z0-9_-]{0,49}$")
ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]{0,99}$")


class OutboundRefused(Exception):
    """The address is not one the deployment lets the service call. ``code`` is stable."""

    def __init__(self, detail: str, code: str = "outbound_address_refused") -> None:
        super().__init__(detail)
        self.code = code


@dataclass(frozen=True)
class ModelConnection:
    name: str
    base_url: str
    api_key_env: str = ""
    allow_private: bool = False
    # Tenant slugs that may use it; empty: every tenant.
    tenants: tuple[str, ...] = field(default=())

    def open_to(self, tenant_slug: str) -> bool:
        return not self.tenants or tenant_slug in self.tenants


def model_connections_parse(
    raw: str | None, *, default_base_url: str, default_key_env: str
) -> dict[str, ModelConnection]:
    """``MODEL_CONNECTIONS``: a JSON object ``{name: {"base_url", "api_key_env"?,
    "allow_private"?, "tenants"?}}``. Unset: one connection, ``default``, from
    ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``. Raises ValueError on anything else."""
    if not raw:
        return {"default": ModelConnection("default", default_base_url, default_key_env)}
    try:
        spec = json.loads(raw)
    except ValueError as exc:
        raise ValueError(f"MODEL_CONNECTIONS is not JSON: {exc}") from None
    if not isinstance(spec, dict) or not spec:
        raise ValueError("MODEL_CONNECTIONS must be a non-empty JSON object of connections")
    connections: dict[str, ModelConnection] = {}
    for name, entry in spec.items():
        if not NAME.match(name):
            raise ValueError(f"MODEL_CONNECTIONS: {name!r} is not a name (a-z, 0-9, _ -)")
        if not isinstance(entry, dict) or set(entry) - {
            "base_url",
            "api_key_env",
            "allow_private",
            "tenants",
        }:
            raise ValueError(
                f"MODEL_CONNECTIONS[{name}] takes base_url, api_key_env, allow_private, tenants"
            )
        base_url = entry.get("base_url")
        if not isinstance(base_url, str) or urlsplit(base_url).scheme not in ("http", "https"):
            raise ValueError(f"MODEL_CONNECTIONS[{name}].base_url must be an http(s) URL")
        key_env = entry.get("api_key_env", "")
        if key_env and (not isinstance(key_env, str) or not ENV_NAME.match(key_env)):
            raise ValueError(f"MODEL_CONNECTIONS[{name}].api_key_env must be a variable name")
        allow_private = entry.get("allow_private", False)
        tenants = entry.get("tenants", [])
        if not isinstance(allow_private, bool):
            raise ValueError(f"MODEL_CONNECTIONS[{name}].allow_private must be true or false")
        if not isinstance(tenants, list) or not all(isinstance(t, str) for t in tenants):
            raise ValueError(f"MODEL_CONNECTIONS[{name}].tenants must be a list of tenant slugs")
        connections[name] = ModelConnection(
            name, base_url.rstrip("/"), key_env, allow_private, tuple(tenants)
        )
    return connections


def _public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_global and not address.is_multicast


def address_check(url: str, *, allow_private: bool) -> None:
    """Refuse ``url`` unless it is http(s) and its host resolves only to public addresses
    (or ``allow_private``). Resolution failures are refusals too."""
    if allow_private:
        _parts(url)
        return
    address_resolve(url, allow_private=False)


def address_resolve(url: str, *, allow_private: bool) -> list[str]:
    """``address_check``, returning the addresses it checked, in the resolver's order. Connect
    to one of these rather than resolving the host again: a DNS answer that changes between the
    check and the connection (rebinding) then cannot lead the call to a private address."""
    parts = _parts(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        infos = socket.getaddrinfo(parts.hostname, port, proto=socket.IPPROTO_TCP)
    except (OSError, ValueError):
        raise OutboundRefused("the host does not resolve", "outbound_host_unresolved") from None
    addresses: list[str] = []
    for info in infos:
        text = str(info[4][0]).split("%")[0]
        if not allow_private and not _public(ipaddress.ip_address(text)):
            raise OutboundRefused("the host resolves to an address that is not public")
        if text not in addresses:
            addresses.append(text)
    return addresses


def _parts(url: str) -> SplitResult:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise OutboundRefused("only http:// and https:// URLs with a host", "outbound_url_invalid")
    return parts


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # a 30x is answered to the caller as the HTTPError it is


def opener() -> urllib.request.OpenerDirector:
    return urllib.request.build_opener(_NoRedirect)


__all__ = [
    "ModelConnection",
    "OutboundRefused",
    "address_check",
    "address_resolve",
    "model_connections_parse",
    "opener",
]

"""The address a request came from, seen through the operator's own reverse proxies.

Per-address limits (workspace creation, failed credentials) key on it. `X-Forwarded-For` is
believed only when the connection comes from a trusted proxy, and then read from the right,
skipping trusted hops: entries further left are whatever the client chose to send.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

from aiohttp import web

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(values: Sequence[str]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(v.strip(), strict=False) for v in values if v.strip())


def _trusted(address: str, networks: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)


def client_address(request: web.Request, trusted_proxies: tuple[Network, ...]) -> str:
    remote = request.remote or "unknown"
    if not trusted_proxies or not _trusted(remote, trusted_proxies):
        return remote
    hops = [h.strip() for h in request.headers.get("X-Forwarded-For", "").split(",") if h.strip()]
    for hop in reversed(hops):
        if not _trusted(hop, trusted_proxies):
            return hop
    return hops[0] if hops else remote

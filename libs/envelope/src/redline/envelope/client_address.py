"""The address a request came from, seen through the operator's own reverse proxies.

Per-address limits (workspace creation, failed credentials) key on it. `X-Forwarded-For` is
believed only when the connection comes from a trusted proxy, and then only as far as the
operator's proxies wrote it: each proxy appends the address it saw, so the list is read from the
right, at most one entry per proxy (`hops`), stopping early at an entry that is no trusted proxy
(that one is the client, who came in past the proxies further out). Entries further left are
whatever the client chose to send, even when they lie inside the proxies' own network: a client
there (a pod, say) must not be able to speak for a neighbour.
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


def client_address(
    request: web.Request, trusted_proxies: tuple[Network, ...], hops: int = 1
) -> str:
    """The client of `request`: the peer, unless the peer is one of `trusted_proxies`; then the
    entry of `X-Forwarded-For` that the `hops` proxies in front of the service vouch for."""
    remote = request.remote or "unknown"
    if not trusted_proxies or not _trusted(remote, trusted_proxies):
        return remote
    entries = [h.strip() for h in request.headers.get("X-Forwarded-For", "").split(",")]
    entries = [entry for entry in entries if entry]
    if not entries:
        return remote
    # The i-th entry from the right was written by the i-th proxy counted from the service;
    # an entry that is no proxy is the client, and the entries before it are its own words.
    vouched = entries[-max(1, hops) :]
    for entry in reversed(vouched[1:]):
        if not _trusted(entry, trusted_proxies):
            return entry
    return vouched[0]

"""The address guard: keeps webhooks (customers' own and workflow ones) away from this network.

A webhook URL is checked twice without the network, when it is saved and again before each
delivery, by `AddressGuard.check_url`. What a host name resolves to can change at any time, so
`GuardedResolver` checks the addresses of every lookup made for a delivery and hands the connector
only addresses it has checked: there is no second lookup that could answer differently.

The operator's allow-list opens chosen hosts (a host name, an IP address or a network), for
receivers inside the deployment; those may also use plain http.
"""

from __future__ import annotations

import functools
import ipaddress
import re
import socket
from collections.abc import Sequence

import yarl
from aiohttp import ThreadedResolver
from aiohttp.abc import AbstractResolver, ResolveResult

from redline.webhooks.addresses import (
    IPAddress,
    blocked_range,
    embedded_ipv4,
    is_canonical_ipv4,
    parse_ip_literal,
)

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

# Letters, digits, hyphens and underscores (used by some service records), 1-63 per label.
_HOST_NAME = re.compile(r"(?!-)[a-z0-9_-]{1,63}(?<!-)(\.(?!-)[a-z0-9_-]{1,63}(?<!-))*")

_METADATA_NAMES = frozenset({"metadata", "metadata.google.internal"})


class BlockedTarget(Exception):
    """A webhook target this deployment will not send to; `reason` says why, for the user.

    aiohttp lets exceptions other than OSError raised by a resolver pass through unchanged, so one
    raised by `GuardedResolver` reaches the caller as itself.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _name_key(host: str) -> str:
    """A host name as the allow-list compares it: lower case, without the root's trailing dot."""
    return host.lower().removesuffix(".")


def _is_host_name(name: str) -> bool:
    return len(name) <= 253 and _HOST_NAME.fullmatch(name) is not None


class AddressGuard:
    """Decides which webhook targets may be reached.

    `allow` lists host names (matched exactly, ignoring case and a trailing dot) and IP addresses
    or networks ("10.1.2.3", "10.0.0.0/8", "fd00::/8"); an invalid entry raises ValueError naming
    it, so a mistyped setting stops start-up instead of silently allowing nothing.
    """

    def __init__(self, allow: Sequence[str] = ()) -> None:
        names: set[str] = set()
        networks: list[IPNetwork] = []
        for entry in allow:
            text = entry.strip()
            try:
                networks.append(ipaddress.ip_network(text))
                continue
            except ValueError:
                pass
            name = _name_key(text)
            if parse_ip_literal(name) is not None or "/" in name:
                raise ValueError(
                    f"webhook allow-list entry {entry!r} is not a valid IP address or network "
                    "(write IPv4 as a.b.c.d, networks without host bits: 10.0.0.0/8)"
                )
            if not _is_host_name(name):
                raise ValueError(
                    f"webhook allow-list entry {entry!r} is neither a host name nor an IP address "
                    "or network (international names go in their xn-- form)"
                )
            names.add(name)
        self._names = frozenset(names)
        self._networks = tuple(networks)
        # The verdict on a URL depends on nothing but the URL and the allow-list, and a worker
        # sends to the same few URLs all day: remember the accepted ones (refusals raise, and
        # are worked out again, which costs nothing that matters).
        self._accepted = functools.lru_cache(maxsize=4096)(self._check_url)

    def allows(self, host: str) -> bool:
        """Whether the operator allow-listed `host`: its name, or the network of an IP literal.
        IPv4 literals count only in dotted-decimal form, the one aiohttp will connect to."""
        if _name_key(host) in self._names:
            return True
        ip = parse_ip_literal(host)
        if ip is None or (ip.version == 4 and not is_canonical_ipv4(host)):
            return False
        return self._allows_ip(ip)

    def _allows_ip(self, ip: IPAddress) -> bool:
        # An IPv6 form of an allowed IPv4 address reaches the same host, so it is allowed too.
        candidates = {ip, embedded_ipv4(ip)}
        return any(
            candidate.version == network.version and candidate in network
            for candidate in candidates
            for network in self._networks
        )

    def check_url(self, url: str) -> yarl.URL:
        """The parsed `url` if a webhook may be sent to it, else raise BlockedTarget.

        Deliveries must use the returned URL, so the request goes where this check looked.
        """
        return self._accepted(url)

    def _check_url(self, url: str) -> yarl.URL:
        try:
            parsed = yarl.URL(url)
        except (ValueError, TypeError) as exc:
            raise BlockedTarget("the URL is not valid") from exc
        if parsed.scheme not in ("http", "https"):
            raise BlockedTarget("the URL must start with https://")
        host = parsed.raw_host
        if not host:
            raise BlockedTarget("the URL has no host")
        if parsed.explicit_port == 0:
            raise BlockedTarget("the URL's port must be between 1 and 65535")
        if parsed.raw_user is not None or parsed.raw_password is not None:
            # Credentials in a URL end up in logs and in the Authorization header of every
            # delivery; a receiver that needs them takes them as a header instead.
            raise BlockedTarget("the URL must not contain a user name or password")
        # Decoded, as a literal IPv6 host with a zone id is percent-encoded in the raw form.
        if parsed.host is not None and ":" in parsed.host:
            host = parsed.host
        if self.allows(host):
            return parsed
        if parsed.scheme == "http":
            raise BlockedTarget("plain http is only allowed for allow-listed hosts; use https")
        self._check_host(host)
        return parsed

    def _check_host(self, host: str) -> None:
        ip = parse_ip_literal(host)
        if ip is not None:
            reason = blocked_range(ip)
            if reason is not None:
                raise BlockedTarget(f"the host is {reason}")
            if ip.version == 4 and not is_canonical_ipv4(host):
                # Such spellings only serve to slip past filters; no receiver needs them.
                raise BlockedTarget("the host is an IPv4 address in a non-standard spelling")
            return
        name = _name_key(host)
        if name == "localhost" or name.endswith(".localhost"):
            raise BlockedTarget("the host is this machine (localhost)")
        if name in _METADATA_NAMES:
            raise BlockedTarget("the host is a cloud metadata service")
        if name == "internal" or name.endswith(".internal"):
            raise BlockedTarget("the host is an internal name (.internal)")
        if not _is_host_name(name):
            raise BlockedTarget("the host is not a valid host name")

    def check_address(self, ip: str | IPAddress) -> None:
        """Raise BlockedTarget unless a webhook may connect to `ip`, an address a host name
        resolved to. The allow-list's networks let their addresses through."""
        address = ipaddress.ip_address(ip) if isinstance(ip, str) else ip
        if self._allows_ip(address):
            return
        reason = blocked_range(address)
        if reason is not None:
            # The address itself stays out of the message: it would let a customer map
            # internal DNS names to internal addresses.
            raise BlockedTarget(f"the host resolves to {reason}")


class GuardedResolver(AbstractResolver):
    """Resolves host names with `inner` and refuses the whole lookup if any address is blocked.

    Refusing all of them, rather than dropping the bad ones, keeps a name that mixes public and
    internal addresses from reaching the internal ones on some attempts. aiohttp connects to
    exactly the addresses returned here. Literal IP hosts never reach a resolver, which is why
    `AddressGuard.check_url` must pass first.

    Without `inner`, lookups use the system resolver in a thread; create this inside a running
    event loop in that case.
    """

    def __init__(self, guard: AddressGuard, inner: AbstractResolver | None = None) -> None:
        self._guard = guard
        self._inner = inner if inner is not None else ThreadedResolver()

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        addresses = await self._inner.resolve(host, port, family)
        if not self._guard.allows(host):
            for address in addresses:
                self._guard.check_address(address["host"])
        return addresses

    async def close(self) -> None:
        await self._inner.close()

"""Which IP addresses a webhook may reach, and how an IP address can hide in a URL's host.

A webhook target is chosen by a customer, so every way of spelling an internal address has to be
recognised: operating systems still accept the legacy IPv4 forms (`2130706433`, `0x7f.1`,
`0177.0.0.1`, `127.1`), and IPv6 can carry an IPv4 address inside it (mapped, compatible, NAT64,
6to4), which the network delivers to that IPv4 address.
"""

from __future__ import annotations

import ipaddress
import socket

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Both prefixes put the IPv4 address in the last 32 bits; ipaddress unwraps neither of them.
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")

_SHARED = ipaddress.IPv4Network("100.64.0.0/10")
_PRIVATE = (
    ipaddress.IPv4Network("10.0.0.0/8"),
    ipaddress.IPv4Network("172.16.0.0/12"),
    ipaddress.IPv4Network("192.168.0.0/16"),
    ipaddress.IPv6Network("fc00::/7"),
)
_BROADCAST = ipaddress.IPv4Address("255.255.255.255")


def parse_ip_literal(host: str) -> IPAddress | None:
    """The address `host` denotes if it is an IP literal in any spelling the network stack accepts,
    else None (it is a name). `host` is a URL host without brackets; one trailing dot is ignored."""
    if ":" in host:
        try:
            return ipaddress.IPv6Address(host)  # accepts a zone id ("fe80::1%eth0")
        except ValueError:
            return None
    host = host.removesuffix(".")
    try:
        return ipaddress.IPv4Address(host)
    except ValueError:
        pass
    # Anything inet_aton accepts, getaddrinfo and connect accept too, as that IPv4 address.
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except (OSError, ValueError):
        return None


def is_canonical_ipv4(host: str) -> bool:
    """Whether `host` is an IPv4 address in plain dotted-decimal form (without a trailing dot,
    which aiohttp will not connect to)."""
    try:
        ipaddress.IPv4Address(host)
    except ValueError:
        return False
    return True


def embedded_ipv4(ip: IPAddress) -> IPAddress:
    """The IPv4 address that traffic to `ip` actually reaches, or `ip` itself."""
    if isinstance(ip, ipaddress.IPv4Address):
        return ip
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in _NAT64 or (ip in _IPV4_COMPATIBLE and int(ip) > 1):  # :: and ::1 are themselves
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip


def blocked_range(ip: IPAddress) -> str | None:
    """Why a webhook may not reach `ip`, as a noun phrase ("a private address"), or None when it
    is a globally routable unicast address."""
    ip = embedded_ipv4(ip)
    if ip.is_unspecified:
        return "the unspecified address"
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address"
    if ip.is_multicast:  # counted as global by ipaddress, yet never a single receiver
        return "a multicast address"
    if ip == _BROADCAST:
        return "the broadcast address"
    if ip in _SHARED:
        return "a carrier-grade NAT address"
    if any(ip in network for network in _PRIVATE):
        return "a private address"
    # Reserved IPv6 space counts as global in ipaddress, so it is checked on its own.
    if ip.is_reserved:
        return "a reserved address"
    if not ip.is_global:
        return "an address that is not globally routable"
    return None

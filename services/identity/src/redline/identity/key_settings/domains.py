"""Allowed domains: the host name each entry an API key allows stands for."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence

from redline.envelope.errors import InvalidArgument, Issue

_SCHEME = re.compile(r"^([a-z][a-z0-9+.-]*)://")
_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")


def normalise_domain(raw: str) -> str:
    """The host name an allowed-domain entry stands for.

    Lowercased; an `http(s)://` scheme, the port, path, query, fragment and a trailing dot are
    cut; a leading `*.` wildcard label is kept; internationalised names become their ASCII
    (punycode) form; IPv6 addresses keep their brackets. Raises ValueError saying what is wrong.
    """
    text = raw.strip().lower()
    scheme = _SCHEME.match(text)
    if scheme:
        if scheme.group(1) not in ("http", "https"):
            raise ValueError("only http and https addresses can be allowed domains")
        text = text[scheme.end() :]
    elif text.startswith("//"):
        text = text[2:]
    authority = re.split(r"[/?#\\]", text, maxsplit=1)[0]
    if "@" in authority:
        raise ValueError("must be a host name, without credentials")
    if authority.startswith("["):
        end = authority.find("]")
        if end < 0:
            raise ValueError("has an unclosed IPv6 bracket")
        _check_port(authority[end + 1 :], allow_empty=True)
        try:
            address = ipaddress.IPv6Address(authority[1:end])
        except ValueError:
            raise ValueError("is not a valid IPv6 address") from None
        return f"[{address.compressed}]"
    host, colon, port = authority.partition(":")
    if colon:
        _check_port(":" + port, allow_empty=False)
    if host.endswith("."):
        host = host[:-1]  # the absolute form names the same host
    wildcard = host.startswith("*.")
    if wildcard:
        host = host[2:]
    if not host:
        raise ValueError("must name a host")
    if "*" in host:
        raise ValueError("a wildcard is only allowed as the whole first label (*.example.com)")
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise ValueError("is not a valid internationalised host name") from None
    labels = host.split(".")
    if len(host) > 253 or not all(_LABEL.match(label) for label in labels):
        raise ValueError(
            "is not a valid host name (labels of letters, digits and inner hyphens, "
            "at most 63 characters each)"
        )
    if wildcard and len(labels) < 2:
        raise ValueError("a wildcard needs at least two labels after it (*.example.com)")
    return f"*.{host}" if wildcard else host


def allows_origin(domains: Sequence[str], origin: str) -> bool:
    """Whether a browser's `Origin` (`scheme://host[:port]`) is a page of the allowed domains:
    its host is an entry, or lies under a `*.` entry (`*.example.com` allows `a.example.com`,
    not `example.com`). The port does not count, as entries hold none. `null` (a sandboxed page,
    a file) and anything that is not an http(s) origin are allowed by no entry."""
    if not origin.lower().startswith(("http://", "https://")):
        return False
    try:
        host = normalise_domain(origin)
    except ValueError:
        return False
    if host.startswith("*."):
        return False
    return any(
        entry == host or (entry.startswith("*.") and host.endswith(entry[1:])) for entry in domains
    )


def _check_port(rest: str, *, allow_empty: bool) -> None:
    if rest == "" and allow_empty:
        return
    digits = rest[1:] if rest.startswith(":") else None
    if not digits or not digits.isdigit() or not 0 < int(digits) < 65536:
        raise ValueError("has an invalid port")


def normalise_domains(raw: Sequence[str], path: str) -> list[str]:
    """Normalise every entry (duplicates after normalisation collapse into the first); raise
    INVALID_ARGUMENT naming each bad entry as `<path>[i]`."""
    seen: dict[str, None] = {}
    issues: list[Issue] = []
    for index, entry in enumerate(raw):
        try:
            seen[normalise_domain(entry)] = None
        except ValueError as exc:
            issues.append(Issue(code="invalid_value", path=f"{path}[{index}]", message=str(exc)))
    if issues:
        raise InvalidArgument.from_issues(issues)
    return list(seen)

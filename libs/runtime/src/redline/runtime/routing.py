"""Which service answers which path: the one routing table of the deployed system.

In production an API gateway routes by path prefix to each service; locally, `redline up --split`
runs a small gateway that does the same. Both read this table (the Kubernetes routes are checked
against it by a test), and the all-in-one app is checked to serve each service's paths under that
service's prefixes only, so the three cannot disagree.
"""

from __future__ import annotations

from typing import Final

SERVICE_PREFIXES: Final[dict[str, tuple[str, ...]]] = {
    "identity": ("/v2/workspace", "/v2/users", "/v2/auth", "/v2/organizations"),
    "comments": ("/v1/commentannotations", "/v2/commentannotations"),
    "notify": ("/v2/activities", "/v2/webhooks", "/v2/notifications"),
    "memory": ("/v2/memory",),
    "workflow": ("/v2/workflow",),
}
"""Each service's path prefixes; a prefix matches itself and every path below it."""

SERVICES: Final[tuple[str, ...]] = tuple(SERVICE_PREFIXES)


def service_for(path: str) -> str | None:
    """The service whose prefix covers `path`, or None when no service does."""
    for service, prefixes in SERVICE_PREFIXES.items():
        for prefix in prefixes:
            if path == prefix or path.startswith(prefix + "/"):
                return service
    return None

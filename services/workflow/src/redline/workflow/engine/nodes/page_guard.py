"""The address guard for a page an agent runner is sent to: the runner fetches the page itself,
so the guarded client never sees that connection, and a tenant's page URL (static, or read from
the trigger payload) could point the runner at this network (loopback, private ranges, the cloud
metadata service). The URL is checked here as a webhook target is, before the runner is called.

A page may be plain http (it is read, not posted to), so the scheme is not held against it. A
host name is also resolved, as far as this host can: one whose addresses the guard refuses is
refused; one that does not resolve here is left to the runner, which may see other names.
"""

from __future__ import annotations

import asyncio
import socket

import yarl

from redline.webhooks import AddressGuard, BlockedTarget, GuardedResolver

RESOLVE_TIMEOUT_S = 5.0


async def page_refusal(guard: AddressGuard, page: str) -> str | None:
    """Why the runner must not be sent to `page`, or None when it may."""
    try:
        parsed = yarl.URL(page)
        if parsed.scheme not in ("http", "https"):
            return "the URL must start with http:// or https://"
        # Checked as https: the guard lets plain http reach allow-listed hosts only.
        guard.check_url(str(parsed.with_scheme("https")))
    except BlockedTarget as exc:
        return exc.reason
    except (ValueError, TypeError):
        return "the URL is not valid"
    host = parsed.host
    if host is None or guard.allows(host):
        return None
    return await _resolved_refusal(guard, host)


async def _resolved_refusal(guard: AddressGuard, host: str) -> str | None:
    resolver = GuardedResolver(guard)
    try:
        async with asyncio.timeout(RESOLVE_TIMEOUT_S):
            await resolver.resolve(host, 0, socket.AF_UNSPEC)
    except BlockedTarget as exc:
        return exc.reason
    except (OSError, TimeoutError, UnicodeError, ValueError):
        return None
    finally:
        await resolver.close()
    return None

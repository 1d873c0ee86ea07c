"""The NATS connection of a service process: reconnects forever, and knows its JetStream context."""

from __future__ import annotations

import asyncio
import logging
from urllib.parse import urlsplit, urlunsplit

import nats
from nats.aio.client import DEFAULT_INBOX_PREFIX, Client
from nats.js import JetStreamContext

log = logging.getLogger("redline.bus")

RECONNECT_WAIT_S = 0.25
DRAIN_TIMEOUT_S = 5
# How nats-py words the server's -ERR for a subject the user may not publish or subscribe to.
PERMISSIONS_VIOLATION = "permissions violation"


def without_secrets(url: str) -> str:
    """The NATS server URL(s) `url` names, fit for a log line: deployments put each service's
    password in it (`nats://user:password@host`), or a token as the user."""
    return ",".join(_masked(part) for part in url.split(","))


def _masked(url: str) -> str:
    parts = urlsplit(url)
    userinfo, at, host = parts.netloc.rpartition("@")
    if not at:
        return url
    user, colon, _ = userinfo.partition(":")
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}" if colon else f"***@{host}"))


def inbox_prefix(owner: str) -> str:
    """The inbox subjects of `owner`'s connections (a service, or "redline" for a process of
    several): replies, pulled messages and publish acknowledgements arrive below it, and a
    service's NATS user may subscribe only there, so that none reads another's replies."""
    return f"_INBOX.{owner}"


class _ConnectionLog:
    """What a connection's callbacks log: losing the server, finding it again, and errors."""

    def __init__(self) -> None:
        self.client: Client | None = None

    async def disconnected(self) -> None:
        # nats-py also calls this when the connection is closed on purpose.
        if self.client is not None and (self.client.is_closed or self.client.is_draining):
            return
        log.warning("NATS disconnected; reconnecting")

    async def reconnected(self) -> None:
        log.info("NATS reconnected")

    async def error(self, exc: Exception) -> None:
        # The server refused a publish or a subscription this user is not allowed: the
        # message is dropped (a request to it times out) and nothing else says so. A
        # deployment whose permissions miss a subject the code uses shows here.
        if PERMISSIONS_VIOLATION in str(exc).lower():
            log.error("NATS refused: %s", exc)
            return
        log.debug("NATS error: %s", exc)


async def _connect_once(
    url: str, name: str, inbox: str | bytes, callbacks: _ConnectionLog
) -> Client:
    return await nats.connect(
        url,
        name=name,
        inbox_prefix=inbox,
        # With -1 here nats-py would retry the first connect forever and the caller's loop
        # could never give up; a bounded count makes each call fail within a second.
        max_reconnect_attempts=1,
        reconnect_time_wait=RECONNECT_WAIT_S,
        connect_timeout=2,
        # A server that vanishes without closing the socket is noticed in ~30 s, not the 4
        # minutes of the defaults.
        ping_interval=10,
        max_outstanding_pings=3,
        drain_timeout=DRAIN_TIMEOUT_S,
        disconnected_cb=callbacks.disconnected,
        reconnected_cb=callbacks.reconnected,
        error_cb=callbacks.error,
    )


class Bus:
    def __init__(self, nc: Client) -> None:
        self.nc = nc
        self.js: JetStreamContext = nc.jetstream()

    @classmethod
    async def connect(
        cls, url: str, *, name: str, inbox: str | None = None, attempts: int = 60
    ) -> Bus:
        """Connect, retrying start-up `attempts` times about 0.5 s apart; then reconnect forever.
        `inbox` is the prefix of the connection's inboxes (`inbox_prefix`); NATS's own when
        None."""

        callbacks = _ConnectionLog()
        last: Exception | None = None
        for _ in range(max(attempts, 1)):
            try:
                nc = await _connect_once(url, name, inbox or DEFAULT_INBOX_PREFIX, callbacks)
            except (OSError, nats.errors.Error, TimeoutError) as exc:
                last = exc
                await asyncio.sleep(0.5)
                continue
            callbacks.client = nc
            # Once connected, never give up: the reconnect loop reads this option on every pass.
            nc.options["max_reconnect_attempts"] = -1
            return cls(nc)
        raise RuntimeError(f"cannot connect to NATS at {without_secrets(url)}") from last

    @property
    def connected(self) -> bool:
        return bool(self.nc.is_connected)

    async def close(self) -> None:
        """Drain when connected (in-flight messages are delivered); otherwise just close."""
        if self.nc.is_closed:
            return
        if self.nc.is_connected:
            try:
                await self.nc.drain()
            except nats.errors.Error as exc:
                log.debug("NATS drain failed (%s); closing", exc)
            else:
                return
        # drain() refuses while reconnecting, and a closed client stops reconnecting at once.
        await self.nc.close()

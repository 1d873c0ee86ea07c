"""The NATS connection of a service process: reconnects forever, and knows its JetStream context."""

from __future__ import annotations

import asyncio
import logging

import nats
from nats.aio.client import Client
from nats.js import JetStreamContext

log = logging.getLogger("redline.bus")


class Bus:
    def __init__(self, nc: Client) -> None:
        self.nc = nc
        self.js: JetStreamContext = nc.jetstream()

    @classmethod
    async def connect(cls, url: str, *, name: str, attempts: int = 60) -> Bus:
        """Connect, retrying start-up `attempts` times 0.5 s apart; then reconnect forever."""

        async def disconnected() -> None:
            log.warning("NATS disconnected; reconnecting")

        async def reconnected() -> None:
            log.info("NATS reconnected")

        async def error(exc: Exception) -> None:
            log.debug("NATS error: %s", exc)

        last: Exception | None = None
        for _ in range(attempts):
            try:
                nc = await nats.connect(
                    url,
                    name=name,
                    max_reconnect_attempts=-1,
                    reconnect_time_wait=0.25,
                    connect_timeout=2,
                    disconnected_cb=disconnected,
                    reconnected_cb=reconnected,
                    error_cb=error,
                )
                return cls(nc)
            except (OSError, nats.errors.NoServersError, TimeoutError) as exc:
                last = exc
                await asyncio.sleep(0.5)
        raise RuntimeError(f"cannot connect to NATS at {url}") from last

    @property
    def connected(self) -> bool:
        return bool(self.nc.is_connected)

    async def close(self) -> None:
        if not self.nc.is_closed:
            await self.nc.drain()

"""The delivery worker's upkeep beside its sends: renewing the leases of the claims it holds, and
purging what the queue no longer needs."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence

from redline.notify.deliveries import storage
from redline.pg import Pool

log = logging.getLogger("redline.notify.worker")

# How often finished deliveries past retention are deleted.
PURGE_INTERVAL_S = 600.0
# A receiver's rate slot free for this long is forgotten (its next send takes a slot at once
# either way).
RATE_IDLE_S = 3600.0


async def renew_leases_forever(
    pool: Pool, held: Callable[[], Sequence[tuple[int, str]]], lease_s: float
) -> None:
    """Claims waiting for a slow receiver (or for its rate) outlive one lease: renew the claims
    (id, claim token) `held` names well before it ends, so that no other worker takes (and
    sends) a delivery this one still holds."""
    while True:
        await asyncio.sleep(lease_s / 3)
        claims = held()
        if not claims:
            continue
        try:
            async with pool.acquire() as conn:
                await storage.extend_leases(conn, claims, lease_s)
        except Exception as exc:
            log.warning("cannot renew delivery leases (%s)", exc)


async def purge_forever(pool: Pool, retention_s: float) -> None:
    """Delete finished deliveries past retention, the claim's places of URLs with nothing
    waiting, how far numbered lines that ended past retention got, and receivers' rate slots
    long idle, now and then; every replica may, since a delete of rows already gone does
    nothing."""
    while True:
        try:
            async with pool.acquire() as conn:
                while await storage.purge_finished(conn, retention_s) > 0:
                    pass
                await storage.forget_idle_turns(conn)
                await storage.forget_ended_lines(conn, retention_s)
                await storage.forget_idle_rates(conn, RATE_IDLE_S)
        except Exception as exc:
            log.warning("cannot purge old deliveries (%s)", exc)
        await asyncio.sleep(PURGE_INTERVAL_S)

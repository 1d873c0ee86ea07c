"""The SQL of receivers' own rates (see `rates`): sending slots, taken one at a time."""

from __future__ import annotations

import datetime as dt
from typing import NamedTuple

from redline.pg import Connection


class Slot(NamedTuple):
    at: dt.datetime  # the database's clock
    wait_s: float  # from now until then; 0 when the slot is now


async def take_slot(conn: Connection, receiver: str, gap_s: float) -> Slot:
    """The receiver's next free sending slot (now, if it has been idle for `gap_s`), the one after
    it moved `gap_s` on. Rows are locked one at a time, so concurrent senders of any replica
    get slots `gap_s` apart."""
    row = await conn.fetchrow(
        """
        INSERT INTO notify.delivery_rate AS r (receiver, next_at)
        VALUES ($1, clock_timestamp() + make_interval(secs => $2))
        ON CONFLICT (receiver) DO UPDATE
            SET next_at = greatest(r.next_at, clock_timestamp()) + make_interval(secs => $2)
        RETURNING next_at - make_interval(secs => $2) AS slot,
                  greatest(0, extract(epoch FROM next_at - make_interval(secs => $2)
                                                 - clock_timestamp()))::float8 AS wait_s
        """,
        receiver,
        gap_s,
    )
    assert row is not None
    return Slot(row["slot"], row["wait_s"])


async def forget_idle_rates(conn: Connection, idle_s: float) -> int:
    """Forget receivers whose next slot has been free for more than `idle_s`: their next send
    takes a slot at once either way."""
    status = await conn.execute(
        "DELETE FROM notify.delivery_rate"
        " WHERE next_at < clock_timestamp() - make_interval(secs => $1)",
        idle_s,
    )
    return int(status.split()[-1])

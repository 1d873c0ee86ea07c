"""Statements planned for their actual parameters on every execution.

asyncpg prepares each statement once per connection, and after five executions PostgreSQL may
keep one generic plan for it. A generic plan made while a table was small (a queue just after
start, say) stays in use as the table grows, until the next ANALYZE invalidates it: a join that
was cheapest as a sequential scan of a few pages then scans the whole table on every call.
Statements whose best plan depends on the table's size at the time, and on how many rows the
parameters name, run inside `custom_plans`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from redline.pg.pool import Connection

# For a simple-protocol prologue that already opens a transaction.
SET_CUSTOM_PLANS = "SET LOCAL plan_cache_mode = force_custom_plan"


@contextlib.asynccontextmanager
async def custom_plans(conn: Connection, *also: str) -> AsyncIterator[None]:
    """A transaction in which every statement is planned for its parameters; `also` are further
    `SET LOCAL` statements for it, sent in the same round trip."""
    async with conn.transaction():
        await conn.execute("; ".join([SET_CUSTOM_PLANS, *also]))
        yield

"""A holder's number is live exactly while its process's session lasts; a lost session is made
again under a new number."""

from __future__ import annotations

import asyncio

import asyncpg

from redline.pg import LIVE_HOLDERS, holding


async def live_numbers(database_url: str) -> set[int]:
    conn = await asyncpg.connect(database_url)
    try:
        return {row[0] for row in await conn.fetch(LIVE_HOLDERS)}
    finally:
        await conn.close()


async def test_a_number_is_live_while_its_holder_lives(database_url: str) -> None:
    async with holding(database_url) as first, holding(database_url) as second:
        assert {first.number, second.number} <= await live_numbers(database_url)
        gone = second.number
    assert gone not in await live_numbers(database_url)


async def test_a_lost_session_is_made_again_and_its_old_number_is_dead(database_url: str) -> None:
    async with holding(database_url) as holder:
        old = holder.number
        conn = await asyncpg.connect(database_url)
        try:
            # What a restart of PostgreSQL does to every session.
            await conn.execute("SELECT pg_terminate_backend($1)", old)
        finally:
            await conn.close()
        async with asyncio.timeout(10):
            while holder.number == old:  # noqa: ASYNC110 (its own task replaces it)
                await asyncio.sleep(0.05)
        live = await live_numbers(database_url)
        assert holder.number in live
        assert old not in live

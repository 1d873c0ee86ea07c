"""Events as a service published them: read off the EVENTS stream once the service's outbox
relay has published everything committed so far (the relay deletes what it published)."""

from __future__ import annotations

import asyncio
import time

import asyncpg
import nats
from nats.js.errors import NotFoundError

from redline.pg.names import schema_name
from redline.proto.subjects import STREAM

RELAY_TIMEOUT_S = 10.0


async def published(database_url: str, nats_url: str, schema: str) -> list[tuple[str, bytes]]:
    """(subject, payload) of every event of `schema`'s service on the stream, oldest first."""
    outbox = f"{schema_name(schema)}.outbox"
    conn = await asyncpg.connect(database_url)
    try:
        deadline = time.monotonic() + RELAY_TIMEOUT_S
        while await conn.fetchval(f"SELECT count(*) FROM {outbox}"):  # noqa: S608
            assert time.monotonic() < deadline, f"events left unpublished in {outbox}"
            await asyncio.sleep(0.02)
    finally:
        await conn.close()
    nc = await nats.connect(nats_url)
    try:
        js = nc.jetstream()
        state = (await js.stream_info(STREAM)).state
        found: list[tuple[str, bytes]] = []
        if not state.messages:
            return found
        for seq in range(state.first_seq, state.last_seq + 1):
            try:
                message = await js.get_msg(STREAM, seq)
            except NotFoundError:  # a gap: nothing stored at that sequence
                continue
            if message.subject is not None and message.subject.startswith(f"evt.{schema}."):
                found.append((message.subject, message.data or b""))
        return found
    finally:
        await nc.close()

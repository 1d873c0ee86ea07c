"""A cache dropped by announcements heard on core NATS: the named key's entries for an event of
the kinds given, nothing for another kind, everything for a message no code here can read."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from redline.bus import Bus
from redline.proto.events import AccessChanged, KeyRevoked, encode_event
from redline.runtime.announcements import DroppedOnAnnouncements
from redline.runtime.cache import TtlCache

SUBJECTS = ("evt.identity.key.revoked", "evt.identity.access.changed")


@pytest.fixture
async def bus(nats_url: str) -> AsyncIterator[Bus]:
    connected = await Bus.connect(nats_url, name="test-announcements")
    yield connected
    await connected.close()


@pytest.fixture
async def cache(bus: Bus) -> AsyncIterator[TtlCache[tuple[str, str], int]]:
    entries: TtlCache[tuple[str, str], int] = TtlCache(60.0)
    for key in (("key1", "a"), ("key1", "b"), ("key2", "a")):
        entries.put(key, 1)
    forgetting = DroppedOnAnnouncements(bus, SUBJECTS, (KeyRevoked,), entries, lambda k: k[0])
    await forgetting.start()
    yield entries
    await forgetting.stop()


async def publish(bus: Bus, subject: str, payload: bytes) -> None:
    await bus.nc.publish(subject, payload)
    await bus.nc.flush()
    await asyncio.sleep(0.1)


def kept(cache: TtlCache[tuple[str, str], int]) -> list[tuple[str, str]]:
    keys = [("key1", "a"), ("key1", "b"), ("key2", "a")]
    return [key for key in keys if cache.get(key) is not None]


async def test_an_announced_event_drops_its_keys_entries(
    bus: Bus, cache: TtlCache[tuple[str, str], int]
) -> None:
    other = AccessChanged(workspaceId="ws", apiKey="key1", organizationId="org1")
    await publish(bus, other.subject, encode_event(other))
    assert kept(cache) == [("key1", "a"), ("key1", "b"), ("key2", "a")]

    revoked = KeyRevoked(workspaceId="ws", credential="apiKey", apiKey="key1")
    await publish(bus, revoked.subject, encode_event(revoked))
    assert kept(cache) == [("key2", "a")]


async def test_a_message_no_code_here_reads_drops_everything(
    bus: Bus, cache: TtlCache[tuple[str, str], int]
) -> None:
    await publish(bus, "evt.identity.key.revoked", b'{"type": "identity.from.the.future"}')
    assert kept(cache) == []

"""The EVENTS stream set-up against a real nats-server."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from nats.js.api import StreamConfig

from redline.bus import Bus, ensure_events_stream
from redline.bus.streams import DEDUPE_WINDOW_S
from redline.proto.subjects import STREAM


@pytest.fixture
async def bare(nats_url: str) -> AsyncIterator[Bus]:
    """A connection to a server that has no EVENTS stream yet."""
    bus = await Bus.connect(nats_url, name="stream-tests")
    try:
        yield bus
    finally:
        await bus.close()


async def test_ensuring_twice_keeps_the_subjects_and_the_dedupe_window(bare: Bus) -> None:
    await ensure_events_stream(bare.js)
    await ensure_events_stream(bare.js)

    config = (await bare.js.stream_info(STREAM)).config
    assert config.subjects == ["evt.>"]
    assert config.duplicate_window == DEDUPE_WINDOW_S


async def test_a_drifted_stream_is_brought_back_to_the_configuration(bare: Bus) -> None:
    await bare.js.add_stream(
        StreamConfig(name=STREAM, subjects=["evt.>", "stray.>"], duplicate_window=1)
    )
    await ensure_events_stream(bare.js)

    config = (await bare.js.stream_info(STREAM)).config
    assert config.subjects == ["evt.>"]
    assert config.duplicate_window == DEDUPE_WINDOW_S


async def test_a_message_id_published_twice_is_stored_once(bare: Bus) -> None:
    await ensure_events_stream(bare.js)

    first = await bare.js.publish("evt.x", b"1", headers={"Nats-Msg-Id": "same"})
    again = await bare.js.publish("evt.x", b"1", headers={"Nats-Msg-Id": "same"})

    assert not first.duplicate
    assert again.duplicate
    assert (await bare.js.stream_info(STREAM)).state.messages == 1

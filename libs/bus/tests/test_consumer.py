"""Durable consumers against a real nats-server, with handlers that dedupe in real PostgreSQL."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from nats.js.api import AckPolicy, ConsumerConfig

from redline.bus import BatchConsumer, DurableConsumer, OutboxRelay
from redline.bus.pull import Puller
from redline.local.servers import LocalNats
from redline.proto import request_context
from redline.proto.events import ApiKeyCreated, Event, KeyRevoked, WorkspaceCreated, decode_event
from redline.proto.request_context import REQUEST_ID_HEADER
from redline.proto.subjects import STREAM

if TYPE_CHECKING:
    from conftest import Harness


async def test_a_failing_handler_gets_the_event_again_and_succeeds_later(harness: Harness) -> None:
    events = harness.events(3)
    flaky_id = events[1].id
    attempts: Counter[str] = Counter()
    record = harness.handler("flaky")

    async def handler(event: Event) -> None:
        attempts[event.id] += 1
        if event.id == flaky_id and attempts[event.id] == 1:
            raise RuntimeError("a dependency was briefly down")
        await record(event)

    async def all_handled() -> bool:
        return await harness.effect_count() == 3

    consumer = DurableConsumer(harness.bus.js, "flaky", handler, retry_delay_s=0.1)
    async with harness.running(consumer.run()):
        await harness.publish(events)
        await harness.eventually(all_handled, what="3 effects")

    assert sorted(event_id for event_id, _ in await harness.effects()) == sorted(
        event.id for event in events
    )
    assert attempts == {events[0].id: 1, flaky_id: 2, events[2].id: 1}


async def test_an_undecodable_message_is_terminated_and_does_not_block_later_events(
    harness: Harness,
) -> None:
    good = harness.events(2)
    seen: list[Event] = []
    record = harness.handler("strict")

    async def handler(event: Event) -> None:
        seen.append(event)
        await record(event)

    async def good_handled() -> bool:
        return await harness.effect_count() == 2

    consumer = DurableConsumer(harness.bus.js, "strict", handler, retry_delay_s=0.05)
    async with harness.running(consumer.run()):
        await harness.bus.js.publish("evt.x", b"{not an event")
        await harness.publish(good)
        await harness.eventually(good_handled, what="events after the bad one")
        await asyncio.sleep(0.5)  # ten retry delays: a nak'd message would be back by now

    assert seen == good
    info = await harness.bus.js.consumer_info(STREAM, "strict")
    assert info.num_ack_pending == 0
    assert info.num_redelivered == 0
    assert info.num_pending == 0


async def test_an_event_that_always_fails_does_not_hold_back_its_batch(harness: Harness) -> None:
    events = harness.events(5)
    poison = events[2].id
    batches: list[list[str]] = []
    record = harness.handler("batched")

    async def handler(batch: list[Event]) -> None:
        batches.append([event.id for event in batch])
        if any(event.id == poison for event in batch):
            raise ValueError("no code here can handle this event")
        for event in batch:
            await record(event)

    async def others_handled() -> bool:
        return await harness.effect_count() == 4

    async def poison_retried() -> bool:
        return sum(batch == [poison] for batch in batches) >= 3

    consumer = BatchConsumer(harness.bus.js, "batched", handler, retry_delay_s=0.05)
    async with harness.running(consumer.run()):
        await harness.publish(events)
        await harness.eventually(others_handled, what="the events beside the failing one")
        await harness.eventually(poison_retried, what="the failing event retried alone")

    assert sorted(event_id for event_id, _ in await harness.effects()) == sorted(
        event.id for event in events if event.id != poison
    )
    # After the first batch that held it failed, the failing event only ever came alone.
    with_poison = [batch for batch in batches if poison in batch]
    assert all(batch == [poison] for batch in with_poison[1:])


async def test_a_batch_that_fails_for_every_event_is_given_back_after_a_few_alone(
    harness: Harness,
) -> None:
    events = harness.events(10)
    calls: list[list[str]] = []
    limit = BatchConsumer.ALONE_FAILURES_IN_A_ROW

    async def handler(batch: list[Event]) -> None:
        calls.append([event.id for event in batch])
        raise ConnectionError("the database is down")

    async def all_back() -> bool:
        return {i for call in calls[1 + limit :] for i in call} == {e.id for e in events}

    # Published before the consumer starts, so that its first fetch takes all ten.
    await harness.publish(events)
    consumer = BatchConsumer(harness.bus.js, "all-fail", handler, retry_delay_s=0.05)
    async with harness.running(consumer.run()):
        await harness.eventually(all_back, what="every event delivered again")

    # The batch, then its first three events alone; the other seven were given back untried,
    # and came back with the three, not one by one.
    assert calls[: 1 + limit] == [[e.id for e in events], *([e.id] for e in events[:limit])]
    assert calls[1 + limit] != [events[limit].id]


async def test_the_consumer_keeps_consuming_across_a_nats_restart(
    harness: Harness, nats_server: LocalNats
) -> None:
    before, after = harness.events(5, "before"), harness.events(5, "after")
    relay = OutboxRelay(harness.pool, harness.bus.js, [harness.schema], poll_interval_s=0.2)
    consumer = DurableConsumer(harness.bus.js, "survivor", harness.handler("survivor"))

    def handled(count: int) -> Callable[[], Awaitable[bool]]:
        async def check() -> bool:
            return await harness.effect_count() == count

        return check

    async with harness.running(relay.run(), consumer.run()):
        await harness.write(before)
        await harness.eventually(handled(5), what="events before the restart")

        nats_server.stop()
        nats_server.start()
        await harness.write(after)
        await harness.eventually(handled(10), timeout_s=30, what="events after the restart")

    assert sorted(event_id for event_id, _ in await harness.effects()) == sorted(
        event.id for event in before + after
    )


async def test_a_deleted_durable_is_created_again(harness: Harness) -> None:
    consumer = DurableConsumer(harness.bus.js, "phoenix", harness.handler("phoenix"))

    def handled(count: int) -> Callable[[], Awaitable[bool]]:
        async def check() -> bool:
            return await harness.effect_count() == count

        return check

    first, second = harness.events(1, "first"), harness.events(1, "second")
    async with harness.running(consumer.run()):
        await harness.publish(first)
        await harness.eventually(handled(1), what="the first event")
        await harness.bus.js.delete_consumer(STREAM, "phoenix")
        await harness.publish(second)
        await harness.eventually(handled(2), what="an event after the deletion")

    # The new durable starts from the top of the stream; the inbox keeps that harmless.
    assert sorted(event_id for event_id, _ in await harness.effects()) == sorted(
        event.id for event in first + second
    )


async def test_two_instances_of_one_durable_share_the_work_without_double_handling(
    harness: Harness,
) -> None:
    events = harness.events(200)
    calls: Counter[str] = Counter()

    def instance(tag: str) -> DurableConsumer:
        record = harness.handler("shared", tag)

        async def handler(event: Event) -> None:
            calls[tag] += 1
            await asyncio.sleep(0.002)  # some work, so neither instance drains the stream alone
            await record(event)

        return DurableConsumer(harness.bus.js, "shared", handler, batch_size=10)

    async def all_handled() -> bool:
        return await harness.effect_count() == 200

    async with harness.running(instance("one").run(), instance("two").run()):
        await harness.publish(events)
        await harness.eventually(all_handled, what="200 effects")
        await asyncio.sleep(0.3)

    effects = await harness.effects()
    assert sorted(event_id for event_id, _ in effects) == sorted(event.id for event in events)
    assert {tag for _, tag in effects} == {"one", "two"}
    assert calls["one"] + calls["two"] == 200  # no message went to both


async def test_several_filter_subjects_select_what_the_consumer_sees(harness: Harness) -> None:
    workspace = WorkspaceCreated(workspaceId="w1", ownerEmail="o@example.com", name="W")
    key = ApiKeyCreated(workspaceId="w1", apiKey="k1", apiKeyName="ci", keyType="server")
    revoked = KeyRevoked(workspaceId="w1", credential="apiKey", apiKey="k1")
    seen: list[Event] = []

    async def handler(event: Event) -> None:
        seen.append(event)

    async def both_seen() -> bool:
        return len(seen) == 2

    consumer = DurableConsumer(
        harness.bus.js,
        "keys",
        handler,
        filter_subjects=["evt.identity.apikey.>", "evt.identity.key.>"],
    )
    async with harness.running(consumer.run()):
        await harness.publish([workspace, key, revoked])
        await harness.eventually(both_seen, what="the two key events")
        await asyncio.sleep(0.2)

    assert seen == [key, revoked]


async def test_an_existing_durable_is_brought_to_the_new_filter(harness: Harness) -> None:
    await harness.bus.js.add_consumer(
        STREAM,
        ConsumerConfig(
            name="evolving",
            durable_name="evolving",
            ack_policy=AckPolicy.EXPLICIT,
            filter_subject="evt.identity.workspace.>",
        ),
    )
    key = ApiKeyCreated(workspaceId="w1", apiKey="k1", apiKeyName="ci", keyType="server")
    seen: list[Event] = []

    async def handler(event: Event) -> None:
        seen.append(event)

    async def key_seen() -> bool:
        return seen == [key]

    consumer = DurableConsumer(
        harness.bus.js, "evolving", handler, filter_subjects=["evt.identity.apikey.>"]
    )
    async with harness.running(consumer.run()):
        await harness.publish([key])
        await harness.eventually(key_seen, what="the event the new filter selects")

    info = await harness.bus.js.consumer_info(STREAM, "evolving")
    assert info.config.filter_subject == "evt.identity.apikey.>"


async def test_closing_the_bus_after_stopping_a_consumer_does_not_wait_for_the_drain_timeout(
    harness: Harness,
) -> None:
    consumer = DurableConsumer(harness.bus.js, "closing", harness.handler("closing"))
    async with harness.running(consumer.run()):
        await harness.publish(harness.events(1))

        async def handled() -> bool:
            return await harness.effect_count() == 1

        await harness.eventually(handled, what="one effect")

    await asyncio.wait_for(harness.bus.close(), 3)
    assert harness.bus.nc.is_closed


async def test_the_jetstream_context_still_holds_what_the_puller_is_built_from(
    harness: Harness,
) -> None:
    """The consumer reads nats-py's private `_nc` and `_prefix` of the JetStream context (nats-py
    has no public accessor for either): this fails when a nats-py release renames them or changes
    what they hold."""
    nc, js = harness.bus.nc, harness.bus.js
    assert js._nc is nc
    assert js._prefix == "$JS.API"
    assert nc.jetstream(domain="hub")._prefix == "$JS.hub.API"
    assert nc.jetstream(prefix="$JS.other.API")._prefix == "$JS.other.API"

    config = ConsumerConfig(durable_name="contract", ack_policy=AckPolicy.EXPLICIT)
    await js.add_consumer(STREAM, config)
    [event] = harness.events(1)
    await harness.publish([event])
    puller = Puller(js._nc, STREAM, "contract", js._prefix)
    await puller.start()
    try:
        [message] = await puller.fetch(10, 5.0)
    finally:
        await puller.stop()
    assert decode_event(message.data) == event


def current_context() -> tuple[str | None, str | None]:
    return request_context.request_id.get(), request_context.workspace_id.get()


async def test_a_handler_runs_with_the_request_id_and_workspace_of_its_event(
    harness: Harness,
) -> None:
    from_request, from_background = harness.events(1, "a"), harness.events(1, "b")
    seen: dict[str, tuple[str | None, str | None]] = {}

    async def handler(event: Event) -> None:
        seen[event.id] = current_context()

    async def both_seen() -> bool:
        return len(seen) == 2

    consumer = DurableConsumer(harness.bus.js, "contextual", handler)
    async with harness.running(consumer.run()):
        await harness.publish(from_request, request_id="req-5")
        await harness.publish(from_background)
        await harness.eventually(both_seen, what="both events handled")

    assert seen == {from_request[0].id: ("req-5", "a0"), from_background[0].id: (None, "b0")}


async def test_events_a_handler_writes_go_out_with_the_request_id_of_the_event_it_handled(
    harness: Harness,
) -> None:
    [cause] = harness.events(1, "cause")
    [effect] = harness.events(1, "effect")

    async def handler(event: Event) -> None:
        if event.id == cause.id:
            await harness.write([effect])

    async def effect_published() -> bool:
        return await harness.stream_count() == 2

    relay = OutboxRelay(harness.pool, harness.bus.js, [harness.schema])
    consumer = DurableConsumer(harness.bus.js, "chained", handler)
    async with harness.running(consumer.run(), relay.run()):
        await harness.publish([cause], request_id="req-chain")
        await harness.eventually(effect_published, what="the handler's event on the stream")

    message = await harness.bus.js.get_msg(STREAM, 2)
    assert message.headers is not None
    assert message.headers["Nats-Msg-Id"] == effect.id
    assert message.headers[REQUEST_ID_HEADER] == "req-chain"


async def test_a_batch_has_no_request_context_but_an_event_handled_alone_has_its_own(
    harness: Harness,
) -> None:
    events = harness.events(3)
    calls: list[tuple[int, tuple[str | None, str | None]]] = []

    async def handler(batch: list[Event]) -> None:
        calls.append((len(batch), current_context()))
        if len(batch) > 1:
            raise ConnectionError("the batch's statement failed")

    async def each_handled_alone() -> bool:
        return len(calls) == 4

    # Published before the consumer starts, so that its first fetch takes all three.
    for number, event in enumerate(events):
        await harness.publish([event], request_id=f"req-{number}")
    consumer = BatchConsumer(harness.bus.js, "batch-context", handler, retry_delay_s=0.05)
    async with harness.running(consumer.run()):
        await harness.eventually(each_handled_alone, what="the batch, then each event alone")

    assert calls == [
        (3, (None, None)),
        (1, ("req-0", "ws0")),
        (1, ("req-1", "ws1")),
        (1, ("req-2", "ws2")),
    ]


async def test_a_batch_of_one_event_runs_with_its_request_context(harness: Harness) -> None:
    [event] = harness.events(1)
    seen: list[tuple[str | None, str | None]] = []

    async def handler(batch: list[Event]) -> None:
        seen.append(current_context())

    async def handled() -> bool:
        return len(seen) == 1

    consumer = BatchConsumer(harness.bus.js, "batch-of-one", handler)
    async with harness.running(consumer.run()):
        await harness.publish([event], request_id="req-single")
        await harness.eventually(handled, what="the event handled")

    assert seen == [("req-single", "ws0")]

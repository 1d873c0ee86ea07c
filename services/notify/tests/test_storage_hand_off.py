"""Deliveries handed to a worker by the statement that queues them, against a real database:
only those whose line has nothing queued, within the places offered and the cap across
replicas, each line's start before its rest; everything else waits in the queue as before."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from redline.notify.deliveries import storage
from redline.notify.deliveries.storage import ClaimedDelivery, HandOff, NewDelivery
from redline.pg import Pool
from services.notify.tests.delivery_rows import (
    OTHER_URL,
    URL,
    claim,
    enqueue,
    ids,
    new,
    record,
    result,
    row,
)


def offer(places: Mapping[str, int], *, cap: int = 100, token: str = "t1") -> HandOff:  # noqa: S107 (a claim token)
    return HandOff(places=places, per_url_limit=cap, token=token, holder=7, lease_s=60.0)


async def hand_off(
    pool: Pool, deliveries: Sequence[NewDelivery], hand: HandOff
) -> list[ClaimedDelivery]:
    async with pool.acquire() as conn:
        return await storage.enqueue_handing_off(conn, deliveries, hand)


async def test_a_delivery_whose_line_is_empty_is_handed_over_claimed(pool: Pool) -> None:
    [handed] = await hand_off(pool, [new("a")], offer({URL: 8}))

    assert (handed.webhook_id, handed.body, handed.attempts) == ("a", new("a").body, 0)
    stored = await row(pool, "a")
    assert (stored["state"], stored["claim_token"], stored["holder"]) == ("sending", "t1", 7)
    assert stored["lease_until"] is not None
    # Nothing is left for a claim; its result is recorded as a claimed one's would be.
    assert await claim(pool) == []
    await record(pool, result(handed, "succeeded"))
    assert (await row(pool, "a"))["state"] == "succeeded"


async def test_a_line_with_anything_queued_gets_nothing_handed_over(pool: Pool) -> None:
    await enqueue(pool, [new("queued", key="busy")])

    handed = await hand_off(
        pool, [new("behind", key="busy"), new("free", key="idle")], offer({URL: 8})
    )

    # The idle line's delivery goes at once; the busy line's waits behind what it has queued.
    assert ids(handed) == ["free"]
    assert (await row(pool, "behind"))["state"] == "pending"
    assert ids(await claim(pool)) == ["queued"]


async def test_a_line_in_flight_or_waiting_for_its_held_retry_gets_nothing(pool: Pool) -> None:
    await enqueue(pool, [new("flying", key="a"), new("held", key="b", held=True)])
    flying, held = sorted(await claim(pool), key=lambda d: d.webhook_id)
    await record(pool, result(held, "pending", status=500, retry_in_s=60))

    handed = await hand_off(pool, [new("a2", key="a"), new("b2", key="b")], offer({URL: 8}))

    assert handed == []
    assert flying.webhook_id == "flying"
    assert [(await row(pool, n))["state"] for n in ("a2", "b2")] == ["pending", "pending"]


async def test_places_are_taken_oldest_first_and_a_line_keeps_its_start(pool: Pool) -> None:
    batch = [new("k1-1", key="k1"), new("k2-1", key="k2"), new("k1-2", key="k1")]

    handed = await hand_off(pool, batch, offer({URL: 2}))

    # Two places: the first two in the batch; the first line's second waits behind its first.
    assert ids(handed) == ["k1-1", "k2-1"]
    assert (await row(pool, "k1-2"))["state"] == "pending"
    assert await claim(pool) == []  # k1's start is in flight: its rest may not overtake it
    [k1_first] = [d for d in handed if d.webhook_id == "k1-1"]
    await record(pool, result(k1_first, "succeeded"))
    assert ids(await claim(pool)) == ["k1-2"]


async def test_a_run_of_one_line_is_handed_over_in_order(pool: Pool) -> None:
    handed = await hand_off(pool, [new(f"d{i}") for i in range(3)], offer({URL: 8}))

    assert [d.webhook_id for d in sorted(handed, key=lambda d: d.id)] == ["d0", "d1", "d2"]


async def test_the_cap_across_replicas_counts_what_others_hold(pool: Pool) -> None:
    await enqueue(pool, [new("other-replica", key="x")])
    assert len(await claim(pool)) == 1

    handed = await hand_off(pool, [new("a", key="a"), new("b", key="b")], offer({URL: 8}, cap=2))

    assert ids(handed) == ["a"]
    assert (await row(pool, "b"))["state"] == "pending"


async def test_only_offered_urls_are_handed_over(pool: Pool) -> None:
    handed = await hand_off(
        pool, [new("here", url=URL), new("there", url=OTHER_URL)], offer({URL: 8})
    )

    assert ids(handed) == ["here"]
    assert ids(await claim(pool)) == ["there"]


async def test_unsendable_numbered_and_known_deliveries_are_not_handed_over(pool: Pool) -> None:
    await enqueue(pool, [new("known", key="k")])
    numbered = NewDelivery(**{**msgspec.structs.asdict(new("numbered", key="n")), "line_seq": 1})
    batch = [new("known", key="k"), numbered, new("broken", key="b", failed_error="no key")]

    handed = await hand_off(pool, batch, offer({URL: 8}))

    assert handed == []
    assert (await row(pool, "broken"))["state"] == "failed"
    assert (await row(pool, "numbered"))["state"] == "pending"
    assert (await row(pool, "known"))["claim_token"] is None


async def test_a_hand_off_given_back_by_its_token_is_queued_again(pool: Pool) -> None:
    await hand_off(pool, [new("a")], offer({URL: 8}, token="lost"))

    async with pool.acquire() as conn:
        assert await storage.release_claim(conn, "lost") == 1

    assert ids(await claim(pool)) == ["a"]

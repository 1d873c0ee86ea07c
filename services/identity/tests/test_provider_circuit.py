"""The circuit of a key's permission provider: its pool of calls, and its breaker (closed, open
for the cool-down, half-open with one probe). Time is a clock the test moves."""

from __future__ import annotations

import asyncio

from redline.identity.provider.circuit import Lease, ProviderCircuits

A = ("key-a", "https://a.example.com/perms")
B = ("key-b", "https://b.example.com/perms")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def circuits(clock: Clock, **changes: float) -> ProviderCircuits:
    settings: dict[str, float] = {
        "concurrency": 2,
        "queue_wait_s": 0,
        "failures_to_open": 3,
        "cooldown_s": 10,
        **changes,
    }
    return ProviderCircuits(
        concurrency=int(settings["concurrency"]),
        queue_wait_s=settings["queue_wait_s"],
        failures_to_open=int(settings["failures_to_open"]),
        cooldown_s=settings["cooldown_s"],
        max_circuits=int(settings.get("max_circuits", 10_000)),
        clock=clock,
    )


async def fail(c: ProviderCircuits, key: tuple[str, str], times: int) -> None:
    for _ in range(times):
        lease = await c.lease(key)
        assert lease is not None
        lease.failed()
        lease.release()


async def test_a_key_makes_no_more_calls_at_once_than_its_pool_holds() -> None:
    c = circuits(Clock())
    held = [await c.lease(A), await c.lease(A)]

    beyond = await c.lease(A)
    other_key = await c.lease(B)
    assert held[0] is not None
    held[0].release()
    freed = await c.lease(A)

    assert beyond is None
    assert other_key is not None
    assert freed is not None


async def test_a_check_beyond_the_pool_gets_the_call_another_releases_while_it_waits() -> None:
    c = circuits(Clock(), concurrency=1, queue_wait_s=60)
    first = await c.lease(A)
    assert first is not None

    waiting = asyncio.create_task(c.lease(A))
    await asyncio.sleep(0)
    first.release()
    second = await waiting

    assert isinstance(second, Lease)


async def test_after_enough_failures_in_a_row_the_breaker_opens() -> None:
    clock = Clock()
    c = circuits(clock)
    await fail(c, A, 2)
    still_closed = await c.lease(A)
    assert still_closed is not None
    still_closed.failed()
    still_closed.release()

    opened = await c.lease(A)
    clock.now += 9.9
    before_cool_down_ends = await c.lease(A)
    other_key = await c.lease(B)

    assert opened is None
    assert before_cool_down_ends is None
    assert other_key is not None


async def test_a_success_between_failures_starts_the_count_again() -> None:
    c = circuits(Clock())
    await fail(c, A, 2)
    lease = await c.lease(A)
    assert lease is not None
    lease.succeeded()
    lease.release()
    await fail(c, A, 2)

    assert await c.lease(A) is not None


async def test_after_the_cool_down_one_check_probes_and_a_good_answer_closes_the_breaker() -> None:
    clock = Clock()
    c = circuits(clock)
    await fail(c, A, 3)
    clock.now += 10

    probe = await c.lease(A)
    during_probe = await c.lease(A)
    assert probe is not None
    probe.succeeded()
    probe.release()
    after = [await c.lease(A), await c.lease(A)]

    assert during_probe is None
    assert None not in after


async def test_a_failed_probe_opens_the_breaker_for_another_cool_down() -> None:
    clock = Clock()
    c = circuits(clock)
    await fail(c, A, 3)
    clock.now += 10
    await fail(c, A, 1)

    right_after = await c.lease(A)
    clock.now += 9.9
    still_open = await c.lease(A)
    clock.now += 0.1
    next_probe = await c.lease(A)

    assert right_after is None
    assert still_open is None
    assert next_probe is not None


async def test_a_probe_that_never_reports_lets_another_check_probe() -> None:
    clock = Clock()
    c = circuits(clock)
    await fail(c, A, 3)
    clock.now += 10
    probe = await c.lease(A)
    assert probe is not None

    probe.release()
    next_probe = await c.lease(A)

    assert next_probe is not None


async def test_a_check_waiting_for_a_call_does_not_call_once_the_breaker_opened() -> None:
    c = circuits(Clock(), concurrency=1, queue_wait_s=60, failures_to_open=1)
    first = await c.lease(A)
    assert first is not None

    waiting = asyncio.create_task(c.lease(A))
    await asyncio.sleep(0)
    first.failed()
    first.release()

    assert await waiting is None


async def test_releasing_twice_frees_one_call_only() -> None:
    c = circuits(Clock(), concurrency=1)
    lease = await c.lease(A)
    assert lease is not None

    lease.release()
    lease.release()
    taken = await c.lease(A)

    assert taken is not None
    assert await c.lease(A) is None


async def test_circuits_are_bounded_and_idle_ones_are_forgotten_first() -> None:
    clock = Clock()
    c = circuits(clock, concurrency=1, max_circuits=2, failures_to_open=1)
    busy = await c.lease(A)
    await fail(c, B, 1)  # B's breaker is open, and idle

    third = await c.lease(("key-c", "https://c.example.com/perms"))

    assert busy is not None
    assert third is not None
    # A kept its circuit: its one call is still taken.
    assert await c.lease(A) is None

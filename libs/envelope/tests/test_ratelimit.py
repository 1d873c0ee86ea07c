from __future__ import annotations

import pytest

from redline.envelope import RateLimiter, Tier
from redline.envelope.errors import ResourceExhausted


async def hits_allowed(limiter: RateLimiter, tier: Tier, key: str, attempts: int) -> int:
    allowed = 0
    for _ in range(attempts):
        try:
            await limiter.hit(tier, key)
        except ResourceExhausted:
            continue
        allowed += 1
    return allowed


async def test_requests_up_to_the_limit_pass_then_the_next_is_refused() -> None:
    limiter = RateLimiter({Tier.GENERAL: 3})
    for _ in range(3):
        await limiter.hit(Tier.GENERAL, "key_1")

    with pytest.raises(ResourceExhausted) as caught:
        await limiter.hit(Tier.GENERAL, "key_1")

    assert caught.value.message == "Rate limit exceeded. Try again after 1 minute."
    assert 1 <= caught.value.retry_after_s <= 60
    # The window's first request was moments ago, so it frees up about a minute from now.
    assert caught.value.retry_after_s >= 50
    assert caught.value.headers == {"Retry-After": str(caught.value.retry_after_s)}


async def test_refused_requests_keep_being_refused() -> None:
    limiter = RateLimiter({Tier.GENERAL: 2})

    assert await hits_allowed(limiter, Tier.GENERAL, "key_1", 10) == 2


async def test_keys_are_counted_separately() -> None:
    limiter = RateLimiter({Tier.GENERAL: 2})
    await hits_allowed(limiter, Tier.GENERAL, "key_1", 5)

    assert await hits_allowed(limiter, Tier.GENERAL, "key_2", 5) == 2


async def test_tiers_are_counted_separately() -> None:
    limiter = RateLimiter({Tier.GENERAL: 2, Tier.SEARCH: 1})
    await hits_allowed(limiter, Tier.GENERAL, "key_1", 5)

    assert await hits_allowed(limiter, Tier.SEARCH, "key_1", 5) == 1


async def test_limiters_do_not_share_counts() -> None:
    first, second = RateLimiter({Tier.GENERAL: 1}), RateLimiter({Tier.GENERAL: 1})
    await first.hit(Tier.GENERAL, "key_1")

    await second.hit(Tier.GENERAL, "key_1")


async def test_limit_of_zero_means_unlimited() -> None:
    limiter = RateLimiter({Tier.INGEST: 0})

    assert await hits_allowed(limiter, Tier.INGEST, "key_1", 200) == 200


async def test_tier_without_a_limit_is_unlimited() -> None:
    limiter = RateLimiter({Tier.GENERAL: 1})

    assert await hits_allowed(limiter, Tier.SIGNUP, "key_1", 50) == 50


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_the_previous_minute_slides_out_gradually() -> None:
    clock = Clock()
    limiter = RateLimiter({Tier.GENERAL: 10}, clock=clock)
    assert await hits_allowed(limiter, Tier.GENERAL, "k", 10) == 10
    clock.now += 60  # a new window; the last one still counts in full at its start
    assert await hits_allowed(limiter, Tier.GENERAL, "k", 5) == 0
    clock.now += 30  # half of the previous window has slid out: 5 of its 10 still count
    assert await hits_allowed(limiter, Tier.GENERAL, "k", 10) == 5
    clock.now += 90  # long idle: nothing counts any more
    assert await hits_allowed(limiter, Tier.GENERAL, "k", 20) == 10


async def test_retry_after_says_when_a_request_fits_again() -> None:
    clock = Clock()
    limiter = RateLimiter({Tier.GENERAL: 4}, clock=clock)
    assert await hits_allowed(limiter, Tier.GENERAL, "k", 4) == 4
    clock.now += 20
    with pytest.raises(ResourceExhausted) as caught:
        await limiter.hit(Tier.GENERAL, "k")
    wait = caught.value.retry_after_s
    assert 40 <= wait <= 60
    clock.now += wait
    await limiter.hit(Tier.GENERAL, "k")  # fits exactly when promised


async def test_the_least_recently_used_key_is_forgotten_past_the_cap() -> None:
    limiter = RateLimiter({Tier.GENERAL: 1}, max_keys=3)
    for key in ("a", "b", "c"):
        await limiter.hit(Tier.GENERAL, key)
    with pytest.raises(ResourceExhausted):
        await limiter.hit(Tier.GENERAL, "a")  # "a" is now the most recently used

    await limiter.hit(Tier.GENERAL, "d")

    assert limiter.keys == 3
    assert await hits_allowed(limiter, Tier.GENERAL, "b", 1) == 1  # forgotten: counts afresh
    assert await hits_allowed(limiter, Tier.GENERAL, "a", 1) == 0


async def test_keys_idle_for_two_windows_are_swept_as_new_ones_arrive() -> None:
    clock = Clock()
    limiter = RateLimiter({Tier.GENERAL: 5}, clock=clock)
    for n in range(6):
        await limiter.hit(Tier.GENERAL, f"old_{n}")
    clock.now += 120

    for n in range(3):
        await limiter.hit(Tier.GENERAL, f"new_{n}")

    assert limiter.keys == 3  # two idle keys looked at per new key, none left behind


async def test_ipv6_addresses_are_counted_by_their_64_bit_prefix() -> None:
    limiter = RateLimiter({Tier.SIGNUP: 2})
    await limiter.hit(Tier.SIGNUP, "2001:db8:1:2::1")
    await limiter.hit(Tier.SIGNUP, "2001:db8:1:2:ffff:ffff:ffff:9")

    assert await hits_allowed(limiter, Tier.SIGNUP, "2001:db8:1:2::77", 1) == 0
    assert await hits_allowed(limiter, Tier.SIGNUP, "2001:db8:1:3::1", 1) == 1


async def test_an_ipv4_mapped_address_counts_as_the_ipv4_address() -> None:
    limiter = RateLimiter({Tier.AUTH_FAILURES: 1})
    await limiter.count(Tier.AUTH_FAILURES, "::ffff:198.51.100.7")

    with pytest.raises(ResourceExhausted):
        await limiter.check(Tier.AUTH_FAILURES, "198.51.100.7")


async def test_api_keys_that_look_like_addresses_are_not_grouped() -> None:
    limiter = RateLimiter({Tier.GENERAL: 1})
    await limiter.hit(Tier.GENERAL, "2001:db8::1")

    assert await hits_allowed(limiter, Tier.GENERAL, "2001:db8::2", 1) == 1

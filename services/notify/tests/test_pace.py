"""How far ahead of its requests the worker claims for a receiver, from how fast it answers."""

from __future__ import annotations

from redline.notify.deliveries.pace import NAMED_FOR_S, REMEMBERED_URLS, UrlPaces
from redline.notify.deliveries.storage import Wanted

FAST, SLOW = "https://fast.example.com/hook", "https://slow.example.com/hook"


def test_a_receiver_seen_for_the_first_time_gets_its_requests_in_flight() -> None:
    paces = UrlPaces(per_url_limit=8, per_url_window=512)

    assert paces.window(FAST) == 8
    assert paces.wanted({}) == {}
    # One delivery per line: each of its requests carries another document.
    assert paces.wanted({FAST: 3}) == {FAST: Wanted(5, 1)}


def test_a_fast_receiver_gets_a_window_that_lasts_until_the_next_claims() -> None:
    paces = UrlPaces(per_url_limit=8, per_url_window=512)
    paces.observe(FAST, 0.002)

    # Eight requests at 2 ms an answer get through 200 deliveries in 50 ms.
    assert paces.window(FAST) == 200
    # In runs of 25: each of the eight requests can carry a run when the window is full.
    assert paces.wanted({}) == {FAST: Wanted(200, 25)}
    assert paces.wanted({FAST: 150}) == {FAST: Wanted(50, 25)}
    assert paces.wanted({FAST: 250}) == {FAST: Wanted(0, 25)}


def test_the_window_never_passes_the_cap_nor_falls_below_the_requests_in_flight() -> None:
    paces = UrlPaces(per_url_limit=8, per_url_window=128)
    paces.observe(FAST, 0.0001)
    paces.observe(SLOW, 10.0)

    assert paces.window(FAST) == 128
    assert paces.window(SLOW) == 8
    assert paces.wanted({SLOW: 8}) == {FAST: Wanted(128, 16), SLOW: Wanted(0, 1)}


def test_one_slow_answer_narrows_the_window_a_little_a_slow_receiver_soon_to_its_requests() -> None:
    paces = UrlPaces(per_url_limit=8, per_url_window=512)
    paces.observe(FAST, 0.001)
    paces.observe(FAST, 5.0)

    assert 100 < paces.window(FAST) < 400

    for _ in range(4):
        paces.observe(FAST, 5.0)
    assert paces.window(FAST) == 8


def test_a_receiver_back_to_fast_widens_its_window_again() -> None:
    paces = UrlPaces(per_url_limit=8, per_url_window=512)
    paces.observe(SLOW, 2.0)
    # Each answer moves the estimate a quarter of the way: some sixty put it back to 1 ms.
    for _ in range(60):
        paces.observe(SLOW, 0.001)

    assert paces.window(SLOW) == 400


def test_the_least_recently_answered_receivers_are_forgotten() -> None:
    paces = UrlPaces(per_url_limit=8, per_url_window=512)
    paces.observe(FAST, 0.001)
    for n in range(REMEMBERED_URLS):
        paces.observe(f"https://r{n}.example.com/hook", 0.001)

    assert paces.window(FAST) == 8
    assert paces.window("https://r0.example.com/hook") == 400
    assert len(paces.wanted({})) == REMEMBERED_URLS


def test_only_a_line_that_would_wait_long_gives_back_what_is_beyond_its_window() -> None:
    paces = UrlPaces(per_url_limit=8, per_url_window=512)
    paces.observe(FAST, 0.001)
    paces.observe(FAST, 0.004)
    paces.observe(SLOW, 0.5)

    # A fast receiver's window narrowed by a slow answer: its line still clears in 50 ms.
    assert paces.window(FAST) < 400
    assert paces.excess(FAST, 400) == 0
    # 40 deliveries at half a second an answer, 8 at a time: the last would wait 2.5 s.
    assert paces.excess(SLOW, 40) == 40 - 8
    assert paces.excess(SLOW, 16) == 0
    assert paces.excess("https://new.example.com/hook", 40) == 0


def test_a_claim_names_only_the_fast_receivers_that_answered_lately() -> None:
    quiet, busy = "https://quiet.example.com/hook", "https://busy.example.com/hook"
    now = [1000.0]
    paces = UrlPaces(per_url_limit=8, per_url_window=512, clock=lambda: now[0])
    paces.observe(quiet, 0.001)
    now[0] += NAMED_FOR_S / 2
    paces.observe(busy, 0.001)
    now[0] += NAMED_FOR_S * 3 / 4

    # The first has been quiet longer than NAMED_FOR_S: a claim gives it the default.
    assert paces.wanted({}) == {busy: Wanted(400, 50)}
    # Still named while held, and its window is still known.
    assert paces.wanted({quiet: 10}) == {busy: Wanted(400, 50), quiet: Wanted(390, 50)}
    # Its next answer names it again.
    paces.observe(quiet, 0.001)
    assert paces.wanted({}) == {quiet: Wanted(400, 50), busy: Wanted(400, 50)}

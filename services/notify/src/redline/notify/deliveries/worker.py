"""The delivery worker: claims due deliveries, sends them, records every attempt.

One per process; replicas share the work through the claim statement (see `storage.claim`).
Claimed deliveries wait in a line per URL, which up to `per_url_limit` sender tasks work through
in claim order; finished attempts are recorded in batches by one recorder task, so a busy worker
writes one transaction for many results. A claim takes a run of a key's deliveries only while
none of that key is claimed, and one task sends a run in order, each once the previous has its
answer: that is what keeps order.

How many deliveries of a URL the worker holds follows the receiver's pace (see `pace`): a fast
receiver's line holds enough to keep its requests busy until the next claim; a slow one holds
about its requests in flight, so that slow receivers never take the places of the others, and
a receiver that turns slow gives back what waited for it.

A delivery whose retry holds its line (`retry_holds_line`) keeps the rest of its line waiting
while it waits for that retry: after such a failure the rest of its run is given back unsent,
and the claim takes none of its line until it has succeeded or failed for good. Other failed
deliveries wait apart, and their run goes on.

A receiver with a rate of its own (an advanced webhook endpoint's `rateLimit`) gets its
deliveries spaced by that rate across replicas: each waits, claimed, for its slot (see `rates`).

Delivery is at least once: a worker that dies after a receiver answered but before the result
was recorded leaves the delivery to be sent again when its lease runs out. Receivers dedupe on
`webhook-id`, which stays the same across retries.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import time
import uuid
from collections import Counter, deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import prometheus_client

from redline.notify.deliveries import storage, upkeep
from redline.notify.deliveries.headers import HeaderSource, NotReady, Undeliverable
from redline.notify.deliveries.pace import UrlPaces
from redline.notify.deliveries.rates import DeliveryRates, RateSource
from redline.notify.deliveries.schedule import RetrySchedule
from redline.notify.deliveries.storage import (
    AttemptResult,
    ClaimedDelivery,
    HandOff,
    NewDelivery,
)
from redline.pg import DeadHolderSweeps, Holder, Pool
from redline.pg.listen import Listener
from redline.webhooks import Outcome, WebhookClient

log = logging.getLogger("redline.notify.worker")

DELIVERY_ATTEMPTS = prometheus_client.Counter(
    "redline_webhook_delivery_attempts",
    "Webhook delivery attempts by kind (basic, workflow) and what they left the delivery: "
    "succeeded, pending (a retry is scheduled) or failed (no retry left).",
    ("kind", "state"),
)

# How long the worker sleeps with nothing due, at most; NOTIFY wakes it earlier.
IDLE_POLL_S = 1.0
ERROR_BACKOFF_S = 1.0
# While sends are under way, the least time between two claims.
CLAIM_GAP_S = 0.01
# While sends are under way, the least time between two writes of results.
RECORD_GAP_S = 0.005
# A delivery whose credentials could not be read waits this long, without counting an attempt.
DEFER_S = 5.0
# URLs remembered as having deliveries queued (see `DeliveryWorker._offer`), at most.
BACKLOGGED_URLS = 4096


@dataclass
class _UrlLine:
    """Claimed runs to one URL, oldest first, and the tasks sending them. A run is one delivery,
    or several of one ordering key in order, which one task sends one after another."""

    waiting: deque[list[ClaimedDelivery]] = field(default_factory=deque)
    senders: int = 0


def runs(claimed: list[ClaimedDelivery]) -> list[list[ClaimedDelivery]]:
    """A claim's deliveries (in id order) as runs: those holding their place in line of one URL
    and ordering key together, in order (never tried, or a retry that holds its line, which the
    claim takes only as the first of its run); each other retry alone (it holds no place in its
    line)."""
    by_line: dict[tuple[str, str], list[ClaimedDelivery]] = {}
    retries: list[list[ClaimedDelivery]] = []
    for delivery in claimed:
        if delivery.attempts == 0 or delivery.retry_holds_line:
            by_line.setdefault((delivery.url, delivery.ordering_key), []).append(delivery)
        else:
            retries.append([delivery])
    return sorted([*by_line.values(), *retries], key=lambda run: run[0].id)


class DeliveryWorker:
    def __init__(
        self,
        pool: Pool,
        client: WebhookClient,
        header_sources: Mapping[str, HeaderSource],
        schedule: RetrySchedule,
        *,
        rate_sources: Mapping[str, RateSource] | None = None,
        kind_schedules: Mapping[str, RetrySchedule] | None = None,
        process_limit: int,
        per_url_limit: int,
        lease_s: float,
        holder: Holder | None,
        per_url_window: int | None = None,
        retention_s: float | None = None,
        defer_s: float = DEFER_S,
    ) -> None:
        self._pool = pool
        self._client = client
        # Names this process on its claims: they are given back as soon as it dies (None: when
        # their lease runs out).
        self._holder = holder
        self._sweeps = DeadHolderSweeps()
        self._header_sources = header_sources
        self._rates = DeliveryRates(pool, rate_sources or {})
        # The retry schedule of each kind of delivery that has its own; `schedule` otherwise.
        self._schedule = schedule
        self._kind_schedules = dict(kind_schedules or {})
        self._process_limit = process_limit
        self._per_url_limit = per_url_limit
        # Claimed per URL across replicas at most (being sent, or waiting for one of this
        # process's `per_url_limit` requests): claiming ahead keeps a fast receiver busy while
        # results are recorded and the next ones claimed. How far ahead this worker claims
        # follows each receiver's pace (see `pace`).
        self._per_url_window = per_url_window or 4 * per_url_limit
        self._paces = UrlPaces(per_url_limit, self._per_url_window)
        # A URL's line lives while it has deliveries waiting or being sent.
        self._lines: dict[str, _UrlLine] = {}
        self._retention_s = retention_s
        self._lease_s = lease_s
        self._defer_s = defer_s
        self._wakeup = asyncio.Event()
        self._sends: set[asyncio.Task[None]] = set()
        # Claimed here and not yet recorded: given back at shutdown so another worker need not
        # wait for the lease to run out.
        self._claimed: dict[int, ClaimedDelivery] = {}
        # The token of a claim whose answer has not come yet.
        self._claim_in_flight: str | None = None
        # The tokens of hand-offs (`offer`) not yet taken: given back by token at shutdown.
        self._offers_in_flight: set[str] = set()
        # URLs with deliveries queued as far as this worker knows: queued by it, and no claim
        # since has taken less of them than it asked for.
        self._backlogged: set[str] = set()
        self._running = False
        self._results: list[AttemptResult] = []
        self._results_ready = asyncio.Event()

    def wake(self) -> None:
        self._wakeup.set()

    @property
    def running(self) -> bool:
        """Whether it sends (and so takes deliveries as they are queued, see `enqueue`)."""
        return self._running

    async def enqueue(self, deliveries: Sequence[NewDelivery]) -> None:
        """Queue new deliveries (as `storage.enqueue`), taking at once, claimed by the same
        statement, those this worker can send now (`storage.enqueue_handing_off`): a first
        attempt to a receiver with nothing queued then starts without waiting for a claim."""
        offer = self._offer(d.url for d in deliveries)
        handed: list[ClaimedDelivery] = []
        async with self._pool.acquire() as conn:
            if offer is None:
                await storage.enqueue(conn, deliveries)
            else:
                try:
                    handed = await storage.enqueue_handing_off(conn, deliveries, offer)
                except Exception:
                    await self._withdraw(offer)
                    raise
                self._take(offer, handed)
        # What was not handed over waits in the queue: its URL is not offered again until a
        # claim finds the queue drained (see `_claim`).
        taken = Counter(d.url for d in handed)
        for url, count in Counter(d.url for d in deliveries).items():
            if count > taken[url]:
                self._backlogged.add(url)
        if len(self._backlogged) > BACKLOGGED_URLS:
            # Only a guess at what is worth offering: forgotten, it costs a few offers.
            self._backlogged.clear()

    def _offer(self, urls: Iterable[str]) -> HandOff | None:
        """Of each URL whose line here has a request to spare and nothing waiting for one,
        the places its window has left, within what the process may hold, under a new claim
        token. None while the worker is not running, or has no room.

        Left out too: a URL with deliveries queued, as far as this worker knows (`_backlogged`):
        a new delivery would most likely only be checked against that backlog and queued
        behind it, and the claims that work through it would wait on the hand-off's lock."""
        free = self._process_limit - len(self._claimed)
        if not self._running or free <= 0:
            return None
        held = self._held_per_url()
        places = {}
        for url in set(urls):
            line = self._lines.get(url)
            busy = line is not None and (line.waiting or line.senders >= self._per_url_limit)
            if busy or url in self._backlogged:
                continue
            room = min(free, self._paces.window(url) - held[url])
            if room > 0:
                places[url] = room
        if not places:
            return None
        token = str(uuid.uuid4())
        self._offers_in_flight.add(token)
        return HandOff(
            places=places,
            per_url_limit=self._per_url_window,
            token=token,
            holder=None if self._holder is None else self._holder.number,
            lease_s=self._lease_s,
        )

    def _take(self, offer: HandOff, handed: list[ClaimedDelivery]) -> None:
        """Send what was claimed under `offer`; stopped meanwhile, leave it to be given back
        by its token (`_release_unsent`)."""
        if offer.token not in self._offers_in_flight:
            return
        self._offers_in_flight.discard(offer.token)
        for delivery in handed:
            self._claimed[delivery.id] = delivery
        for run in runs(handed):
            self._line_up(run)

    async def _withdraw(self, offer: HandOff) -> None:
        """The statement failed: give back whatever it may have claimed under `offer` before
        its answer was lost (left for shutdown if that fails too)."""
        with contextlib.suppress(Exception):
            async with self._pool.acquire() as conn:
                await storage.release_claim(conn, offer.token)
            self._offers_in_flight.discard(offer.token)

    async def run(self) -> None:
        listener = Listener(self._pool, storage.NOTIFY_CHANNEL, self.wake)
        held = self._held_claims
        helpers = [
            asyncio.create_task(self._record_forever(), name="delivery-recorder"),
            asyncio.create_task(
                upkeep.renew_leases_forever(self._pool, held, self._lease_s), name="delivery-leases"
            ),
        ]
        if self._retention_s is not None:
            purge = upkeep.purge_forever(self._pool, self._retention_s)
            helpers.append(asyncio.create_task(purge, name="delivery-purge"))
        self._running = True
        try:
            await self._claim_forever(listener)
        finally:
            self._running = False
            for task in self._sends:
                task.cancel()
            await asyncio.gather(*self._sends, return_exceptions=True)
            self._lines.clear()
            for task in helpers:
                task.cancel()
            await asyncio.gather(*helpers, return_exceptions=True)
            # Results already in hand are kept: their receivers have answered.
            with contextlib.suppress(Exception):
                await self._flush()
            await self._release_unsent()
            await listener.close()

    async def _claim_forever(self, listener: Listener) -> None:
        while True:
            if self._claimed:
                # Sends are under way and each recorded result wakes this loop: let a few land
                # so that one claim takes them all (a claim costs about the same for 1 or 100).
                await asyncio.sleep(CLAIM_GAP_S)
            self._wakeup.clear()
            held = self._held_per_url()
            await self._give_back_beyond_windows(held)
            free = self._process_limit - len(self._claimed)
            try:
                await listener.renew()
                await self._release_dead_holders()
                claimed = await self._claim(free, held) if free > 0 else []
                wait_s = IDLE_POLL_S if claimed or free <= 0 else await self._until_next_due()
            except Exception as exc:
                log.warning("delivery claim failed (%s); retrying", exc)
                await asyncio.sleep(ERROR_BACKOFF_S)
                continue
            for delivery in claimed:
                self._claimed[delivery.id] = delivery
            for run in runs(claimed):
                self._line_up(run)
            # A claim takes everything claimable up to `free`: the next look comes when a result
            # is recorded, a delivery is added, or a retry is due.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait_s):
                    await self._wakeup.wait()

    async def _release_dead_holders(self) -> None:
        """Now and then (`DeadHolderSweeps`): what dead processes were sending is given back,
        so another replica's deliveries wait seconds for it, not their lease."""
        if self._sweeps.due():
            async with self._pool.acquire() as conn:
                await storage.release_dead_holders(conn)

    async def _claim(self, limit: int, held: Counter[str]) -> list[ClaimedDelivery]:
        wanted = self._paces.wanted(held)
        # Known before the claim commits: stopped after the commit and before the answer came,
        # the worker still gives the claim back by its token (see `run`).
        self._claim_in_flight = str(uuid.uuid4())
        async with self._pool.acquire() as conn:
            claimed = await storage.claim(
                conn,
                limit,
                self._per_url_window,
                self._lease_s,
                # A URL this worker has not heard from: one delivery per line, a request each.
                1,
                wanted,
                self._per_url_limit,
                token=self._claim_in_flight,
                holder=None if self._holder is None else self._holder.number,
            )
        self._claim_in_flight = None
        if len(claimed) < limit:
            # A claim not cut short by its limit took all it could of each URL: one that gave
            # less than asked has nothing more claimable queued.
            taken = Counter(d.url for d in claimed)
            for url in [*self._backlogged]:
                want = wanted.get(url)
                if taken[url] < (want.places if want is not None else self._per_url_limit):
                    self._backlogged.discard(url)
        return claimed

    def _held_claims(self) -> list[tuple[int, str]]:
        return [(d.id, d.claim_token) for d in self._claimed.values()]

    def _held_per_url(self) -> Counter[str]:
        return Counter(delivery.url for delivery in self._claimed.values())

    async def _give_back_beyond_windows(self, held: Counter[str]) -> None:
        """A receiver that has turned slow would keep the deliveries waiting in its line for
        minutes, and their places in this process: give back the runs waiting beyond its
        narrowed window, newest first, for whichever replica has room when they are due.
        `held` (deliveries held per URL) is brought up to date."""
        given_back: list[ClaimedDelivery] = []
        for url, line in self._lines.items():
            excess = self._paces.excess(url, held[url])
            while excess > 0 and line.waiting:
                run = line.waiting.pop()
                given_back += run
                held[url] -= len(run)
                excess -= len(run)
        if given_back:
            await self._release(given_back, delay_s=0.0)

    async def _until_next_due(self) -> float:
        async with self._pool.acquire() as conn:
            due = await storage.next_due(conn)
        if due is None:
            return IDLE_POLL_S
        wait = (due - dt.datetime.now(dt.UTC)).total_seconds()
        return min(IDLE_POLL_S, max(0.0, wait))

    def _line_up(self, run: list[ClaimedDelivery]) -> None:
        """Put the run in its URL's line, and start a sender for the line if it has fewer than
        `per_url_limit`: so a slow receiver holds only its own senders."""
        url = run[0].url
        line = self._lines.get(url)
        if line is None:
            line = self._lines[url] = _UrlLine()
        line.waiting.append(run)
        if line.senders < self._per_url_limit:
            line.senders += 1
            task = asyncio.create_task(self._send_line(url, line))
            self._sends.add(task)
            task.add_done_callback(self._sends.discard)

    async def _send_line(self, url: str, line: _UrlLine) -> None:
        """Send the line's runs one after another until it is empty. One task per request in
        flight, not per delivery: a line of hundreds costs no more tasks than its limit."""
        try:
            while line.waiting:
                await self._send_run(line.waiting.popleft())
        finally:
            line.senders -= 1
            if line.senders == 0 and not line.waiting and self._lines.get(url) is line:
                del self._lines[url]

    async def _send_run(self, run: list[ClaimedDelivery]) -> None:
        """Send a run's deliveries in order, each once the one before has its answer. One given
        back unsent takes the rest of its run back with it: none may overtake it. So does one
        whose retry holds its line, once it failed and waits for that retry; one that failed
        for good, or whose retry waits apart, lets the run go on."""
        for position, delivery in enumerate(run):
            try:
                result = await self._send(delivery)
            except Exception:
                # A fault here, not at the receiver: give the deliveries back for a later try
                # rather than hold their claims (and their key's turn) until shutdown.
                log.exception("delivery %s could not be sent", delivery.webhook_id)
                result = None
            if result is None:
                await self._release(run[position:])
                return
            rest = run[position + 1 :]
            if delivery.retry_holds_line and result.state == "pending" and rest:
                # Due at once: they stay behind the retry in their line whatever their time.
                await self._release(rest, delay_s=0.0)
                return

    async def _send(self, delivery: ClaimedDelivery) -> AttemptResult | None:
        """Send the delivery (once its receiver's rate lets it) and hand its result to the
        recorder, and return it; None if it cannot be sent yet and must be given back."""
        waited_s = await self._rates.wait_turn(delivery)
        started_at = dt.datetime.now(dt.UTC)
        timestamp = int(time.time())
        try:
            extra = await self._header_sources[delivery.kind].headers(delivery, timestamp)
        except NotReady as exc:
            log.warning("delivery %s deferred: %s", delivery.webhook_id, exc)
            return None
        except Undeliverable as exc:
            outcome = Outcome(ok=False, status=None, latency_ms=0.0, error=str(exc))
            return self._finish(delivery, self._result(delivery, started_at, outcome, final=True))
        headers = {
            "Content-Type": "application/json",
            "webhook-id": delivery.webhook_id,
            "webhook-timestamp": str(timestamp),
            **extra,
        }
        outcome = await self._client.post(delivery.url, delivery.body, headers)
        # A receiver's rate paces it as a slow answer would (see `rates`).
        self._paces.observe(delivery.url, outcome.latency_ms / 1000 + waited_s)
        return self._finish(delivery, self._result(delivery, started_at, outcome))

    def _result(
        self,
        delivery: ClaimedDelivery,
        started_at: dt.datetime,
        outcome: Outcome,
        *,
        final: bool = False,
    ) -> AttemptResult:
        """The attempt and what it makes of the delivery. A failure is `final` (no retry) when
        nothing on the receiver's side could change it: the guard refused the target, or the
        delivery can never be sent."""
        now = dt.datetime.now(dt.UTC)
        state, failures, next_at = "succeeded", delivery.round_failures, now
        if not outcome.ok:
            failures += 1
            schedule = self._kind_schedules.get(delivery.kind, self._schedule)
            wait_s = None if final or outcome.blocked else schedule.next_wait_s(failures)
            if wait_s is None:
                state = "failed"
            else:
                state, next_at = "pending", now + dt.timedelta(seconds=wait_s)
        return AttemptResult(
            delivery_id=delivery.id,
            claim_token=delivery.claim_token,
            attempt=delivery.attempts + 1,
            started_at=started_at,
            status=outcome.status,
            latency_ms=outcome.latency_ms,
            error=outcome.error,
            state=state,
            round_failures=failures,
            next_attempt_at=next_at,
        )

    def _finish(self, delivery: ClaimedDelivery, result: AttemptResult) -> AttemptResult:
        DELIVERY_ATTEMPTS.labels(delivery.kind, result.state).inc()
        self._claimed.pop(result.delivery_id, None)
        self._results.append(result)
        self._results_ready.set()
        return result

    async def _release(
        self, deliveries: list[ClaimedDelivery], delay_s: float | None = None
    ) -> None:
        """Give deliveries back unsent, to be tried again after `delay_s` (`defer_s` unless
        given)."""
        for delivery in deliveries:
            self._claimed.pop(delivery.id, None)
        delay_s = self._defer_s if delay_s is None else delay_s
        with contextlib.suppress(Exception):
            async with self._pool.acquire() as conn:
                await storage.release(conn, [(d.id, d.claim_token) for d in deliveries], delay_s)

    async def _release_unsent(self) -> None:
        claimed, self._claimed = self._held_claims(), {}
        tokens = [*self._offers_in_flight]
        if self._claim_in_flight is not None:
            tokens.append(self._claim_in_flight)
        self._claim_in_flight, self._offers_in_flight = None, set()
        if claimed or tokens:
            with contextlib.suppress(Exception):
                async with self._pool.acquire() as conn:
                    if claimed:
                        await storage.release(conn, claimed, 0.0)
                    for token in tokens:
                        await storage.release_claim(conn, token)

    async def _record_forever(self) -> None:
        while True:
            await self._results_ready.wait()
            if len(self._claimed) > 1:
                # More results are on their way: one transaction for several is cheaper.
                await asyncio.sleep(RECORD_GAP_S)
            self._results_ready.clear()
            try:
                await self._flush()
            except Exception as exc:
                log.warning("cannot record delivery attempts (%s); retrying", exc)
                self._results_ready.set()
                await asyncio.sleep(ERROR_BACKOFF_S)
                continue
            # Recorded results free their keys and URLs for the next claim.
            self.wake()

    async def _flush(self) -> None:
        batch, self._results = self._results, []
        if not batch:
            return
        try:
            async with self._pool.acquire() as conn:
                await storage.record(conn, batch)
        except BaseException:
            self._results = batch + self._results
            raise

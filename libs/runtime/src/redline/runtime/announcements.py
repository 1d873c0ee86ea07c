"""Cached answers of another service dropped when that service announces a change: core NATS
subscriptions to its event subjects (JetStream fans stream events out to core subscribers too)
that drop, in a `TtlCache`, the entries of the API key an announced event names.

An event this version cannot decode drops everything rather than keep what may be stale; the
cache's time bound covers an announcement missed while NATS was down.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from redline.bus import Bus
from redline.proto.events import Event, decode_event
from redline.runtime.cache import TtlCache

K = TypeVar("K")
V = TypeVar("V")


class DroppedOnAnnouncements(Generic[K, V]):
    """Drops `cache`'s entries whose key `api_key_of` names the API key of an event of one of
    `events` heard on `subjects`, from `start` to `stop`."""

    def __init__(
        self,
        bus: Bus,
        subjects: Iterable[str],
        events: tuple[type[Event], ...],
        cache: TtlCache[K, V],
        api_key_of: Callable[[K], str],
    ) -> None:
        self._bus = bus
        self._subjects = tuple(subjects)
        self._events = events
        self._cache = cache
        self._api_key_of = api_key_of
        self._subscriptions: list[Subscription] = []

    async def start(self) -> None:
        if not self._subscriptions:
            self._subscriptions = [
                await self._bus.nc.subscribe(subject, cb=self._on_event)
                for subject in self._subjects
            ]

    async def stop(self) -> None:
        subscriptions, self._subscriptions = self._subscriptions, []
        for subscription in subscriptions:
            await subscription.unsubscribe()

    async def _on_event(self, msg: Msg) -> None:
        try:
            event = decode_event(msg.data)
        except Exception:
            # Something this version does not know: forget everything rather than keep stale.
            self._cache.drop_where(lambda _: True)
            return
        api_key = getattr(event, "apiKey", None)
        if isinstance(event, self._events) and isinstance(api_key, str):
            self._cache.drop_where(lambda key: self._api_key_of(key) == api_key)

"""What each kind of delivery adds to its request (its receiver's credentials or signature),
read at send time, and how it says that a delivery cannot be sent now or ever."""

from __future__ import annotations

from typing import Protocol

from redline.notify.deliveries.storage import ClaimedDelivery


class NotReady(Exception):
    """The delivery cannot be sent yet for a reason on this side (say, identity is down): it is
    given back, and tried again later without counting an attempt."""


class Undeliverable(Exception):
    """The delivery can never be sent (say, its API key was deleted): it fails at once."""


class HeaderSource(Protocol):
    """The headers one kind of delivery adds (its receiver's credentials or signature)."""

    async def headers(self, delivery: ClaimedDelivery, timestamp: int) -> dict[str, str]: ...

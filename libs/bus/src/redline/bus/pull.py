"""Fetching batches from a durable pull consumer through one inbox subscription.

nats-py's `PullSubscription.fetch` waits for every message of a batch with `next_msg`, which
starts a task, a timer and a uuid4 task name per message: about a tenth of a busy consumer
process. This puller sends the same JetStream pull requests (`$JS.API.CONSUMER.MSG.NEXT`), and a
callback subscription (one long-lived task in nats-py) collects what the server sends.

The server answers a pull request with up to `batch` messages, then, if it sent fewer, a status:
404 (no messages, for a request that does not wait), 408 (the request expired) or 409 (the
request ended for another reason, such as a deleted consumer). 100 is an idle heartbeat. Any
other status (503: no consumer answers) ends the fetch with an error, so that the caller can
create the consumer again.

Each request has its own reply subject, and only the status of the request being waited on ends
a wait: a request the caller stopped waiting for (its time ran out first) may end on the server
later, and that must not cut a later wait short. The long poll asks for one message, so that it
is over once one arrives rather than staying open on the server; the next fetch's request that
does not wait takes the rest.
"""

from __future__ import annotations

import asyncio
import contextlib
import json

from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

_HEARTBEAT = "100"
_REQUEST_ENDED = frozenset({"404", "408", "409"})
# A long poll expires on the server this much before the caller's timeout, so that its 408
# normally arrives before the caller gives up.
_EXPIRY_MARGIN_S = 0.05


async def give_back(messages: list[Msg]) -> None:
    """Return messages not acknowledged to the stream at once, for the consumer's next instance,
    instead of after their ack wait. An acknowledged message refuses this, and a connection
    going away may refuse it too: such a message is done, or comes back after its ack wait."""
    for message in messages:
        with contextlib.suppress(Exception):
            await message.nak()


class PullFailed(Exception):
    """The server answered a pull request with an error status (say, no such consumer)."""


class Puller:
    def __init__(self, nc: Client, stream: str, durable: str, api_prefix: str = "$JS.API") -> None:
        self._nc = nc
        self._subject = f"{api_prefix}.CONSUMER.MSG.NEXT.{stream}.{durable}"
        self._inbox = nc.new_inbox()
        self._requests = 0
        # The reply subject of the request being waited on.
        self._waiting_on = ""
        self._subscription: Subscription | None = None
        self._messages: list[Msg] = []
        self._ended = 0
        self._failure: str | None = None
        self._changed = asyncio.Event()

    async def start(self) -> None:
        self._subscription = await self._nc.subscribe(f"{self._inbox}.*", cb=self._arrived)

    async def stop(self) -> None:
        if self._subscription is not None:
            subscription, self._subscription = self._subscription, None
            await subscription.unsubscribe()
        # Messages that arrived after the last fetch took its batch were never handed out.
        held, self._messages = self._messages, []
        await give_back(held)

    async def _arrived(self, message: Msg) -> None:
        status = message.headers.get("Status") if message.headers else None
        if status is None:
            # Messages are welcome whichever request they answer.
            self._messages.append(message)
        elif status == _HEARTBEAT or message.subject != self._waiting_on:
            return
        elif status in _REQUEST_ENDED:
            self._ended += 1
        else:
            description = message.headers.get("Description", "") if message.headers else ""
            self._failure = f"{status} {description}".strip()
        self._changed.set()

    async def fetch(self, batch: int, timeout_s: float) -> list[Msg]:
        """Up to `batch` messages: what is here or can be had at once, else the first that
        arrive within `timeout_s`. Raises TimeoutError when none came, PullFailed on an error
        status."""
        if not self._messages and self._failure is None:
            # What the consumer has now; the server ends the request with a status at once if
            # that is less than a batch.
            await self._request_and_wait(batch, {"batch": batch, "no_wait": True}, timeout_s)
        if not self._messages and self._failure is None:
            expires_ns = int(max(timeout_s - _EXPIRY_MARGIN_S, 0.001) * 1e9)
            await self._request_and_wait(1, {"batch": 1, "expires": expires_ns}, timeout_s)
        if self._messages:
            # Messages in hand go first; a failure that came with them is raised next time.
            taken, self._messages = self._messages[:batch], self._messages[batch:]
            return taken
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise PullFailed(failure)
        raise TimeoutError

    async def _request_and_wait(
        self, enough: int, request: dict[str, object], timeout_s: float
    ) -> None:
        """Send a pull request; return once `enough` messages are here, the request ended, an
        error came, or `timeout_s` passed."""
        ended = self._ended
        self._requests += 1
        self._waiting_on = f"{self._inbox}.{self._requests}"
        await self._nc.publish(self._subject, json.dumps(request).encode(), reply=self._waiting_on)
        try:
            async with asyncio.timeout(timeout_s):
                while (
                    len(self._messages) < enough and self._ended == ended and self._failure is None
                ):
                    self._changed.clear()
                    await self._changed.wait()
        except TimeoutError:
            return

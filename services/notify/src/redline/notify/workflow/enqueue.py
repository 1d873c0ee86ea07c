"""The `notify-workflow-webhooks` consumer: turns each visible execution event bound for a
receiver into a delivery.

A receiver gets an execution's events strictly in order. Their deliveries share a line (the
receiver's URL and the execution id) whose failed delivery holds it until it succeeds or is
given up on, and they are queued in the order of their `seq`, which the stream does not promise:
an event handled again after a failure comes after those fetched meanwhile. So an event is
queued only once the event it follows (`previousSeq`) has its delivery; one that comes first is
refused, and the consumer takes it again a moment later.

Enqueuing is idempotent without an inbox: a delivery's webhook id is the event id, and a known
webhook id is not inserted again.
"""

from __future__ import annotations

import time
from typing import Any

import msgspec

from redline.notify.deliveries import storage
from redline.notify.deliveries.storage import NewDelivery
from redline.pg import Pool
from redline.proto.events import Event, ExecutionEventOut

KIND = "workflow"
TARGET = "workflow"
# Execution statuses after which nothing more happens to an execution.
ENDED_STATUSES = frozenset({"completed", "failed", "cancelled"})


class ExecutionWebhook(msgspec.Struct, frozen=True, kw_only=True):
    """What a receiver gets: the event as getEvents returns it (these first seven fields, in
    this order), then what it is about."""

    eventId: str
    seq: int
    type: str
    stepId: str | None
    timestamp: int
    correlationId: str
    data: dict[str, Any] | None
    event: str  # the type again, under the name receivers of the hosted product read
    executionId: str
    definitionId: str
    status: str  # the execution's, once the event happened


_encoder = msgspec.json.Encoder()


class EventsOutOfOrder(Exception):
    """Events came before the ones they follow: they are taken again later."""


def line_of(event: ExecutionEventOut) -> tuple[str, str]:
    """The delivery line (URL, ordering key) of an execution's events to its receiver."""
    return event.receiverUrl, event.executionId


def delivery_of(event: ExecutionEventOut) -> NewDelivery:
    view = event.event
    body = _encoder.encode(
        ExecutionWebhook(
            eventId=view.eventId,
            seq=view.seq,
            type=view.type,
            stepId=view.stepId,
            timestamp=view.timestamp,
            correlationId=view.correlationId,
            data=view.data,
            event=view.type,
            executionId=event.executionId,
            definitionId=event.definitionId,
            status=event.status,
        )
    )
    url, ordering_key = line_of(event)
    return NewDelivery(
        # Also `x-<brand>-event-id`: the same on every retry.
        webhook_id=view.eventId,
        workspace_id=event.workspaceId,
        api_key=event.apiKey,
        kind=KIND,
        event_id=view.eventId,
        event_type=view.type,
        target=TARGET,
        url=url,
        ordering_key=ordering_key,
        body=body,
        retry_holds_line=True,
        line_seq=view.seq,
        line_ends=event.status in ENDED_STATUSES,
    )


class WorkflowEnqueuer:
    def __init__(self, pool: Pool, retention_s: float) -> None:
        self._pool = pool
        self._retention_s = retention_s

    async def handle(self, events: list[Event]) -> None:
        """Queue, in one statement, the deliveries of a batch's execution events whose
        predecessors have theirs (in the table, or earlier in the batch); then refuse the batch
        if any had to wait, so that the consumer takes those again (it handles a refused batch
        event by event, and what was queued here is not queued twice)."""
        bound = [event for event in events if isinstance(event, ExecutionEventOut)]
        if not bound:
            return
        # An execution's events in seq order: one fetched before its predecessor follows it here.
        bound.sort(key=lambda event: event.event.seq)
        ready: list[NewDelivery] = []
        early: list[ExecutionEventOut] = []
        async with self._pool.acquire() as conn:
            reached = await storage.line_seqs(conn, list({line_of(event) for event in bound}))
            for event in bound:
                line = line_of(event)
                if self._follows_its_predecessor(event, reached.get(line)):
                    ready.append(delivery_of(event))
                    reached[line] = max(reached.get(line, 0), event.event.seq)
                else:
                    early.append(event)
            await storage.enqueue(conn, ready)
        if early:
            waiting = ", ".join(f"{e.executionId} seq {e.event.seq}" for e in early)
            raise EventsOutOfOrder(f"events before the ones they follow: {waiting}")

    def _follows_its_predecessor(self, event: ExecutionEventOut, reached: int | None) -> bool:
        """Whether the event may be queued: it is its line's first, or its line got as far as
        the event it follows (deliveries are queued in seq order, so all before are queued).

        A predecessor is missing for good only once the retention purge forgot how far its line
        got, which it does only for a line that ended longer than the retention ago. Nothing
        happens to an execution after its end, so any event of such a line is older than the
        retention: one that old is let through rather than wait for ever. A younger one waits:
        its predecessor is on its way. (The stream keeps events for less time than the default
        retention, so with the defaults this never lets an event through.)"""
        if event.previousSeq <= 0 or (reached is not None and reached >= event.previousSeq):
            return True
        age_s = time.time() - event.event.timestamp / 1000
        return age_s > self._retention_s

"""The `notify-webhooks` consumer: turns each comment event into the deliveries the API key's
basic webhook settings ask for, as they were when the event happened (`gate`), and those its
advanced webhook endpoints take (`advanced.enqueue`), from one read of the key's settings.

Enqueuing is idempotent without an inbox: a delivery's webhook id is derived from the event id
and its target, and a known webhook id is not inserted again.

Given the process's delivery worker, the consumer queues through it: the worker takes at once
the deliveries it can send, claimed by the statement that queues them (`DeliveryWorker.enqueue`),
so that a first attempt to a receiver with nothing queued starts without a claim's round trip.
The rest, and every retry, go through the queue.
"""

from __future__ import annotations

import msgspec

from redline.notify.advanced.enqueue import advanced_deliveries
from redline.notify.deliveries import storage
from redline.notify.deliveries.storage import NewDelivery
from redline.notify.deliveries.worker import DeliveryWorker
from redline.notify.gate import let_through
from redline.notify.key_config import KeyConfigs, config_of_event
from redline.notify.webhooks.body import UnusableKey, wire_body
from redline.notify.webhooks.payloads import processed_payload, raw_payload
from redline.pg import Pool
from redline.proto.events import CommentsEvent, Event, WebhookServiceConfigState
from redline.proto.rpc import ApiKeyConfig

KIND = "basic"
TARGETS = ("raw", "processed")


def webhook_id(event_id: str, target: str) -> str:
    return f"msg_{event_id}_{target}"


class WebhookEnqueuer:
    def __init__(
        self, pool: Pool, configs: KeyConfigs, worker: DeliveryWorker | None = None
    ) -> None:
        self._pool = pool
        self._configs = configs
        self._worker = worker

    async def handle(self, events: list[Event]) -> None:
        """Enqueue the deliveries of a batch of events in one statement, in stream order,
        handing the worker those it can send at once."""
        deliveries: list[NewDelivery] = []
        for event in events:
            deliveries += await self._deliveries_of(event)
        if not deliveries:
            return
        if self._worker is not None:
            await self._worker.enqueue(deliveries)
            return
        async with self._pool.acquire() as conn:
            await storage.enqueue(conn, deliveries)

    async def _deliveries_of(self, event: Event) -> list[NewDelivery]:
        if not isinstance(event, CommentsEvent) or event.triggerNotification is False:
            return []
        config = await config_of_event(self._configs, event)
        return [] if config is None else deliveries_of(config, event)


def deliveries_of(config: ApiKeyConfig, event: CommentsEvent) -> list[NewDelivery]:
    """The basic and advanced deliveries of one event, from one read of the key's settings;
    none when the request turned notifications off."""
    if event.triggerNotification is False:
        return []
    return basic_deliveries(config, event) + advanced_deliveries(config, event)


def basic_deliveries(config: ApiKeyConfig, event: CommentsEvent) -> list[NewDelivery]:
    """The deliveries to the basic webhook URLs, when webhooks and the event's trigger were on
    when it happened."""
    settings = config.webhook.webhookServiceConfig
    if not let_through(
        config,
        event,
        ("webhook.useWebhookService", config.webhook.useWebhookService),
        (f"webhook.triggers.{event.trigger}", settings.triggers.get(event.trigger) is True),
    ):
        return []
    return build_deliveries(event, settings)


def build_deliveries(
    event: CommentsEvent, settings: WebhookServiceConfigState
) -> list[NewDelivery]:
    """One delivery per configured URL: the raw payload to `rawNotificationUrl`, the processed
    one to `processedNotificationUrl`."""
    urls = {"raw": settings.rawNotificationUrl, "processed": settings.processedNotificationUrl}
    deliveries = []
    for target in TARGETS:
        url = urls[target]
        if not url:
            continue
        delivery_id = webhook_id(event.id, target)
        protect = settings.enableDataProtection
        payload = (
            raw_payload(delivery_id, event, protect)
            if target == "raw"
            else processed_payload(delivery_id, event, protect)
        )
        body, failed = b"", None
        try:
            body = wire_body(msgspec.json.encode(payload), settings)
        except UnusableKey as exc:
            failed = f"not sent: {exc}"
        deliveries.append(
            NewDelivery(
                webhook_id=delivery_id,
                workspace_id=event.workspaceId,
                api_key=event.apiKey,
                kind=KIND,
                event_id=event.id,
                event_type=event.trigger,
                target=target,
                url=url,
                # Per key too: two keys sending to one URL never share a line.
                ordering_key=f"{event.apiKey}/{event.organizationId}/{event.documentId}",
                body=body,
                failed_error=failed,
            )
        )
    return deliveries

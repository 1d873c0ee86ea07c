"""Advanced webhooks: which of an API key's endpoints receive a comment event, and the delivery
each gets (decisions, "Notify: advanced webhooks"). Queued by the `notify-webhooks` consumer
beside the basic webhook deliveries of the same event, sent by the one delivery worker.

The message is `{event, data}`: the event type, and the raw payload basic webhooks send, whose
`metadata` also names the organization and document as `organization {organizationId}` and
`document {documentId}`. The key's advanced settings encode, encrypt and protect it as the basic
settings do theirs. Its webhook id (`msg_<event id>_<endpoint id>`) makes enqueuing idempotent.
"""

from __future__ import annotations

import msgspec

from redline.notify.deliveries.storage import NewDelivery
from redline.notify.key_config import AdvancedWebhookSource, config_of_event
from redline.notify.webhooks.body import UnusableKey, wire_body
from redline.notify.webhooks.payloads import RawPayload, raw_payload
from redline.proto.events import CommentsEvent, Event
from redline.proto.rpc import AdvancedEndpointState, AdvancedWebhooks

KIND = "advanced"


class AdvancedMessage(msgspec.Struct, frozen=True):
    event: str
    data: RawPayload


def webhook_id(event_id: str, endpoint_id: str) -> str:
    return f"msg_{event_id}_{endpoint_id}"


def receives(endpoint: AdvancedEndpointState, event: CommentsEvent) -> bool:
    """Whether the endpoint takes the event: enabled, made before the event happened, and
    subscribed to its type. Redline's messages carry no channel, so an endpoint limited to
    channels takes none (as an endpoint of the Standard Webhooks services does)."""
    return (
        not endpoint.disabled
        and endpoint.createdAt <= event.occurredAt
        and (endpoint.filterTypes is None or event.trigger in endpoint.filterTypes)
        and endpoint.channels is None
    )


def message(delivery_id: str, event: CommentsEvent, protect: bool) -> AdvancedMessage:
    payload = raw_payload(delivery_id, event, protect)
    metadata = {
        **payload.metadata,
        "organization": {"organizationId": event.organizationId},
        "document": {"documentId": event.documentId},
    }
    return AdvancedMessage(event.trigger, msgspec.structs.replace(payload, metadata=metadata))


class AdvancedWebhookPlanner:
    def __init__(self, endpoints: AdvancedWebhookSource) -> None:
        self._endpoints = endpoints

    async def deliveries_of(self, event: Event) -> list[NewDelivery]:
        if not isinstance(event, CommentsEvent) or event.triggerNotification is False:
            return []
        webhooks = await config_of_event(self._endpoints, event)
        if webhooks is None or not webhooks.config.isEnabled:
            return []
        return [
            delivery_to(endpoint, event, webhooks)
            for endpoint in webhooks.endpoints
            if receives(endpoint, event)
        ]


def delivery_to(
    endpoint: AdvancedEndpointState, event: CommentsEvent, webhooks: AdvancedWebhooks
) -> NewDelivery:
    delivery_id = webhook_id(event.id, endpoint.id)
    config = webhooks.config
    body, failed = b"", None
    try:
        payload = message(delivery_id, event, config.enableDataProtection)
        body = wire_body(msgspec.json.encode(payload), config)
    except UnusableKey as exc:
        failed = f"not sent: {exc}"
    return NewDelivery(
        webhook_id=delivery_id,
        workspace_id=event.workspaceId,
        api_key=event.apiKey,
        kind=KIND,
        event_id=event.id,
        event_type=event.trigger,
        target=endpoint.id,
        url=endpoint.url,
        # As for basic webhooks: a document's events reach one URL in order.
        ordering_key=f"{event.apiKey}/{event.organizationId}/{event.documentId}",
        body=body,
        failed_error=failed,
    )

"""Advanced webhooks: which of an API key's endpoints receive a comment event, and the delivery
each gets (decisions, "Notify: advanced webhooks"). Queued by the `notify-webhooks` consumer
beside the basic webhook deliveries of the same event, from the same read of the key's
settings, and sent by the one delivery worker.

The message is `{event, data}`: the event type, and the raw payload basic webhooks send, whose
`metadata` also names the organization and document as `organization {organizationId}` and
`document {documentId}`. The key's advanced settings encode, encrypt and protect it as the basic
settings do theirs. Its webhook id (`msg_<event id>_<endpoint id>`) makes enqueuing idempotent.
"""

from __future__ import annotations

import msgspec

from redline.notify.deliveries.storage import NewDelivery
from redline.notify.gate import endpoint_takes, let_through
from redline.notify.webhooks.body import UnusableKey, wire_body
from redline.notify.webhooks.payloads import RawPayload, raw_payload
from redline.proto.events import AdvancedWebhookConfigState, CommentsEvent
from redline.proto.rpc import AdvancedEndpointState, ApiKeyConfig

KIND = "advanced"


class AdvancedMessage(msgspec.Struct, frozen=True):
    event: str
    data: RawPayload


def webhook_id(event_id: str, endpoint_id: str) -> str:
    return f"msg_{event_id}_{endpoint_id}"


def receives(endpoint: AdvancedEndpointState, event: CommentsEvent) -> bool:
    """Whether the endpoint takes the event: it existed and was enabled when the event happened
    (`gate`), and it is subscribed to the event's type. Redline's messages carry no channel, so
    an endpoint limited to channels takes none (as an endpoint of the Standard Webhooks services
    does)."""
    return (
        endpoint_takes(endpoint, event)
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


def advanced_deliveries(config: ApiKeyConfig, event: CommentsEvent) -> list[NewDelivery]:
    """The deliveries of the event to the key's advanced endpoints, when advanced webhooks were
    on when it happened."""
    if not let_through(
        config, event, ("advancedWebhook.isEnabled", config.advancedWebhook.isEnabled)
    ):
        return []
    return [
        delivery_to(endpoint, event, config.advancedWebhook)
        for endpoint in config.advancedEndpoints
        if receives(endpoint, event)
    ]


def delivery_to(
    endpoint: AdvancedEndpointState, event: CommentsEvent, config: AdvancedWebhookConfigState
) -> NewDelivery:
    delivery_id = webhook_id(event.id, endpoint.id)
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

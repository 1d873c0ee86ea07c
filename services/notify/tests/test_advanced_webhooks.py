"""Advanced webhooks in notify: which endpoints take an event and what they get, and the
signature a delivery carries, from the key's endpoints as identity answers them."""

from __future__ import annotations

import base64
import time
from typing import Any

import msgspec
import pytest
from standardwebhooks.webhooks import Webhook

from redline.notify.advanced.credentials import AdvancedWebhookCredentials
from redline.notify.deliveries.headers import Undeliverable
from redline.notify.deliveries.storage import ClaimedDelivery
from redline.notify.webhooks.enqueue import deliveries_of
from redline.proto.events import (
    ActivityConfigState,
    AdvancedWebhookConfigState,
    AnnotationAdded,
    CommentAdded,
    CommentsEvent,
    WebhookConfigState,
)
from redline.proto.rpc import AdvancedEndpointState, ApiKeyConfig
from redline.testing.annotations import annotation, comment

SECRET = "whsec_" + base64.b64encode(b"an endpoint signing secret!!").decode()
URL = "https://hooks.example.com/adv"
ANNOTATION = annotation(comments=[comment(1, commentText="secret words", commentHtml="<b>x</b>")])


def endpoint(endpoint_id: str = "ep_1", **fields: Any) -> AdvancedEndpointState:
    state: dict[str, Any] = {
        "id": endpoint_id,
        "url": URL,
        "secret": SECRET,
        "createdAt": 0,
        "switchedAt": 0,
    }
    return msgspec.convert({**state, **fields}, AdvancedEndpointState)


class Endpoints:
    """The key's advanced webhooks as identity would answer them now."""

    def __init__(
        self,
        *endpoints: AdvancedEndpointState,
        switched: dict[str, int] | None = None,
        **config: Any,
    ) -> None:
        self.answer = ApiKeyConfig(
            workspaceId="ws1",
            apiKey="key1",
            webhook=WebhookConfigState(),
            advancedWebhook=msgspec.convert(
                {"isEnabled": True, **config}, AdvancedWebhookConfigState
            ),
            activity=ActivityConfigState(),
            advancedEndpoints=list(endpoints),
            switchedAt=switched or {},
        )

    async def get(self, api_key: str) -> ApiKeyConfig:
        assert api_key == "key1"
        return self.answer


def comment_added(**fields: Any) -> CommentsEvent:
    common: dict[str, Any] = {
        "workspaceId": "ws1",
        "apiKey": "key1",
        "organizationId": "org1",
        "documentId": "doc1",
        "annotationId": "a1",
        "annotation": ANNOTATION,
    }
    return CommentAdded(**common, commentId=1, comment=ANNOTATION.comments[0], **fields)


async def planned(endpoints: Endpoints, event: CommentsEvent) -> dict[str, Any]:
    """The deliveries planned for the event: body decoded, by endpoint id."""
    deliveries = deliveries_of(await endpoints.get("key1"), event)
    return {d.target: msgspec.json.decode(d.body) for d in deliveries}


async def test_only_enabled_endpoints_subscribed_to_the_type_take_the_event() -> None:
    event = comment_added()
    endpoints = Endpoints(
        endpoint("ep_all"),
        endpoint("ep_adds", filterTypes=["comment.add"]),
        endpoint("ep_updates", filterTypes=["comment.update"]),
        endpoint("ep_off", disabled=True),
        endpoint("ep_channels", channels=["c1"]),
        endpoint("ep_later", createdAt=event.occurredAt + 1, switchedAt=event.occurredAt + 1),
        # Disabled after the event: it was enabled then. Enabled after it: it was not.
        endpoint("ep_off_since", disabled=True, switchedAt=event.occurredAt + 1),
        endpoint("ep_on_since", switchedAt=event.occurredAt + 1),
    )

    sent = await planned(endpoints, event)

    assert set(sent) == {"ep_all", "ep_adds", "ep_off_since"}
    assert sent["ep_adds"]["event"] == "comment.add"
    assert sent["ep_adds"]["data"]["metadata"] == {
        "apiKey": "key1",
        "organizationId": "org1",
        "documentId": "doc1",
        "organization": {"organizationId": "org1"},
        "document": {"documentId": "doc1"},
    }


async def test_nothing_is_planned_when_off_or_unasked() -> None:
    assert await planned(Endpoints(endpoint(), isEnabled=False), comment_added()) == {}
    event = comment_added()
    turned_on_since = Endpoints(
        endpoint(), switched={"advancedWebhook.isEnabled": event.occurredAt + 1}
    )
    assert await planned(turned_on_since, event) == {}
    assert await planned(Endpoints(endpoint()), comment_added(triggerNotification=False)) == {}
    annotation = AnnotationAdded(
        workspaceId="ws1",
        apiKey="key1",
        organizationId="org1",
        documentId="doc1",
        annotationId="a1",
        annotation=ANNOTATION,
    )
    assert set(await planned(Endpoints(endpoint()), annotation)) == {"ep_1"}


async def test_the_key_settings_protect_and_encode_the_message() -> None:
    protected = await planned(Endpoints(endpoint(), enableDataProtection=True), comment_added())
    encoded = await planned(Endpoints(endpoint(), encodeData=True), comment_added())

    assert "secret words" not in msgspec.json.encode(protected).decode()
    message = msgspec.json.decode(base64.b64decode(encoded["ep_1"]["encodedPayload"]))
    assert message["data"]["targetComment"]["commentText"] == "secret words"


def claimed(body: bytes, **fields: Any) -> ClaimedDelivery:
    delivery: dict[str, Any] = {
        "id": 1,
        "webhook_id": "msg_e1_ep_1",
        "workspace_id": "ws1",
        "api_key": "key1",
        "kind": "advanced",
        "url": URL,
        "ordering_key": "key1/org1/doc1",
        "body": body,
        "attempts": 0,
        "round_failures": 0,
        "claim_token": "t",
        "target": "ep_1",
    }
    return ClaimedDelivery(**{**delivery, **fields})


async def test_a_delivery_is_signed_with_its_endpoints_secret() -> None:
    body = b'{"event":"comment.add"}'
    timestamp = int(time.time())
    delivery = claimed(body)

    headers = await AdvancedWebhookCredentials(Endpoints(endpoint())).headers(delivery, timestamp)

    sent = {"webhook-id": delivery.webhook_id, "webhook-timestamp": str(timestamp), **headers}
    assert Webhook(SECRET).verify(body, sent) == {"event": "comment.add"}


@pytest.mark.parametrize(
    ("endpoints", "reason"),
    [
        (Endpoints(), "was deleted"),
        (Endpoints(endpoint("ep_2")), "was deleted"),
        (Endpoints(endpoint(disabled=True)), "is disabled"),
        (Endpoints(endpoint(url="https://elsewhere.example.com/")), "URL has changed"),
        (Endpoints(endpoint(), isEnabled=False), "turned off"),
        (Endpoints(endpoint(secret="whsec_not base64!")), "not base64"),
    ],
)
async def test_a_delivery_its_endpoint_no_longer_takes_fails_unsent(
    endpoints: Endpoints, reason: str
) -> None:
    with pytest.raises(Undeliverable, match=reason):
        await AdvancedWebhookCredentials(endpoints).headers(claimed(b"{}"), 0)


async def test_the_rate_is_the_endpoints_own_while_it_takes_the_delivery() -> None:
    delivery = claimed(b"{}")

    assert await AdvancedWebhookCredentials(Endpoints(endpoint(rateLimit=3))).rate_of(delivery) == 3
    assert await AdvancedWebhookCredentials(Endpoints(endpoint())).rate_of(delivery) is None
    # An endpoint that no longer takes it has no rate: its headers say why it is not sent.
    assert await AdvancedWebhookCredentials(Endpoints()).rate_of(delivery) is None

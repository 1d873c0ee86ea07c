"""Webhooks turned on or off just after a comment: the event's time decides, not the moment notify
reads it. Each test sends the comment and the change of settings back to back, so notify may read
the event before or after the change; the outcome must be the same either way."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, Workspace
from redline.testing.receiver import WebhookReceiver
from tests.e2e.webhook_flows import ALL_TRIGGERS, add_annotations, enable_webhooks, notified, ok

ORG_DOC = {"organizationId": "acme", "documentId": "d1"}


async def update_webhooks(api: ApiClient, ws: Workspace, **changes: Any) -> None:
    await ok(api, ws, "/v2/workspace/webhookconfig/update", changes)


def annotation_ids(receiver: WebhookReceiver) -> list[str]:
    return [r.json()["commentAnnotation"]["annotationId"] for r in receiver.delivered("/raw")]


async def test_a_comment_made_before_webhooks_were_turned_on_is_not_sent(
    api: ApiClient, receiver: WebhookReceiver
) -> None:
    ws = await api.create_workspace("turned-on@example.com")
    await enable_webhooks(api, ws, receiver, processed=False)
    await update_webhooks(api, ws, useWebhookService=False)

    await add_annotations(api, ws, notified(annotationId="before"))
    await update_webhooks(api, ws, useWebhookService=True)
    await add_annotations(api, ws, notified(annotationId="after"))

    # Deliveries of one document are sent in order: once "after" arrived, "before" was decided.
    await receiver.wait_for(1, path="/raw")
    assert annotation_ids(receiver) == ["after"]


async def test_a_comment_made_before_its_trigger_was_turned_off_is_still_sent(
    api: ApiClient, receiver: WebhookReceiver
) -> None:
    ws = await api.create_workspace("turned-off@example.com")
    await enable_webhooks(api, ws, receiver, processed=False)

    await add_annotations(api, ws, notified(annotationId="before"))
    triggers = {**ALL_TRIGGERS, "comment_annotation.add": False}
    await update_webhooks(api, ws, webhookServiceConfig={"triggers": triggers})
    await add_annotations(api, ws, notified(annotationId="after"))
    # A trigger still on, so that something after the change arrives and closes the test.
    await ok(
        api,
        ws,
        "/v2/commentannotations/comments/add",
        {
            **ORG_DOC,
            "annotationId": "after",
            "commentData": [{"from": {"userId": "bob"}}],
        },
    )

    await receiver.wait_for(2, path="/raw")
    assert annotation_ids(receiver) == ["before", "after"]
    assert [r.json()["eventType"] for r in receiver.delivered("/raw")] == [
        "comment_annotation.add",
        "comment.add",
    ]

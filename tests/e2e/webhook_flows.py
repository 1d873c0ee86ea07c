"""Steps the webhook flows share: turning webhooks on for a key, making comment events."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, Workspace
from redline.testing.receiver import WebhookReceiver

RECEIVER_TOKEN = "receiver-secret-token"

ALL_TRIGGERS = dict.fromkeys(
    (
        "comment_annotation.add",
        "comment.add",
        "comment.update",
        "comment.delete",
        "comment_annotation.status_change",
        "comment_annotation.assign",
        "comment_annotation.priority_change",
        "comment_annotation.suggestion_accept",
        "comment_annotation.suggestion_reject",
        "comment.reaction_add",
        "comment.reaction_delete",
        "comment_annotation.delete",
    ),
    True,
)


async def ok(api: ApiClient, ws: Workspace, path: str, data: dict[str, Any]) -> Any:
    response = await api.post(path, data, headers=ws.key_headers)
    assert response.status == 200, (path, response.body)
    return response.data


async def enable_webhooks(
    api: ApiClient,
    ws: Workspace,
    receiver: WebhookReceiver,
    *,
    processed: bool = True,
    **settings: Any,
) -> None:
    config: dict[str, Any] = {
        "authToken": RECEIVER_TOKEN,
        "rawNotificationUrl": receiver.url("/raw"),
        "triggers": ALL_TRIGGERS,
        **settings,
    }
    if processed:
        config["processedNotificationUrl"] = receiver.url("/processed")
    await ok(
        api,
        ws,
        "/v2/workspace/webhookconfig/update",
        {"useWebhookService": True, "webhookServiceConfig": config},
    )


def comment(user: str = "alice", text: str = "Hello", **extra: Any) -> dict[str, Any]:
    return {"from": {"userId": user, "name": user.title()}, "commentText": text, **extra}


async def add_annotations(
    api: ApiClient,
    ws: Workspace,
    *annotations: dict[str, Any],
    document_id: str = "d1",
) -> list[str]:
    data = await ok(
        api,
        ws,
        "/v2/commentannotations/add",
        {
            "organizationId": "acme",
            "documentId": document_id,
            "createOrganization": True,
            "createDocument": True,
            "commentAnnotations": list(annotations),
        },
    )
    return list(data) if isinstance(data, dict) else [a["annotationId"] for a in data]


def notified(*comments: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """An annotation whose root comment asks for notifications."""
    first, *rest = comments or (comment(),)
    return {"commentData": [{**first, "triggerNotification": True}, *rest], **extra}

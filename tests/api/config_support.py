"""Shared by the configuration API tests: expected defaults, request helpers, event readers."""

from __future__ import annotations

from typing import Any

from redline.proto.events import (
    Event,
    decode_event,
)
from redline.testing.api import ApiClient, Response, Workspace
from tests.api.stream_support import published

STANDARD_TRIGGERS = {
    "comment_annotation.add",
    "comment.add",
    "comment.update",
    "comment.delete",
    "comment_annotation.status_change",
    "comment_annotation.assign",
    "comment_annotation.priority_change",
    "comment.reaction_add",
    "comment.reaction_delete",
}
SUGGESTION_TRIGGERS = {
    "comment_annotation.suggestion_accept",
    "comment_annotation.suggestion_reject",
}
SEEDED_WEBHOOK_TRIGGERS = {
    **dict.fromkeys(STANDARD_TRIGGERS, True),
    **dict.fromkeys(SUGGESTION_TRIGGERS, False),
    "huddle.created": True,
    "huddle.joined": True,
    "crdt.update_data": False,
    "recorder.recording_done": False,
    "recorder.transcription_done": False,
}
SEEDED_ACTIVITY_TRIGGERS = dict.fromkeys(STANDARD_TRIGGERS | SUGGESTION_TRIGGERS, True)
DEFAULT_WEBHOOK_CONFIG = {
    "useWebhookService": False,
    "webhookServiceConfig": {
        "authToken": "",
        "rawNotificationUrl": "",
        "processedNotificationUrl": "",
        "encodeData": False,
        "encryptData": False,
        "publicKey": "",
        "triggers": {},
        "enableDataProtection": False,
    },
}
DEFAULT_ADVANCED_CONFIG = {
    "isEnabled": False,
    "encryptData": False,
    "encodeData": False,
    "publicKey": "",
    "enableDataProtection": False,
}


async def call(api: ApiClient, ws: Workspace, path: str, data: Any = None) -> Response:
    return await api.post(path, data or {}, headers=ws.key_headers)


async def ok(api: ApiClient, ws: Workspace, path: str, data: Any = None) -> Any:
    response = await call(api, ws, path, data)
    assert response.status == 200, response.body
    assert response.result["status"] == "success"
    return response.data


async def domains_of(api: ApiClient, ws: Workspace) -> list[str]:
    data = await ok(api, ws, "/v2/workspace/domains/get")
    # The reference's `allowedDomains`, and the same list as `domains`.
    assert set(data) == {"allowedDomains", "domains"}
    assert data["domains"] == data["allowedDomains"]
    domains: list[str] = data["allowedDomains"]
    return domains


async def config_events(database_url: str, nats_url: str, api_key: str) -> list[Event]:
    """The config events of `api_key` that identity published, oldest first."""
    found = [
        decode_event(payload)
        for subject, payload in await published(database_url, nats_url, "identity")
        if subject.startswith("evt.identity.config.")
    ]
    return [event for event in found if getattr(event, "apiKey", None) == api_key]


async def published_subjects(database_url: str, nats_url: str) -> list[str]:
    """Subjects of the events identity published, oldest first."""
    return [subject for subject, _ in await published(database_url, nats_url, "identity")]

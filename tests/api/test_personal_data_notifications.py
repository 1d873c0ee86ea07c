"""A user's in-app notifications and preferences in their personal data: exported, then erased
with the rest, while another user's feed keeps what is theirs (the erased user anonymised)."""

from __future__ import annotations

import json
from typing import Any

from redline.testing.api import ApiClient, Workspace
from tests.api.personal_data_support import erase, export_all, until_completed

ORG, DOC = "acme", "contract"


async def notify(api: ApiClient, ws: Workspace, notification_id: str, **fields: Any) -> None:
    added = await api.post(
        "/v2/notifications/add",
        {
            "organizationId": ORG,
            "documentId": DOC,
            "createOrganization": True,
            "createDocument": True,
            "notificationId": notification_id,
            "displayHeadlineMessageTemplate": "A headline",
            "displayBodyMessage": "A body",
            **fields,
        },
        headers=ws.key_headers,
    )
    assert added.status == 200, added.body


async def test_notifications_and_preferences_are_exported_and_erased(api: ApiClient) -> None:
    ws = await api.create_workspace("gdpr-notifications@example.com")
    await notify(api, ws, "n-to", actionUser={"userId": "olga"}, notifyUsers=[{"userId": "erin"}])
    await notify(api, ws, "n-by", actionUser={"userId": "erin"}, notifyUsers=[{"userId": "olga"}])
    preference = {"organizationId": ORG, "userIds": ["erin"], "config": {"inbox": "MINE"}}
    saved = await api.post("/v2/notifications/config/set", preference, headers=ws.key_headers)
    assert saved.status == 200, saved.body

    before = await export_all(api, ws, "erin")
    assert sorted(n["id"] for n in before["notifications"]) == ["n-by", "n-to"]
    assert [p["config"] for p in before["notificationPreferences"]] == [{"inbox": "MINE"}]

    await until_completed(api, ws, await erase(api, ws, "erin"))

    after = await export_all(api, ws, "erin")
    assert after["notifications"] == []
    assert after["notificationPreferences"] == []
    olga = await export_all(api, ws, "olga")
    assert [n["id"] for n in olga["notifications"]] == ["n-to"]
    assert "erin" not in json.dumps(olga["notifications"])

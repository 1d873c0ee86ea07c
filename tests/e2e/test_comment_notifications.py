"""A comment thread → in-app notifications: a mention, a reply and an assignment each reach the
right users' feeds, and never the user who acted."""

from __future__ import annotations

import asyncio
from typing import Any

from redline.testing.api import ApiClient, Workspace
from tests.api.notification_support import tagging as comment
from tests.e2e.webhook_flows import ok

WHERE = {"organizationId": "acme", "documentId": "d1"}
USERS = ("alice", "bob", "carol", "dave", "erin")


async def feed(api: ApiClient, ws: Workspace, user_id: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = await ok(
        api, ws, "/v2/notifications/get", {"organizationId": "acme", "userId": user_id}
    )
    return found


async def feeds_once_settled(
    api: ApiClient, ws: Workspace, expected_total: int
) -> dict[str, list[tuple[str, str]]]:
    """Every user's feed as (action, headline) pairs, once the feeds hold `expected_total`
    notifications in all, and again a moment later (nothing more may arrive)."""

    async def read() -> dict[str, list[tuple[str, str]]]:
        return {
            user: [
                (e["actionType"], e["displayHeadlineMessageTemplate"])
                for e in await feed(api, ws, user)
            ]
            for user in USERS
        }

    async with asyncio.timeout(20):
        while True:
            found = await read()
            if sum(map(len, found.values())) >= expected_total:
                break
            await asyncio.sleep(0.05)
    await asyncio.sleep(1.0)
    assert await read() == found
    return found


async def test_mention_reply_and_assignment_reach_the_right_feeds(api: ApiClient) -> None:
    ws = await api.create_workspace("thread@example.com")
    await ok(api, ws, "/v2/workspace/notificationconfig/update", {"useNotificationService": True})

    # alice opens a thread mentioning bob (and herself: her own action never notifies her).
    first = comment("alice", "{{bob}}, {{alice}} look", "bob", "alice", triggerNotification=True)
    await ok(
        api,
        ws,
        "/v2/commentannotations/add",
        {
            **WHERE,
            "createOrganization": True,
            "createDocument": True,
            "commentAnnotations": [{"annotationId": "a1", "commentData": [first]}],
        },
    )
    # carol replies, mentioning dave: alice hears of the reply, dave of the mention.
    await ok(
        api,
        ws,
        "/v2/commentannotations/comments/add",
        {**WHERE, "annotationId": "a1", "commentData": [comment("carol", "{{dave}}?", "dave")]},
    )
    # alice assigns the thread to erin, then to herself.
    for assignee in ("erin", "alice"):
        update = {"assignedTo": {"userId": assignee}, "from": {"userId": "alice"}}
        await ok(
            api,
            ws,
            "/v2/commentannotations/update",
            {**WHERE, "annotationIds": ["a1"], "updatedData": [update]},
        )

    feeds = await feeds_once_settled(api, ws, expected_total=4)

    assert feeds == {
        "alice": [
            ("comment.add", "{actionUser} replied in a comment thread you are part of"),
        ],
        "bob": [("comment_annotation.add", "{actionUser} mentioned you in a comment")],
        "carol": [],
        "dave": [("comment.add", "{actionUser} mentioned you in a comment")],
        "erin": [("comment_annotation.assign", "{actionUser} assigned a comment to you")],
    }
    [reply] = await feed(api, ws, "alice")
    assert reply["actionUser"]["userId"] == "carol"
    assert reply["displayBodyMessage"] == "{{dave}}?"
    assert reply["notificationSourceData"]["annotationId"] == "a1"
    assert reply["notifyUsers"] == {"alice": True}
    assert reply["isRead"] is False


async def test_a_mentioned_group_notifies_every_member_but_the_author(api: ApiClient) -> None:
    ws = await api.create_workspace("group-mention@example.com")
    await ok(api, ws, "/v2/workspace/notificationconfig/update", {"useNotificationService": True})
    people = [{"userId": u} for u in ("alice", "bob", "carol", "dave")]
    await ok(api, ws, "/v2/users/add", {"organizationId": "acme", "users": people})
    group = {"groupId": "legal", "groupName": "Legal"}
    await ok(
        api,
        ws,
        "/v2/organizations/usergroups/add",
        {"organizationId": "acme", "organizationUserGroups": [group]},
    )
    await ok(
        api,
        ws,
        "/v2/organizations/usergroups/users/add",
        {
            "organizationId": "acme",
            "organizationUserGroupId": "legal",
            "userIds": ["alice", "bob", "carol"],
        },
    )

    # alice, herself in the group, mentions it: bob and carol hear of it, dave (not in it) and
    # alice (who acted) do not.
    mention = {
        "from": {"userId": "alice"},
        "commentText": "{{legal}} please review",
        "taggedUserContacts": [{"userId": "legal", "text": "@Legal", "group": group}],
        "triggerNotification": True,
    }
    await ok(
        api,
        ws,
        "/v2/commentannotations/add",
        {
            **WHERE,
            "createDocument": True,
            "commentAnnotations": [{"annotationId": "g1", "commentData": [mention]}],
        },
    )

    found = await feeds_once_settled(api, ws, expected_total=2)
    mentioned = [("comment_annotation.add", "{actionUser} mentioned you in a comment")]
    assert found == {"alice": [], "bob": mentioned, "carol": mentioned, "dave": [], "erin": []}

"""Feeds filled from comments events: what the key's settings, the request's flag and users'
preferences let through, group members tagged, and status changes reaching only ALL inboxes."""

from __future__ import annotations

from redline.testing.api import ApiClient
from tests.api.notification_support import (
    ORG,
    SERVICE_UPDATE,
    WHERE,
    annotate,
    enable,
    feed,
    ok,
    settle,
    tagging,
    wait_for_feed,
)


async def test_nothing_is_notified_until_the_service_and_the_trigger_are_on(api: ApiClient) -> None:
    ws = await api.create_workspace("feed-switches@example.com")
    await annotate(api, ws, "off", tagging("alice", "hi", "bob", triggerNotification=True))
    await enable(
        api,
        ws,
        notificationServiceConfig={"triggers": {"comment": {"comment_annotation.add": False}}},
    )
    await annotate(api, ws, "trigger-off", tagging("alice", "hi", "bob", triggerNotification=True))
    await ok(
        api,
        ws,
        SERVICE_UPDATE,
        notificationServiceConfig={"triggers": {"comment": {"comment_annotation.add": True}}},
    )
    await annotate(api, ws, "flag-off", tagging("alice", "hi", "bob", triggerNotification=False))
    await annotate(api, ws, "on", tagging("alice", "hi", "bob", triggerNotification=True))

    [entry] = await wait_for_feed(api, ws, "bob", 1)
    await settle()
    assert [e["notificationSourceData"]["annotationId"] for e in await feed(api, ws, "bob")] == [
        "on"
    ]
    assert entry["actionType"] == "comment_annotation.add"
    assert entry["notificationSource"] == "comment"
    assert entry["displayHeadlineMessageTemplate"] == "{actionUser} mentioned you in a comment"
    assert entry["actionUser"] == {"userId": "alice"}
    assert entry["displayBodyMessage"] == "hi"


async def test_preferences_and_status_changes(api: ApiClient) -> None:
    ws = await api.create_workspace("feed-prefs@example.com")
    await enable(api, ws)
    await ok(
        api,
        ws,
        "/v2/notifications/config/set",
        organizationId=ORG,
        userIds=["mute"],
        config={"inbox": "NONE"},
    )
    await ok(
        api,
        ws,
        "/v2/notifications/config/set",
        organizationId=ORG,
        userIds=["bob"],
        config={"inbox": "MINE"},
    )
    await annotate(api, ws, "t1", tagging("alice", "first", "mute", triggerNotification=True))
    await ok(
        api,
        ws,
        "/v2/commentannotations/comments/add",
        **WHERE,
        annotationId="t1",
        commentData=[tagging("bob", "reply")],
    )
    await ok(
        api,
        ws,
        "/v2/commentannotations/update",
        **WHERE,
        annotationIds=["t1"],
        updatedData=[
            {
                "status": {"id": "done", "name": "Done", "type": "terminal"},
                "from": {"userId": "carol"},
            }
        ],
    )

    alice = await wait_for_feed(api, ws, "alice", 2)
    assert sorted(e["actionType"] for e in alice) == [
        "comment.add",
        "comment_annotation.status_change",
    ]
    await settle()
    assert await feed(api, ws, "mute") == []
    # bob replied (MINE): the status change of his thread does not involve him directly.
    assert await feed(api, ws, "bob") == []
    assert await feed(api, ws, "carol") == []


async def test_a_restricted_thread_notifies_only_those_who_may_see_it(api: ApiClient) -> None:
    ws = await api.create_workspace("feed-visibility@example.com")
    await enable(api, ws)
    restricted = {"type": "restricted", "userIds": ["bob"]}
    await ok(
        api,
        ws,
        "/v2/commentannotations/add",
        **WHERE,
        createOrganization=True,
        createDocument=True,
        commentAnnotations=[
            {
                "annotationId": "private",
                "visibility": restricted,
                "commentData": [
                    tagging("alice", "for bob", "bob", "dave", triggerNotification=True)
                ],
            }
        ],
    )
    # A later public thread tagging dave: once it is in his feed, the private one was handled.
    await annotate(api, ws, "open", tagging("alice", "for all", "dave", triggerNotification=True))

    [bob] = await wait_for_feed(api, ws, "bob", 1)
    [dave] = await wait_for_feed(api, ws, "dave", 1)
    assert bob["notificationSourceData"]["annotationId"] == "private"
    assert bob["notifyUsers"] == {"bob": True}
    assert dave["notificationSourceData"]["annotationId"] == "open"

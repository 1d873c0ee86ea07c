"""The notify-notifications consumer's handler against a real database: one notification per
event and reason however often the event is delivered, users' preferences applied, only users
who may see the thread notified, nothing for a key that is gone."""

from __future__ import annotations

from typing import Any

import msgspec

from redline.envelope.errors import ApiError, NotFound
from redline.notify.notifications.recorder import NotificationRecorder
from redline.pg import Pool
from redline.proto.annotation import Annotation, VisibilityConfig
from redline.proto.events import CommentAdded, StatusChanged
from redline.proto.events.identity import (
    ActivityConfigState,
    AdvancedWebhookConfigState,
    NotificationConfigState,
    NotificationServiceConfigState,
    WebhookConfigState,
)
from redline.proto.rpc import AccessDecision, ApiKeyConfig
from redline.testing.annotations import annotation, comment

WHERE: dict[str, Any] = {
    "workspaceId": "ws1",
    "apiKey": "key1",
    "organizationId": "org1",
    "documentId": "d1",
    "annotationId": "a1",
}
THREAD = annotation(comments=[comment(1, "alice"), comment(2, "bob")])


class Configs:
    def __init__(self, error: ApiError | None = None) -> None:
        self.error = error

    async def get(self, api_key: str) -> ApiKeyConfig:
        if self.error is not None:
            raise self.error
        triggers = {"comment": {"comment.add": True, "comment_annotation.status_change": True}}
        return ApiKeyConfig(
            workspaceId="ws1",
            apiKey=api_key,
            webhook=WebhookConfigState(),
            advancedWebhook=AdvancedWebhookConfigState(),
            activity=ActivityConfigState(),
            notification=NotificationConfigState(
                useNotificationService=True,
                notificationServiceConfig=NotificationServiceConfigState(triggers=triggers),
            ),
        )


class Access:
    """Identity's access answers by user (no access for anyone else), and who was asked."""

    def __init__(self, decisions: dict[str, AccessDecision] | None = None) -> None:
        self.decisions = decisions or {}
        self.asked: list[str] = []

    async def check(
        self, api_key: str, organization_id: str, document_id: str, user_id: str
    ) -> AccessDecision:
        self.asked.append(user_id)
        return self.decisions.get(user_id, AccessDecision(None, "restricted", "none"))


def reply_by_carol(thread: Annotation = THREAD) -> CommentAdded:
    reply = comment(
        3,
        "carol",
        commentText="hi",
        taggedUserContacts=[{"userId": "dave", "contact": {"userId": "dave"}}],
    )
    return CommentAdded(
        **WHERE,
        annotation=thread,
        actionUser={"userId": "carol"},
        commentId=3,
        comment=reply,
    )


async def feed_rows(pool: Pool) -> list[tuple[str, str]]:
    rows = await pool.fetch(
        "SELECT notification_id, user_id FROM notify.notification_recipient"
        " ORDER BY notification_id, user_id"
    )
    return [(r["notification_id"], r["user_id"]) for r in rows]


async def test_a_redelivered_event_notifies_once(pool: Pool) -> None:
    recorder = NotificationRecorder(pool, Configs(), Access())
    event = reply_by_carol()

    await recorder.handle([event])
    await recorder.handle([event, event])

    mention, reply = f"ntf_{event.id}_mention", f"ntf_{event.id}_reply"
    assert await feed_rows(pool) == [(mention, "dave"), (reply, "alice"), (reply, "bob")]
    count = await pool.fetchval("SELECT count(*) FROM notify.notification")
    assert count == 2


async def test_preferences_are_applied_when_the_feed_is_filled(pool: Pool) -> None:
    await pool.execute(
        "INSERT INTO notify.notification_user_config VALUES"
        " ('key1', 'org1', 'alice', '', '{\"inbox\": \"MINE\"}'),"
        " ('key1', 'org1', 'bob', 'd1', '{\"inbox\": \"NONE\"}'),"
        " ('key1', 'org1', 'bob', '', '{\"inbox\": \"ALL\"}')"
    )
    status = StatusChanged(**WHERE, annotation=THREAD, actionUser={"userId": "carol"})

    await NotificationRecorder(pool, Configs(), Access()).handle([reply_by_carol(), status])

    users = [user for _, user in await feed_rows(pool)]
    # alice (MINE) hears of the reply but not of the status change; bob (NONE here) of neither.
    assert sorted(users) == ["alice", "dave"]


async def test_a_key_that_is_gone_notifies_nobody(pool: Pool) -> None:
    await NotificationRecorder(pool, Configs(NotFound("gone")), Access()).handle([reply_by_carol()])

    assert await feed_rows(pool) == []


async def test_a_restricted_thread_notifies_only_users_it_is_visible_to(pool: Pool) -> None:
    restricted = VisibilityConfig(type="restricted", userIds=["bob"])
    thread = msgspec.structs.replace(THREAD, visibilityConfig=restricted)
    access = Access()

    await NotificationRecorder(pool, Configs(), access).handle([reply_by_carol(thread)])

    # dave is tagged but may not see the thread; alice wrote it, bob is named in it.
    assert [user for _, user in await feed_rows(pool)] == ["alice", "bob"]
    assert access.asked == []


async def test_an_organization_private_thread_asks_how_each_user_reaches_the_document(
    pool: Pool,
) -> None:
    private = VisibilityConfig(type="organizationPrivate")
    thread = msgspec.structs.replace(THREAD, visibilityConfig=private)
    access = Access(
        {
            "bob": AccessDecision("editor", "organizationPrivate", "organization"),
            "dave": AccessDecision("viewer", "public", "public"),
        }
    )

    await NotificationRecorder(pool, Configs(), access).handle([reply_by_carol(thread)])

    # dave reaches the document only because it is public; alice wrote the thread (not asked).
    assert [user for _, user in await feed_rows(pool)] == ["alice", "bob"]
    assert sorted(access.asked) == ["bob", "dave"]

"""Notification mail queued by the notify-notifications handler, against a real database: rows
written with the notifications (once however often an event comes), the email preference
applied, batches gathered up to their size, and nothing queued without a relay or with mail off.
"""

from __future__ import annotations

from redline.notify.mail.compose import compose
from redline.notify.notifications.models import Notification, NotificationMetadata
from redline.notify.notifications.recorder import NotificationRecorder
from redline.pg import Pool
from redline.proto.events import CommentAdded
from redline.proto.events.identity import (
    ActivityConfigState,
    AdvancedWebhookConfigState,
    EmailConfigState,
    NotificationBatchesState,
    NotificationBatchState,
    NotificationConfigState,
    NotificationServiceConfigState,
    WebhookConfigState,
)
from redline.proto.rpc import ApiKeyConfig
from redline.testing.annotations import annotation, comment
from services.notify.tests.test_notification_recorder import WHERE, Access

THREAD = annotation(comments=[comment(1, "bob")])


class Configs:
    def __init__(self, *, mail: bool = True, batch: NotificationBatchState | None = None) -> None:
        self.mail = mail
        self.batch = batch or NotificationBatchState()

    async def get(self, api_key: str) -> ApiKeyConfig:
        settings = NotificationServiceConfigState(
            triggers={"comment": {"comment.add": True}},
            batchConfig=NotificationBatchesState(user=self.batch),
        )
        return ApiKeyConfig(
            workspaceId="ws1",
            apiKey=api_key,
            webhook=WebhookConfigState(),
            advancedWebhook=AdvancedWebhookConfigState(),
            activity=ActivityConfigState(),
            notification=NotificationConfigState(
                useNotificationService=True, notificationServiceConfig=settings
            ),
            email=EmailConfigState(useEmailService=self.mail, triggers={"comment.add": True}),
        )


def mention_of_dave(comment_id: int) -> CommentAdded:
    mention = comment(
        comment_id,
        "carol",
        commentText=f"note {comment_id}",
        taggedUserContacts=[{"userId": "dave"}],
    )
    return CommentAdded(
        **WHERE,
        annotation=THREAD,
        actionUser={"userId": "carol"},
        commentId=comment_id,
        comment=mention,
    )


async def queued(pool: Pool) -> list[tuple[str, list[str], str, bool]]:
    """(user, notification ids, state, due now) of every queued mail."""
    rows = await pool.fetch(
        "SELECT user_id, notification_ids, state, due_at <= now() AS due"
        " FROM notify.notification_mail ORDER BY user_id, id"
    )
    return [(r["user_id"], list(r["notification_ids"]), r["state"], r["due"]) for r in rows]


async def test_each_new_notification_is_queued_once_for_the_users_whose_email_takes_it(
    pool: Pool,
) -> None:
    # bob takes only what involves him by mail: a reply in his thread does.
    await pool.execute(
        "INSERT INTO notify.notification_user_config VALUES"
        " ('key1', 'org1', 'alice', '', '{\"email\": \"NONE\"}'),"
        " ('key1', 'org1', 'bob', '', '{\"email\": \"MINE\"}')"
    )
    recorder = NotificationRecorder(pool, Configs(), Access(), mail=True)
    event = mention_of_dave(2)

    await recorder.handle([event])
    await recorder.handle([event])

    mention, reply = f"ntf_{event.id}_mention", f"ntf_{event.id}_reply"
    assert await queued(pool) == [
        ("bob", [reply], "waiting", True),
        ("dave", [mention], "waiting", True),
    ]


async def test_nothing_is_queued_without_a_relay_or_with_mail_off(pool: Pool) -> None:
    await NotificationRecorder(pool, Configs(), Access(), mail=False).handle([mention_of_dave(2)])
    await NotificationRecorder(pool, Configs(mail=False), Access(), mail=True).handle(
        [mention_of_dave(3)]
    )

    assert await queued(pool) == []
    assert await pool.fetchval("SELECT count(*) FROM notify.notification") == 4


async def test_a_user_batch_gathers_notifications_until_it_is_full(pool: Pool) -> None:
    batch = NotificationBatchState(isEnabled=True, batchWindowSeconds=3600, maxActivities=3)
    recorder = NotificationRecorder(pool, Configs(batch=batch), Access(), mail=True)
    events = [mention_of_dave(n) for n in (2, 3, 4, 5)]

    await recorder.handle(events[:2])
    first, second = (f"ntf_{e.id}_mention" for e in events[:2])
    assert [q for q in await queued(pool) if q[0] == "dave"] == [
        ("dave", [first, second], "open", False)
    ]

    await recorder.handle(events[2:])
    third, fourth = (f"ntf_{e.id}_mention" for e in events[2:])
    # Full at three: due at once; the fourth opens the next batch.
    assert [q for q in await queued(pool) if q[0] == "dave"] == [
        ("dave", [first, second, third], "waiting", True),
        ("dave", [fourth], "open", False),
    ]


def test_a_digest_lists_its_notifications_with_profile_names() -> None:
    def notification(n: int) -> Notification:
        return Notification(
            id=f"n{n}",
            notificationSource="comment",
            actionUser={"userId": "carol"},
            displayHeadlineMessageTemplate="{actionUser} mentioned you",
            displayHeadlineMessageTemplateData={"actionUser": {"userId": "carol"}},
            displayBodyMessage=f"note {n}",
            metadata=NotificationMetadata(apiKey="key1", organizationId="org1", documentId="d1"),
            timestamp=n,
        )

    one = compose([notification(1)], {"carol": "Carol C"})
    assert one.subject == "Carol C mentioned you"
    assert "note 1" in one.body

    two = compose([notification(1), notification(2)], {})
    assert two.subject == "You have 2 new notifications"
    assert two.body.count("carol mentioned you") == 2
    assert two.body.index("note 1") < two.body.index("note 2")

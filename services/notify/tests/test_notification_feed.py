"""From comments events to feed entries, without I/O: who is tagged (taggedUsers first), who is
notified for what, never the actor, and the key's switches as they were when it happened."""

from __future__ import annotations

from typing import Any

import msgspec

from redline.notify.mail.rules import should_mail
from redline.notify.notifications.feed import (
    notification_of,
    recipients_of,
    should_notify,
    tagged_user_ids,
)
from redline.proto.annotation import Annotation, Comment, User
from redline.proto.events import AnnotationAdded, Assigned, CommentAdded, CommentUpdated
from redline.proto.events.identity import (
    ActivityConfigState,
    AdvancedWebhookConfigState,
    EmailConfigState,
    NotificationConfigState,
    NotificationServiceConfigState,
    WebhookConfigState,
)
from redline.proto.rpc import ApiKeyConfig
from redline.testing.annotations import annotation as stored_annotation
from redline.testing.annotations import comment as stored_comment

WHERE: dict[str, Any] = {
    "workspaceId": "ws1",
    "apiKey": "key1",
    "organizationId": "org1",
    "documentId": "d1",
    "annotationId": "a1",
}


def contact(user_id: str) -> dict[str, Any]:
    return {"userId": user_id, "contact": {"userId": user_id, "name": user_id}}


def said(comment_id: int, author: str, *tagged: str) -> Comment:
    return stored_comment(
        comment_id, author, commentText="text", taggedUserContacts=[contact(u) for u in tagged]
    )


def thread(*comments: Comment, **extra: Any) -> Annotation:
    return stored_annotation(comments=list(comments), **{"from": comments[0].from_}, **extra)


def reply(comment: Comment, annotation: Annotation, **extra: Any) -> CommentAdded:
    fields = {**WHERE, "actionUser": {"userId": comment.from_.userId}, **extra}
    return CommentAdded(
        **fields, annotation=annotation, commentId=comment.commentId, comment=comment
    )


def test_tagged_users_prefer_the_events_own_list_over_the_comment() -> None:
    comment = said(2, "bob", "carol")
    annotation = thread(said(1, "alice"), comment)

    assert tagged_user_ids(reply(comment, annotation)) == ["carol"]
    group = [{"userId": "dave"}, {"userId": "erin"}, {"userId": "dave"}, {"name": "no id"}]
    assert tagged_user_ids(reply(comment, annotation, taggedUsers=group)) == ["dave", "erin"]
    assert tagged_user_ids(reply(comment, annotation, taggedUsers=[])) == []


def test_an_added_annotation_notifies_mentions_of_its_root_comment_and_its_assignee() -> None:
    annotation = thread(
        said(1, "alice", "bob", "alice"), said(2, "alice", "carol"), assignedTo={"userId": "bob"}
    )
    event = AnnotationAdded(**WHERE, annotation=annotation, actionUser={"userId": "alice"})

    # The other comments of an added thread come with comment.add events of their own, which
    # notify their mentions.
    assert recipients_of(event) == {"mention": ["bob"]}


def test_a_reply_notifies_mentions_then_the_thread_but_never_the_actor() -> None:
    comment = said(3, "carol", "dave", "alice")
    annotation = thread(said(1, "alice"), said(2, "bob"), said(2, "carol"), comment)

    assert recipients_of(reply(comment, annotation)) == {
        "mention": ["dave", "alice"],
        "reply": ["bob"],
    }


def test_an_edit_notifies_only_users_it_newly_tags() -> None:
    before = thread(said(1, "alice", "bob"))
    after_comment = said(1, "alice", "bob", "carol")
    event = CommentUpdated(
        **WHERE,
        annotation=thread(after_comment),
        before=before,
        actionUser={"userId": "alice"},
        commentId=1,
        comment=after_comment,
    )

    assert recipients_of(event) == {"mention": ["carol"]}


def test_an_assignment_notifies_the_assignee_unless_they_assigned_themselves() -> None:
    annotation = thread(said(1, "alice"))

    def assigned(actor: str, assignee: str) -> Assigned:
        return Assigned(
            **WHERE,
            annotation=annotation,
            actionUser={"userId": actor},
            assigned=User(userId=assignee),
        )

    assert recipients_of(assigned("alice", "erin")) == {"assign": ["erin"]}
    assert recipients_of(assigned("erin", "erin")) == {}
    record = notification_of(assigned("alice", "erin"), "assign", ["erin"])
    assert record.notifyUsers == {"erin": True}
    assert record.metadata.documentId == "d1"
    assert record.actionType == "comment_annotation.assign"


def config(on: bool, trigger: bool, switched: dict[str, int] | None = None) -> ApiKeyConfig:
    return ApiKeyConfig(
        workspaceId="ws1",
        apiKey="key1",
        webhook=WebhookConfigState(),
        advancedWebhook=AdvancedWebhookConfigState(),
        activity=ActivityConfigState(),
        notification=NotificationConfigState(
            useNotificationService=on,
            notificationServiceConfig=NotificationServiceConfigState(
                triggers={"comment": {"comment.add": trigger}}
            ),
        ),
        switchedAt=switched or {},
    )


def test_the_switches_in_force_when_the_event_happened_decide() -> None:
    comment = said(2, "bob")
    event = reply(comment, thread(said(1, "alice"), comment), occurredAt=1_000)

    assert should_notify(config(True, True), event)
    assert not should_notify(config(False, True), event)
    assert not should_notify(config(True, False), event)
    # Turned on after the event: it was off then. Turned off after it: it was on.
    assert not should_notify(
        config(True, True, {"notification.useNotificationService": 2_000}), event
    )
    assert should_notify(
        config(True, False, {"notification.triggers.comment.comment.add": 2_000}), event
    )
    quiet = reply(comment, thread(said(1, "alice"), comment), triggerNotification=False)
    assert not should_notify(config(True, True), quiet)
    other = reply(comment, thread(said(1, "alice"), comment), workspaceId="ws2")
    assert not should_notify(config(True, True), other)


def test_mail_follows_the_email_switches_in_force_when_the_event_happened() -> None:
    comment = said(2, "bob")
    event = reply(comment, thread(said(1, "alice"), comment), occurredAt=1_000)

    def mailing(on: bool, trigger: bool, switched: dict[str, int] | None = None) -> ApiKeyConfig:
        email = EmailConfigState(useEmailService=on, triggers={"comment.add": trigger})
        return msgspec.structs.replace(config(True, True, switched), email=email)

    assert should_mail(mailing(True, True), event)
    assert not should_mail(mailing(False, True), event)
    assert not should_mail(mailing(True, False), event)
    assert not should_mail(mailing(True, True, {"email.useEmailService": 2_000}), event)
    assert should_mail(mailing(False, True, {"email.useEmailService": 2_000}), event)
    assert should_mail(mailing(True, False, {"email.triggers.comment.add": 2_000}), event)

"""Notification mail through a real SMTP server: a mention mails the user at the address of
their profile when the key's email config has mail on; the user's `email` preference NONE, mail
off, or turned off since, sends nothing; batching gathers notifications into one mail."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from redline.testing.api import ApiClient, StartApi, Workspace
from redline.testing.mail import Mail
from tests.api.mail_support import api_with_relay, with_settings
from tests.api.notification_support import (
    CONFIG_SET,
    ORG,
    annotate,
    enable,
    ok,
    settle,
    tagging,
    wait_for_feed,
)

EMAIL_UPDATE = "/v2/workspace/emailconfig/update"


async def users(api: ApiClient, ws: Workspace, *user_ids: str) -> None:
    """The users, with names and addresses in their profiles."""
    added = [{"userId": u, "name": u.title(), "email": f"{u}@people.test"} for u in user_ids]
    await ok(api, ws, "/v2/users/add", organizationId=ORG, users=added)


async def mail_on(api: ApiClient, ws: Workspace, **settings: Any) -> None:
    """Notification mail on (enabling seeds the comment triggers), in-app notifications too."""
    await ok(
        api,
        ws,
        EMAIL_UPDATE,
        useEmailService=True,
        emailServiceConfig={"fromCompany": "Acme", "fromEmail": "team@acme.test"},
    )
    await enable(api, ws, **settings)


def text_of(mail: Mail) -> str:
    body = mail.message.get_body(("plain",))
    assert body is not None
    text: str = body.get_content()
    return text


async def test_a_mention_mails_the_user_at_their_address(start_api: StartApi) -> None:
    async with api_with_relay(start_api) as (api, mailbox):
        ws = await api.create_workspace("mail-mention@example.com")
        await users(api, ws, "alice", "bob")
        await mail_on(api, ws)
        await annotate(
            api,
            ws,
            "a1",
            tagging("alice", "Please check clause 4", "bob", triggerNotification=True),
        )

        [mail] = await mailbox.wait_for(1)
        assert mail.recipients == ["bob@people.test"]
        assert mail.message["Subject"] == "Alice mentioned you in a comment"
        # The workspace's words, framed as such; no Reply-To to an address it never proved.
        assert mail.message["From"] == "Acme via Redline <mail@redline.test>"
        assert mail.message["Reply-To"] is None
        assert "Please check clause 4" in text_of(mail)
        assert "written by Acme, a workspace on Redline" in text_of(mail)
        # The in-app notification is there too.
        await wait_for_feed(api, ws, "bob", 1)
        await settle()
        assert len(mailbox.mail) == 1


async def test_email_preference_none_gets_no_mail(start_api: StartApi) -> None:
    async with api_with_relay(start_api) as (api, mailbox):
        ws = await api.create_workspace("mail-none@example.com")
        await users(api, ws, "alice", "bob", "carol")
        await mail_on(api, ws)
        await ok(api, ws, CONFIG_SET, organizationId=ORG, userIds=["bob"], config={"email": "NONE"})
        await annotate(
            api, ws, "a1", tagging("alice", "hi both", "bob", "carol", triggerNotification=True)
        )

        [mail] = await mailbox.wait_for(1)
        assert mail.recipients == ["carol@people.test"]
        # Bob's inbox still takes the notification; only the mail is off.
        await wait_for_feed(api, ws, "bob", 1)
        await settle()
        assert [m.recipients for m in mailbox.mail] == [["carol@people.test"]]


async def test_mail_off_sends_nothing(start_api: StartApi) -> None:
    async with api_with_relay(start_api) as (api, mailbox):
        ws = await api.create_workspace("mail-off@example.com")
        await users(api, ws, "alice", "bob")
        await enable(api, ws)
        await annotate(api, ws, "a1", tagging("alice", "no mail", "bob", triggerNotification=True))
        await wait_for_feed(api, ws, "bob", 1)

        # Mail on, but the trigger of added threads off.
        await ok(
            api,
            ws,
            EMAIL_UPDATE,
            useEmailService=True,
            emailServiceConfig={"triggers": {"comment_annotation.add": False}},
        )
        await annotate(
            api, ws, "a2", tagging("alice", "still none", "bob", triggerNotification=True)
        )
        await wait_for_feed(api, ws, "bob", 2)
        await settle()
        assert mailbox.mail == []


async def test_user_batching_gathers_notifications_into_one_mail(start_api: StartApi) -> None:
    async with api_with_relay(start_api) as (api, mailbox):
        ws = await api.create_workspace("mail-batch@example.com")
        await users(api, ws, "alice", "bob")
        batch = {"isEnabled": True, "batchWindowSeconds": 604800, "maxActivities": 2}
        await mail_on(api, ws, notificationServiceConfig={"batchConfig": {"user": batch}})
        await annotate(
            api, ws, "a1", tagging("alice", "first point", "bob", triggerNotification=True)
        )
        await wait_for_feed(api, ws, "bob", 1)
        await settle()
        # A batch of one waits for the window (a week) or a second notification.
        assert mailbox.mail == []
        await annotate(
            api, ws, "a2", tagging("alice", "second point", "bob", triggerNotification=True)
        )

        [mail] = await mailbox.wait_for(1)
        assert mail.recipients == ["bob@people.test"]
        assert mail.message["Subject"] == "You have 2 new notifications"
        text = text_of(mail)
        assert text.index("first point") < text.index("second point")


async def test_turning_mail_off_stops_the_next_mails(start_api: StartApi) -> None:
    async with api_with_relay(start_api) as (api, mailbox):
        ws = await api.create_workspace("mail-switch@example.com")
        await users(api, ws, "alice", "bob")
        await mail_on(api, ws)
        await annotate(api, ws, "a1", tagging("alice", "mailed", "bob", triggerNotification=True))
        await mailbox.wait_for(1)

        await ok(api, ws, EMAIL_UPDATE, useEmailService=False)
        await annotate(
            api, ws, "a2", tagging("alice", "not mailed", "bob", triggerNotification=True)
        )
        await wait_for_feed(api, ws, "bob", 2)
        await settle()
        assert ["not mailed" in text_of(m) for m in mailbox.mail] == [False]


async def test_mail_past_the_workspaces_quota_waits_with_the_reason_logged(
    start_api: StartApi, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="redline.notify.mail")
    async with api_with_relay(with_settings(start_api, mail_recipients_per_hour=1)) as (
        api,
        mailbox,
    ):
        ws = await api.create_workspace("mail-quota@example.com")
        await users(api, ws, "alice", "bob", "carol")
        await mail_on(api, ws)
        await annotate(
            api, ws, "a1", tagging("alice", "Both of you", "bob", "carol", triggerNotification=True)
        )

        [mail] = await mailbox.wait_for(1)
        await wait_for_feed(api, ws, "carol", 1)
        await wait_for_feed(api, ws, "bob", 1)
        await settle()

    assert len(mailbox.mail) == 1
    assert mail.recipients in (["bob@people.test"], ["carol@people.test"])
    deferred = [r.getMessage() for r in caplog.records if "deferred" in r.getMessage()]
    assert deferred, caplog.text
    assert "mail-quota: The workspace's mail quota is used up" in deferred[0]
    assert "at most 1 recipients an hour" in deferred[0]

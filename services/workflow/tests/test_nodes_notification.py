"""Notification nodes against real servers on this machine: email through an SMTP server (with
refused recipients counted), Slack through an incoming webhook and through chat.postMessage on
the HTTPS test receiver, and which failures are terminal and which are retried."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from redline.pg import Pool
from redline.runtime.mail_quota import MailQuota
from redline.testing.mail import smtp_server
from redline.testing.receiver import HOST
from redline.webhooks import AddressGuard, WebhookClient
from redline.workflow.definitions.nodes import NotificationConfig
from redline.workflow.engine.nodes.notification import (
    Mail,
    MailSender,
    SlackSender,
    run_notification,
)
from redline.workflow.engine.nodes.outcome import StepError
from services.workflow.tests.nodes_support import (
    Answer,
    ScriptedReceiver,
    free_port,
    json_answer,
    receiver_and_client,
    step_run,
)

FROM = "Redline Workflows <workflow@redline.test>"
SUBJECT = "Approval {{input.decision}} for {{execution.triggerContext.page.title}}"
BODY = "Findings: {{input.summary.text}} (node {{step.nodeId}}, run {{execution.executionId}})"
RENDERED_BODY = "Findings: All good (node review, run exec_1700000000000_abc)"
WRITTEN_BY = "a workspace on Redline, and sent on its behalf; Redline did not write it."


def email(**changes: Any) -> NotificationConfig:
    fields: dict[str, Any] = {
        "channel": "email",
        "recipients": ["lead@acme.dev", "pm@acme.dev"],
        "subjectTemplate": SUBJECT,
        "bodyTemplate": BODY,
    }
    return NotificationConfig(**(fields | changes))


def slack(target: str, **changes: Any) -> NotificationConfig:
    return NotificationConfig(
        **({"channel": "slack", "slackTarget": target, "bodyTemplate": BODY} | changes)
    )


def mail_sender(port: int, **changes: Any) -> MailSender:
    options: dict[str, Any] = {
        "host": HOST,
        "port": port,
        "from_address": FROM,
        "security": "none",
        "timeout_s": 5,
    }
    return MailSender(**(options | changes))


@pytest.fixture
def quota(pool: Pool) -> MailQuota:
    return MailQuota(pool, "workflow", per_hour=1000, per_day=1000)


@pytest.fixture
async def http(tmp_path: Path) -> AsyncIterator[tuple[ScriptedReceiver, WebhookClient]]:
    async with receiver_and_client(tmp_path / "tls") as pair:
        yield pair


# Email


async def test_an_email_goes_to_every_recipient_with_subject_and_body_rendered(
    quota: MailQuota,
) -> None:
    with smtp_server() as (mailbox, port):
        outcome = await run_notification(
            email(), step_run(), Mail(mail_sender(port), quota), _no_slack()
        )

    assert outcome.status == "completed"
    assert outcome.output == {
        "channel": "email",
        "delivered": 2,
        "recipients": ["lead@acme.dev", "pm@acme.dev"],
        "refused": [],
        "subject": "Approval approve for Launch plan",
    }
    assert outcome.data == {"nodeType": "notification", "channel": "email", "delivered": 2}
    assert outcome.error is None
    [mail] = mailbox.mail
    assert mail.sender == "workflow@redline.test"
    assert mail.recipients == ["lead@acme.dev", "pm@acme.dev"]
    assert mail.message["Subject"] == "Approval approve for Launch plan"
    # The workspace's templates wrote it all: the mail says so.
    assert mail.message["From"].addresses[0].display_name == "workspace ws_1 via Redline"
    assert mail.message["From"].addresses[0].addr_spec == "workflow@redline.test"
    assert mail.message["To"] == "lead@acme.dev, pm@acme.dev"
    assert mail.message["Auto-Submitted"] == "auto-generated"
    assert mail.message.get_content_type() == "text/plain"
    assert mail.message.get_content().strip() == (
        f"{RENDERED_BODY}\n\n--\nThis message was written by workspace ws_1, {WRITTEN_BY}"
    )


async def test_refused_recipients_are_not_counted_as_delivered(quota: MailQuota) -> None:
    with smtp_server(refused={"pm@acme.dev"}) as (mailbox, port):
        outcome = await run_notification(
            email(), step_run(), Mail(mail_sender(port), quota), _no_slack()
        )

    assert outcome.status == "completed"
    assert outcome.output["delivered"] == 1
    assert outcome.output["recipients"] == ["lead@acme.dev"]
    assert outcome.output["refused"] == ["pm@acme.dev"]
    assert outcome.data == {"nodeType": "notification", "channel": "email", "delivered": 1}
    assert [mail.recipients for mail in mailbox.mail] == [["lead@acme.dev"]]


async def test_no_recipient_taking_the_message_fails_the_attempt_with_retry(
    quota: MailQuota,
) -> None:
    refused = {"lead@acme.dev", "pm@acme.dev"}
    with smtp_server(refused=refused) as (mailbox, port):
        outcome = await run_notification(
            email(), step_run(), Mail(mail_sender(port), quota), _no_slack()
        )

    assert outcome.status == "retry"
    assert outcome.data == {"channel": "email", "retryClass": "retryable"}
    assert outcome.error is not None
    assert outcome.error.code == "email-not-delivered"
    assert "550 5.1.1 mailbox unavailable" in outcome.error.message
    assert mailbox.mail == []


async def test_past_the_workspaces_mail_quota_the_step_fails_with_a_clear_error(
    pool: Pool,
) -> None:
    quota = MailQuota(pool, "workflow", per_hour=3, per_day=100)
    with smtp_server() as (mailbox, port):
        mail = Mail(mail_sender(port), quota)
        first = await run_notification(email(), step_run(), mail, _no_slack())
        second = await run_notification(email(), step_run(), mail, _no_slack())
        # Another workspace's steps have a quota of their own.
        elsewhere = await run_notification(email(), step_run(workspaceId="ws_2"), mail, _no_slack())
        await mail.close()

    assert first.status == "completed"
    assert second.status == "failed"
    assert second.error == StepError(
        "mail-quota-exceeded",
        "the email is not sent: The workspace's mail quota is used up: at most 3 recipients an"
        " hour (2 so far this hour, 2 more asked for).",
    )
    assert second.data == {
        "reason": "mail-quota-exceeded",
        "channel": "email",
        "retryClass": "terminal",
    }
    assert elsewhere.status == "completed"
    assert len(mailbox.mail) == 2


async def test_an_email_the_relay_took_for_nobody_gives_its_quota_back(pool: Pool) -> None:
    quota = MailQuota(pool, "workflow", per_hour=2, per_day=100)
    unreachable = Mail(mail_sender(free_port()), quota)
    failed_first = await run_notification(email(), step_run(), unreachable, _no_slack())
    with smtp_server() as (mailbox, port):
        mail = Mail(mail_sender(port), quota)
        sent = await run_notification(email(), step_run(), mail, _no_slack())
        after = await run_notification(email(), step_run(), mail, _no_slack())
        await mail.close()

    assert failed_first.status == "retry"
    assert sent.status == "completed"
    assert after.error is not None
    assert after.error.code == "mail-quota-exceeded"
    assert len(mailbox.mail) == 1


async def test_without_an_smtp_server_the_step_fails_for_good() -> None:
    outcome = await run_notification(email(), step_run(), None, _no_slack())

    assert outcome.status == "failed"
    assert outcome.error == StepError(
        "smtp-not-configured", "email notifications need an SMTP server, and none is configured"
    )
    assert outcome.data == {
        "reason": "smtp-not-configured",
        "retryClass": "terminal",
        "channel": "email",
    }


async def test_an_html_email_is_html_and_values_from_the_payload_are_escaped(
    quota: MailQuota,
) -> None:
    config = email(bodyTemplate="<p>{{input.summary.text}}</p>", format="html")
    run = step_run(input={"summary": {"text": "<script>alert(1)</script> & more"}})

    with smtp_server() as (mailbox, port):
        outcome = await run_notification(config, run, Mail(mail_sender(port), quota), _no_slack())

    assert outcome.status == "completed"
    [mail] = mailbox.mail
    assert mail.message.get_content_type() == "text/html"
    assert mail.message.get_content().startswith(
        "<p>&lt;script&gt;alert(1)&lt;/script&gt; &amp; more</p>\n<hr>"
    )
    assert f"written by workspace ws_1, {WRITTEN_BY}" in mail.message.get_content()


async def test_line_breaks_from_the_payload_do_not_break_the_subject_header(
    quota: MailQuota,
) -> None:
    config = email(subjectTemplate="Review {{execution.triggerContext.page.title}}")
    run = step_run(triggerContext={"page": {"title": "Plan\r\nBcc: victim@evil.test"}})

    with smtp_server() as (mailbox, port):
        outcome = await run_notification(config, run, Mail(mail_sender(port), quota), _no_slack())

    assert outcome.output["subject"] == "Review Plan Bcc: victim@evil.test"
    [mail] = mailbox.mail
    assert mail.message["Subject"] == "Review Plan Bcc: victim@evil.test"
    assert mail.message["Bcc"] is None
    assert mail.recipients == ["lead@acme.dev", "pm@acme.dev"]


async def test_an_unreachable_smtp_server_is_retried(quota: MailQuota) -> None:
    port = free_port()

    outcome = await run_notification(
        email(), step_run(), Mail(mail_sender(port), quota), _no_slack()
    )

    assert outcome.status == "retry"
    assert outcome.error is not None
    assert outcome.error.code == "smtp-unavailable"
    assert str(port) not in outcome.error.message
    assert outcome.data == {"channel": "email", "retryClass": "retryable"}


async def test_a_refused_login_is_terminal_and_the_password_is_not_shown(quota: MailQuota) -> None:
    with smtp_server(login=True) as (mailbox, port):
        sender = mail_sender(port, username="relay", password="hunter2-password")
        outcome = await run_notification(email(), step_run(), Mail(sender, quota), _no_slack())

    assert outcome.status == "failed"
    assert outcome.error is not None
    assert outcome.error.code == "smtp-auth-failed"
    assert "hunter2" not in outcome.error.message
    assert "hunter2" not in repr(sender)
    assert outcome.data == {"channel": "email", "retryClass": "terminal"}
    assert mailbox.mail == []


# Slack: incoming webhooks


async def test_a_slack_webhook_gets_the_rendered_text(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    receiver, client = http
    target = receiver.url("/services/T1/B1/secret")

    outcome = await run_notification(slack(target), step_run(), None, SlackSender(client))

    assert outcome.status == "completed"
    assert outcome.output == {"channel": "slack", "delivered": 1}
    assert outcome.data == {"nodeType": "notification", "channel": "slack", "delivered": 1}
    [request] = receiver.requests
    assert request.path == "/services/T1/B1/secret"
    assert request.json() == {"text": RENDERED_BODY}
    assert request.headers["content-type"].startswith("application/json")


async def test_slack_blocks_are_sent_as_blocks(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    receiver, client = http
    blocks = '[{"type": "section", "text": {"type": "mrkdwn", "text": "*{{input.decision}}*"}}]'
    config = slack(receiver.url("/hook"), bodyTemplate=blocks, format="slack-blocks")

    outcome = await run_notification(config, step_run(), None, SlackSender(client))

    assert outcome.status == "completed"
    [request] = receiver.requests
    assert request.json() == {
        "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "*approve*"}}]
    }


@pytest.mark.parametrize("body", ['{"type": "section"}', "[not json", "*approve*"])
async def test_blocks_that_are_not_a_json_array_fail_for_good_and_send_nothing(
    body: str, http: tuple[ScriptedReceiver, WebhookClient]
) -> None:
    receiver, client = http
    config = slack(receiver.url("/hook"), bodyTemplate=body, format="slack-blocks")

    outcome = await run_notification(config, step_run(), None, SlackSender(client))

    assert outcome.status == "failed"
    assert outcome.error is not None
    assert outcome.error.code == "slack-blocks-invalid"
    assert outcome.data == {
        "reason": "slack-blocks-invalid",
        "retryClass": "terminal",
        "channel": "slack",
    }
    assert receiver.requests == []


async def test_a_slack_webhook_configuration_error_is_terminal(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    receiver, client = http
    receiver.answers.append(Answer(404, b"no_service"))

    outcome = await run_notification(
        slack(receiver.url("/hook")), step_run(), None, SlackSender(client)
    )

    assert outcome.status == "failed"
    assert outcome.error == StepError(
        "slack-no-service", "Slack refused the message: no_service (HTTP 404)"
    )
    assert outcome.data == {"channel": "slack", "retryClass": "terminal"}


@pytest.mark.parametrize(
    ("answer", "after_s"),
    [(Answer(503), None), (Answer(429, b"rate_limited", {"Retry-After": "7"}), 7.0)],
)
async def test_slack_outages_and_rate_limits_are_retried(
    answer: Answer, after_s: float | None, http: tuple[ScriptedReceiver, WebhookClient]
) -> None:
    receiver, client = http
    receiver.answers.append(answer)

    outcome = await run_notification(
        slack(receiver.url("/hook")), step_run(), None, SlackSender(client)
    )

    assert outcome.status == "retry"
    assert outcome.data == {"channel": "slack", "retryClass": "retryable"}
    assert outcome.retry_after_s == after_s


async def test_a_slack_webhook_the_guard_refuses_is_terminal() -> None:
    async with WebhookClient(AddressGuard()) as client:
        outcome = await run_notification(
            slack("https://10.1.2.3/services/T1/B1/x"), step_run(), None, SlackSender(client)
        )

    assert outcome.status == "failed"
    assert outcome.error is not None
    assert outcome.error.code == "slack-target-blocked"
    assert "10.1.2.3" not in outcome.error.message
    assert outcome.data == {"channel": "slack", "retryClass": "terminal"}


# Slack: chat.postMessage with the bot token


def bot(client: WebhookClient, receiver: ScriptedReceiver) -> SlackSender:
    return SlackSender(client, bot_token="xoxb-test-token", api_url=receiver.url("/api/"))


async def test_a_channel_id_is_posted_with_the_bot_token(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    receiver, client = http
    receiver.answers.append(json_answer({"ok": True, "channel": "C0123", "ts": "1700.000100"}))

    outcome = await run_notification(slack("C0123"), step_run(), None, bot(client, receiver))

    assert outcome.status == "completed"
    assert outcome.output == {
        "channel": "slack",
        "delivered": 1,
        "slackChannel": "C0123",
        "messageTs": "1700.000100",
    }
    [request] = receiver.requests
    assert request.path == "/api/chat.postMessage"
    assert request.headers["authorization"] == "Bearer xoxb-test-token"
    assert request.json() == {"channel": "C0123", "text": RENDERED_BODY}


@pytest.mark.parametrize("error", ["channel_not_found", "invalid_auth", "not_in_channel"])
async def test_slack_configuration_errors_are_terminal(
    error: str, http: tuple[ScriptedReceiver, WebhookClient]
) -> None:
    receiver, client = http
    receiver.answers.append(json_answer({"ok": False, "error": error}))

    outcome = await run_notification(slack("C0123"), step_run(), None, bot(client, receiver))

    assert outcome.status == "failed"
    assert outcome.error == StepError(
        "slack-" + error.replace("_", "-"), f"Slack refused the message: {error}"
    )
    assert outcome.data == {"channel": "slack", "retryClass": "terminal"}


@pytest.mark.parametrize(
    ("answer", "after_s"),
    [
        (json_answer({"ok": False, "error": "ratelimited"}, 429, **{"Retry-After": "30"}), 30.0),
        (json_answer({"ok": False, "error": "ratelimited"}), None),
        (Answer(502), None),
    ],
)
async def test_slack_rate_limits_and_outages_are_retried(
    answer: Answer, after_s: float | None, http: tuple[ScriptedReceiver, WebhookClient]
) -> None:
    receiver, client = http
    receiver.answers.append(answer)

    outcome = await run_notification(slack("C0123"), step_run(), None, bot(client, receiver))

    assert outcome.status == "retry"
    assert outcome.retry_after_s == after_s
    assert outcome.data == {"channel": "slack", "retryClass": "retryable"}


async def test_a_channel_id_without_a_bot_token_fails_for_good_and_sends_nothing(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    receiver, client = http
    sender = SlackSender(client, api_url=receiver.url("/api"))

    outcome = await run_notification(slack("C0123"), step_run(), None, sender)

    assert outcome.status == "failed"
    assert outcome.error is not None
    assert outcome.error.code == "slack-bot-token-not-configured"
    assert outcome.data == {
        "reason": "slack-bot-token-not-configured",
        "retryClass": "terminal",
        "channel": "slack",
    }
    assert receiver.requests == []


def _no_slack() -> SlackSender:
    """A Slack sender email tests never reach (its client is never started)."""
    return SlackSender(WebhookClient(AddressGuard()))

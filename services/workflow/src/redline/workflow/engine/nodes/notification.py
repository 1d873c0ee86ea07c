"""Notification nodes: render the message from the step's context and send it by email or Slack.

Templates see three roots: `input` (the previous step's output), `execution` (`executionId`,
`definitionId`, `correlationId`, `triggerContext`) and `step` (this step's metadata).

Output and event data:
- completed: output `{channel, delivered}` plus, for email, `recipients` (the addresses that took
  the message), `refused` (those the server refused) and `subject`; for Slack posted by bot
  token, `slackChannel` and `messageTs`. `step.completed` data is
  `{nodeType: "notification", channel, delivered}`.
- failed, or retried: `step.failed` data `{channel, retryClass}`; a failure found before sending
  (no SMTP server, no bot token, blocks that are not a JSON array, the workspace's mail quota
  used up: `mail-quota-exceeded`) adds `reason`.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from redline.mail import MailDelivery, MailFailed, MailSender
from redline.runtime.mail_quota import MailQuota, MailQuotaExceeded
from redline.workflow.engine.nodes.outcome import (
    RETRYABLE,
    TERMINAL,
    DeliveryFailed,
    Json,
    NodeOutcome,
    StepRun,
    completed,
    failed,
    given,
    misconfigured,
    retry,
    shareable_context,
)
from redline.workflow.engine.nodes.slack import SlackSender
from redline.workflow.engine.templates import render

if TYPE_CHECKING:
    from redline.workflow.definitions.nodes import NotificationConfig

__all__ = ["Mail", "MailSender", "SlackSender", "run_notification", "template_context"]


def template_context(run: StepRun) -> dict[str, Any]:
    """The roots a notification's templates resolve against."""
    execution = {
        "executionId": run.executionId,
        "definitionId": run.definitionId,
        "correlationId": run.correlationId,
        "triggerContext": shareable_context(run.triggerContext),
    }
    return {"input": run.input, "execution": execution, "step": run.step}


@dataclass(frozen=True)
class Mail:
    """The SMTP relay, and the mail quota every workspace's email steps count against."""

    sender: MailSender
    quota: MailQuota

    async def close(self) -> None:
        await self.sender.close()


async def run_notification(
    config: NotificationConfig, run: StepRun, mail: Mail | None, slack: SlackSender
) -> NodeOutcome:
    """Send the notification `config` describes; `mail` is None when no SMTP server is
    configured."""
    if config.channel == "email":
        return await _send_email(config, run, mail)
    return await _send_slack(config, run, slack)


async def _send_email(config: NotificationConfig, run: StepRun, mail: Mail | None) -> NodeOutcome:
    if mail is None:
        return misconfigured(
            "smtp-not-configured",
            "email notifications need an SMTP server, and none is configured",
            channel="email",
        )
    recipients = given(config.recipients, [])
    if not recipients:
        return misconfigured(
            "notification-no-recipients", "the node lists no recipients", channel="email"
        )
    as_html = config.effective_format == "html"
    # Values from the trigger payload must not become markup in an HTML message.
    roots = _escaped(template_context(run)) if as_html else template_context(run)
    subject = render(given(config.subjectTemplate, ""), roots)
    body = render(config.bodyTemplate, roots)
    try:
        # Counted against the workspace's mail quota, and framed as the workspace's words (its
        # templates wrote all of it).
        async with mail.quota.sending(run.workspaceId, len(recipients)):
            sent = await mail.sender.send(
                recipients,
                subject,
                body,
                html=as_html,
                for_workspace=f"workspace {run.workspaceId}",
            )
    except MailQuotaExceeded as exc:
        return failed(
            "mail-quota-exceeded",
            f"the email is not sent: {exc.message}",
            {"reason": "mail-quota-exceeded", **_failed_data("email", TERMINAL)},
        )
    except MailFailed as exc:
        return _failure(DeliveryFailed(exc.code, exc.message, retryable=exc.retryable), "email")
    return _email_outcome(sent)


def _email_outcome(sent: MailDelivery) -> NodeOutcome:
    """What a message the mail server took makes of the step: completed if any recipient got
    it, retried if the server refused them all."""
    if not sent.delivered:
        refused = "; ".join(sent.refused.values())
        return retry(
            "email-not-delivered",
            f"the mail server refused every recipient: {refused}",
            _failed_data("email", RETRYABLE),
        )
    output = {
        "channel": "email",
        "delivered": len(sent.delivered),
        "recipients": sent.delivered,
        "refused": sorted(sent.refused),
        "subject": sent.subject,
    }
    return completed(output, _completed_data("email", len(sent.delivered)))


async def _send_slack(config: NotificationConfig, run: StepRun, slack: SlackSender) -> NodeOutcome:
    target = given(config.slackTarget, "")
    if not target:
        return misconfigured(
            "notification-no-slack-target", "the node has no slackTarget", channel="slack"
        )
    body = render(config.bodyTemplate, template_context(run))
    message = _slack_message(body, config.effective_format)
    if message is None:
        return misconfigured(
            "slack-blocks-invalid",
            "with format slack-blocks the rendered body must be a JSON array of blocks",
            channel="slack",
        )
    try:
        posted = await slack.post(target, message, api_key=run.apiKey)
    except DeliveryFailed as exc:
        return _failure(exc, "slack")
    output: Json = {"channel": "slack", "delivered": 1}
    if posted.channel is not None:
        output["slackChannel"] = posted.channel
    if posted.ts is not None:
        output["messageTs"] = posted.ts
    return completed(output, _completed_data("slack", 1))


def _slack_message(body: str, format: str) -> dict[str, Any] | None:
    """The Slack payload for a rendered body, or None for blocks that are not a JSON array."""
    if format != "slack-blocks":
        return {"text": body}
    try:
        blocks = msgspec.json.decode(body)
    except msgspec.DecodeError:
        return None
    if not isinstance(blocks, list):
        return None
    return {"blocks": blocks}


def _failure(exc: DeliveryFailed, channel: str) -> NodeOutcome:
    if exc.unsendable:
        return misconfigured(exc.code, exc.message, channel=channel)
    if exc.retryable:
        data = _failed_data(channel, RETRYABLE)
        return retry(exc.code, exc.message, data, after_s=exc.retry_after_s)
    return failed(exc.code, exc.message, _failed_data(channel, TERMINAL))


def _failed_data(channel: str, retry_class: str) -> Json:
    return {"channel": channel, "retryClass": retry_class}


def _completed_data(channel: str, delivered: int) -> Json:
    return {"nodeType": "notification", "channel": channel, "delivered": delivered}


def _escaped(value: Any) -> Any:
    """`value` with every string in it HTML-escaped, keys included, for rendering into HTML."""
    if isinstance(value, str):
        return html.escape(value)
    if isinstance(value, Mapping):
        return {html.escape(str(key)): _escaped(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_escaped(item) for item in value]
    return value

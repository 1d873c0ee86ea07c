"""Outbound URLs a definition configures (a webhook node's `url`, a URL `slackTarget`, the
receiver in `webhookConfig`) and a dispatch's `webhookUrl`: https (http only to an allow-listed
host), and allowed by the address guard. The guard looks again before every request; this check
is the one that can answer the author."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

from msgspec import UnsetType

from redline.webhooks import AddressGuard, BlockedTarget
from redline.workflow.definitions.linter.subject import Problem, Subject, problem
from redline.workflow.definitions.models import NotificationNode, WebhookNode
from redline.workflow.definitions.nodes import slack_target_url


def check(subject: Subject) -> Iterator[Problem]:
    guard = subject.guard
    for index, node in enumerate(subject.body.nodes):
        path = f"data.nodes[{index}].config"
        if isinstance(node, WebhookNode):
            yield from outbound_url_problems(guard, node.config.url, f"{path}.url", "url")
        elif isinstance(node, NotificationNode):
            url = slack_target_url(node.config.slackTarget)
            if url is not None:
                yield from outbound_url_problems(guard, url, f"{path}.slackTarget", "slackTarget")
    receiver = subject.body.webhookConfig
    if not isinstance(receiver, UnsetType):
        yield from outbound_url_problems(
            guard, receiver.url, "data.webhookConfig.url", "webhookConfig.url"
        )


def outbound_url_problems(
    guard: AddressGuard, url: str, path: str, label: str
) -> Iterator[Problem]:
    """What is wrong with `url` as a target of outbound calls (at most one problem)."""
    try:
        parts = urlsplit(url)
        scheme, host = parts.scheme.lower(), parts.hostname
    except ValueError:
        yield problem("url-invalid", path, f"{label} is not a valid URL")
        return
    # Plain http only to hosts the operator allow-listed (receivers inside their network).
    if scheme != "https" and not (scheme == "http" and host and guard.allows(host)):
        yield problem("url-requires-https", path, f"{label} must use https scheme")
        return
    try:
        guard.check_url(url)
    except BlockedTarget as blocked:
        yield problem("url-blocked", path, _blocked_message(label, blocked.reason))


def _blocked_message(label: str, reason: str) -> str:
    """The hosted product's words for a host inside the network, with the guard's reason."""
    if reason.startswith("the host is") and not reason.endswith("not a valid host name"):
        return f"{label} host resolves to a private, loopback, or link-local address ({reason})"
    return f"{label} is not an allowed target: {reason}"

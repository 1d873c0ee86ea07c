"""Node configs: the rules a schema alone cannot say (which fields go together), with the
hosted product's messages where it has one. Outbound URLs are `targets`' to check."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

from msgspec import UnsetType

from redline.workflow.definitions.linter.subject import Problem, Subject, listed, problem
from redline.workflow.definitions.models import (
    AgentConfig,
    AgentNode,
    HumanConfig,
    HumanNode,
    NotificationConfig,
    NotificationNode,
    WebhookNode,
    WebhookNodeConfig,
)
from redline.workflow.engine.templates import ROOTS, template_roots

# Headers the engine sets itself, or that would change how the request is framed or routed.
_RESERVED_HEADERS = frozenset(
    {
        "content-type",
        "content-length",
        "host",
        "authorization",
        "connection",
        "keep-alive",
        "transfer-encoding",
        "te",
        "trailer",
        "upgrade",
        "expect",
        "proxy-authorization",
        "proxy-connection",
    }
)
_RESERVED_PREFIXES = ("x-redline-", "x-velt-", "webhook-")


def check(subject: Subject) -> Iterator[Problem]:
    for index, node in enumerate(subject.body.nodes):
        path = f"data.nodes[{index}].config"
        if isinstance(node, HumanNode):
            yield from _human(node.config, path)
        elif isinstance(node, AgentNode):
            yield from _agent(node.config, path)
        elif isinstance(node, WebhookNode):
            yield from _webhook(node.config, path)
        elif isinstance(node, NotificationNode):
            yield from _notification(node.config, path)


def _human(config: HumanConfig, path: str) -> Iterator[Problem]:
    reviewers = listed(config.reviewers)
    reviewer_ids = listed(config.reviewerIds)
    if reviewers and reviewer_ids:
        yield problem(
            "human-reviewers-exclusive", path, "cannot set both reviewerIds and reviewers, use one"
        )
    elif not reviewers and not reviewer_ids:
        yield problem(
            "human-reviewers-required",
            path,
            "at least one of reviewerIds or reviewers must be provided",
        )
    seen: set[str] = set()
    for index, reviewer in enumerate(reviewers):
        if reviewer.userId in seen:
            yield problem(
                "human-reviewer-user-ids-unique",
                f"{path}.reviewers[{index}].userId",
                "reviewer userIds must be unique",
            )
        seen.add(reviewer.userId)
    if reviewers and not any(reviewer.mandatory for reviewer in reviewers):
        yield problem(
            "human-reviewers-require-mandatory",
            f"{path}.reviewers",
            "reviewers must include at least one mandatory reviewer",
        )


def _agent(config: AgentConfig, path: str) -> Iterator[Problem]:
    if isinstance(config.url, UnsetType) and isinstance(config.urlPath, UnsetType):
        yield problem(
            "agent-node-requires-url-or-urlpath",
            path,
            'agent node requires either a static "url" or a "urlPath"',
        )
    if not isinstance(config.url, UnsetType) and not _is_absolute_http(config.url):
        yield problem(
            "agent-url-invalid", f"{path}.url", 'agent node "url" must be an absolute http(s) URL'
        )
    if config.blocking is True and isinstance(config.resolutionPolicy, UnsetType):
        yield problem(
            "agent-blocking-requires-resolution-policy",
            f"{path}.resolutionPolicy",
            'agent node with blocking=true requires a "resolutionPolicy"',
        )


def _is_absolute_http(url: str) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)


def _webhook(config: WebhookNodeConfig, path: str) -> Iterator[Problem]:
    if config.authMode == "token" and isinstance(config.authTokenHeader, UnsetType):
        yield problem(
            "webhook-token-requires-header",
            f"{path}.authTokenHeader",
            'webhook node with authMode="token" requires authTokenHeader to be set',
        )
    header = config.authTokenHeader
    # The token may go in Authorization (as "Bearer ..."); other reserved names may not carry it.
    if isinstance(header, str) and header.lower() != "authorization" and _is_reserved(header):
        yield problem(
            "webhook-auth-token-header-reserved",
            f"{path}.authTokenHeader",
            f'authTokenHeader "{header}" is a header the engine sets itself',
        )
    if config.bodyTemplate == "none" and config.effective_method != "GET":
        yield problem(
            "webhook-body-none-requires-get",
            f"{path}.bodyTemplate",
            'bodyTemplate="none" requires method="GET"',
        )
    headers = {} if isinstance(config.requestHeaders, UnsetType) else config.requestHeaders
    for name, value in headers.items():
        yield from _request_header(name, value, f"{path}.requestHeaders.{name}")


def _request_header(name: str, value: str, path: str) -> Iterator[Problem]:
    if _is_reserved(name):
        yield problem(
            "webhook-request-header-reserved",
            path,
            f'requestHeaders may not set "{name}": the engine sets it, or it is reserved',
        )
    if not (value.isascii() and value.isprintable()):
        yield problem(
            "webhook-request-header-invalid",
            path,
            f'the value of request header "{name}" must be printable ASCII',
        )


def _is_reserved(name: str) -> bool:
    lowered = name.lower()
    return lowered in _RESERVED_HEADERS or lowered.startswith(_RESERVED_PREFIXES)


def _notification(config: NotificationConfig, path: str) -> Iterator[Problem]:
    if config.channel == "email" and isinstance(config.recipients, UnsetType):
        yield problem(
            "notification-email-requires-recipients",
            f"{path}.recipients",
            'notification node with channel="email" requires a non-empty recipients array',
        )
    if config.channel == "slack" and isinstance(config.slackTarget, UnsetType):
        yield problem(
            "notification-slack-requires-target",
            f"{path}.slackTarget",
            'notification node with channel="slack" requires a slackTarget '
            "(channel id or incoming-webhook URL)",
        )
    if config.channel != "slack" and config.format == "slack-blocks":
        yield problem(
            "notification-slack-blocks-requires-slack",
            f"{path}.format",
            'format="slack-blocks" is valid only with channel="slack"',
        )
    for field, template in (
        ("subjectTemplate", config.subjectTemplate),
        ("bodyTemplate", config.bodyTemplate),
    ):
        if isinstance(template, str):
            yield from _template(template, f"{path}.{field}", field)


def _template(template: str, path: str, field: str) -> Iterator[Problem]:
    for root in sorted(template_roots(template) - ROOTS):
        yield problem(
            "template-unknown-root",
            path,
            f'{field} uses the unknown root "{root}": a token starts with input, execution '
            "or step, as in {{input.decision}}",
        )

"""The linter's node, outbound-URL and scope rules: one minimal definition per rule, asserting
the code and the path, and the hosted product's messages."""

from __future__ import annotations

import pytest

from redline.webhooks import AddressGuard
from redline.workflow.definitions.linter import lint
from services.workflow.tests.linter_support import (
    GUARD,
    Json,
    agent,
    alone,
    definition,
    edge,
    human,
    notification,
    problems,
    webhook,
)


@pytest.mark.parametrize(
    ("node", "code", "path"),
    [
        (
            human("h", reviewers=[{"userId": "u", "mandatory": True}], reviewerIds=["u"]),
            "human-reviewers-exclusive",
            "data.nodes[0].config",
        ),
        (human("h", commentBody="c"), "human-reviewers-required", "data.nodes[0].config"),
        (human("h", reviewers=[]), "human-reviewers-required", "data.nodes[0].config"),
        (
            human(
                "h",
                reviewers=[{"userId": "u", "mandatory": True}, {"userId": "u", "mandatory": False}],
            ),
            "human-reviewer-user-ids-unique",
            "data.nodes[0].config.reviewers[1].userId",
        ),
        (
            human("h", reviewers=[{"userId": "u", "mandatory": False}]),
            "human-reviewers-require-mandatory",
            "data.nodes[0].config.reviewers",
        ),
        (
            {"nodeId": "a", "type": "agent", "config": {"agentId": "a"}},
            "agent-node-requires-url-or-urlpath",
            "data.nodes[0].config",
        ),
        (agent("a", url="acme.com/page"), "agent-url-invalid", "data.nodes[0].config.url"),
        (
            agent("a", blocking=True),
            "agent-blocking-requires-resolution-policy",
            "data.nodes[0].config.resolutionPolicy",
        ),
        (
            webhook("w", authMode="token"),
            "webhook-token-requires-header",
            "data.nodes[0].config.authTokenHeader",
        ),
        (
            webhook("w", authMode="token", authTokenHeader="x-velt-token"),
            "webhook-auth-token-header-reserved",
            "data.nodes[0].config.authTokenHeader",
        ),
        (
            webhook("w", bodyTemplate="none"),
            "webhook-body-none-requires-get",
            "data.nodes[0].config.bodyTemplate",
        ),
        (
            webhook("w", bodyTemplate="none", method="POST"),
            "webhook-body-none-requires-get",
            "data.nodes[0].config.bodyTemplate",
        ),
        (
            webhook("w", requestHeaders={"x-acme": "caf\u00e9"}),
            "webhook-request-header-invalid",
            "data.nodes[0].config.requestHeaders.x-acme",
        ),
        (
            webhook("w", requestHeaders={"x-acme": "a\tb"}),
            "webhook-request-header-invalid",
            "data.nodes[0].config.requestHeaders.x-acme",
        ),
        (
            notification("n", recipients=None),
            "notification-email-requires-recipients",
            "data.nodes[0].config.recipients",
        ),
        (
            notification("n", channel="slack", recipients=None),
            "notification-slack-requires-target",
            "data.nodes[0].config.slackTarget",
        ),
        (
            notification("n", format="slack-blocks"),
            "notification-slack-blocks-requires-slack",
            "data.nodes[0].config.format",
        ),
        (
            notification("n", bodyTemplate="{{foo.x}} and {{input.y}}"),
            "template-unknown-root",
            "data.nodes[0].config.bodyTemplate",
        ),
        (
            notification("n", subjectTemplate="{{ output.decision }}"),
            "template-unknown-root",
            "data.nodes[0].config.subjectTemplate",
        ),
        (
            webhook("w", url="http://hooks.acme.dev/x"),
            "url-requires-https",
            "data.nodes[0].config.url",
        ),
        (webhook("w", url="https://[::1/x"), "url-invalid", "data.nodes[0].config.url"),
        (webhook("w", url="https://a.b:99999/x"), "url-blocked", "data.nodes[0].config.url"),
        (webhook("w", url="https://localhost/x"), "url-blocked", "data.nodes[0].config.url"),
        (webhook("w", url="https://10.0.0.7/x"), "url-blocked", "data.nodes[0].config.url"),
        (
            webhook("w", url="https://metadata.google.internal/x"),
            "url-blocked",
            "data.nodes[0].config.url",
        ),
        (
            notification(
                "n", channel="slack", recipients=None, slackTarget="http://hooks.slack.com/x"
            ),
            "url-requires-https",
            "data.nodes[0].config.slackTarget",
        ),
        (
            notification(
                "n", channel="slack", recipients=None, slackTarget="https://169.254.169.254/x"
            ),
            "url-blocked",
            "data.nodes[0].config.slackTarget",
        ),
    ],
)
def test_node_rules(node: Json, code: str, path: str) -> None:
    assert problems(alone(node)) == [(code, path)]


@pytest.mark.parametrize(
    "name",
    [
        "Content-Type",
        "content-length",
        "Host",
        "Authorization",
        "x-redline-signature",
        "X-Velt-Anything",
        "webhook-id",
        "Transfer-Encoding",
    ],
)
def test_reserved_request_headers(name: str) -> None:
    found = problems(alone(webhook("w", requestHeaders={name: "v"})))
    assert found == [
        ("webhook-request-header-reserved", f"data.nodes[0].config.requestHeaders.{name}")
    ]


def test_messages_of_node_rules_are_the_hosted_ones() -> None:
    body = definition(
        [
            {"nodeId": "a", "type": "agent", "config": {"agentId": "a"}},
            human("h", reviewers=[{"userId": "u", "mandatory": False}]),
            notification("n", recipients=None),
            notification("s", channel="slack", recipients=None),
            webhook("w", authMode="token"),
        ],
        [edge("a", "h"), edge("h", "n", "reject"), edge("h", "s"), edge("h", "w")],
    )
    assert [found.message for found in lint(body, GUARD)] == [
        'agent node requires either a static "url" or a "urlPath"',
        "reviewers must include at least one mandatory reviewer",
        'notification node with channel="email" requires a non-empty recipients array',
        'notification node with channel="slack" requires a slackTarget '
        "(channel id or incoming-webhook URL)",
        'webhook node with authMode="token" requires authTokenHeader to be set',
    ]


def test_the_receiver_url_is_checked() -> None:
    receiver = {"url": "https://127.0.0.1/hook", "secret": "s" * 16}
    found = lint(definition([agent("a")], webhookConfig=receiver), GUARD)
    assert [(p.code, p.path) for p in found] == [("url-blocked", "data.webhookConfig.url")]
    assert found[0].message.startswith(
        "webhookConfig.url host resolves to a private, loopback, or link-local address"
    )
    plain = {"url": "http://hooks.acme.dev/x", "secret": "s" * 16}
    assert problems(definition([agent("a")], webhookConfig=plain)) == [
        ("url-requires-https", "data.webhookConfig.url")
    ]


def test_an_operator_allow_list_opens_a_host() -> None:
    body = alone(webhook("w", url="https://receiver.internal/x"))
    assert problems(body) == [("url-blocked", "data.nodes[0].config.url")]
    assert lint(body, AddressGuard(["receiver.internal"])) == []


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (
            {"scope": {"level": "organization"}},
            [("scope-id-required", "data.scope.organizationId")],
        ),
        (
            {"scope": {"level": "document", "organizationId": "o"}},
            [("scope-id-required", "data.scope.documentId")],
        ),
        (
            {"scope": {"level": "document"}, "organizationId": "o"},
            [("scope-id-required", "data.scope.documentId")],
        ),
        (
            {"scope": {"level": "organization", "organizationId": "o"}, "organizationId": "p"},
            [("scope-id-mismatch", "data.organizationId")],
        ),
        (
            {
                "scope": {"level": "document", "organizationId": "o", "documentId": "d"},
                "documentId": "e",
            },
            [("scope-id-mismatch", "data.documentId")],
        ),
        (
            {"scope": {"level": "apiKey", "organizationId": "o"}},
            [("scope-id-not-allowed", "data.scope.organizationId")],
        ),
        (
            {"scope": {"level": "organization", "organizationId": "o", "documentId": "d"}},
            [("scope-id-not-allowed", "data.scope.documentId")],
        ),
        ({"scope": {"level": "organization"}, "organizationId": "o"}, []),
        ({"scope": {"level": "apiKey"}, "organizationId": "o", "documentId": "d"}, []),
        ({"organizationId": "o"}, []),
    ],
)
def test_scope_rules(extra: Json, expected: list[tuple[str, str]]) -> None:
    assert problems(definition([agent("a")], **extra)) == expected

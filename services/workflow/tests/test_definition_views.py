"""What a definition reads as: the effective values of left-out fields, the view of a stored
definition (never its receiver), its scope, and stored bodies converting back."""

from __future__ import annotations

import copy
from typing import Any

import msgspec
import pytest

from redline.workflow.definitions.models import (
    AgentConfig,
    CompiledGraph,
    DefinitionBody,
    Group,
    HumanConfig,
    InboundWebhook,
    NotificationConfig,
    WebhookNodeConfig,
    effective_scope,
    view,
)
from services.workflow.tests.definition_support import (
    CREATE_EXAMPLE,
    GROUP_LOOP_EXAMPLE,
    Json,
    decode,
    minimal,
)


def test_effective_values_of_left_out_fields() -> None:
    hook = WebhookNodeConfig(url="https://a.b")
    assert (hook.effective_mode, hook.effective_method, hook.effective_auth_mode) == (
        "sync",
        "POST",
        "hmac",
    )
    assert (hook.effective_timeout_ms, hook.effective_body_template) == (10000, "envelope")
    assert hook.accepts_status(204)
    assert not hook.accepts_status(302)
    listed = WebhookNodeConfig(url="https://a.b", expectedStatusCodes=[302], timeoutMs=2000)
    assert listed.accepts_status(302)
    assert not listed.accepts_status(200)
    assert listed.effective_timeout_ms == 2000
    agent = AgentConfig(agentId="a", urlPath="payload.deployment.url")
    assert (agent.effective_poll_interval_ms, agent.effective_max_runtime_ms) == (15000, 600000)
    assert agent.effective_cross_page_execute is False
    context = {"payload": {"deployment": {"url": "my-app.vercel.app"}}}
    assert agent.resolve_url(context) == "https://my-app.vercel.app"
    assert agent.resolve_url({"payload": {"deployment": {"url": "http://x.dev"}}}) == "http://x.dev"
    assert agent.resolve_url({}) is None
    both = AgentConfig(agentId="a", url="https://static.dev", urlPath="payload.deployment.url")
    assert both.resolve_url(context) == "https://static.dev"
    assert NotificationConfig(channel="email", bodyTemplate="b").effective_format == "text"
    slack = NotificationConfig(
        channel="slack", bodyTemplate="b", slackTarget="https://hooks.slack.com/x"
    )
    assert slack.slack_webhook_url == "https://hooks.slack.com/x"
    assert (
        NotificationConfig(channel="slack", bodyTemplate="b", slackTarget="C0123").slack_webhook_url
        is None
    )
    assert Group(groupId="g", memberNodeIds=["a"], expectedSteps=1, quorum=1).policy == "waitAll"
    legacy = HumanConfig(reviewerIds=["u1", "u2"])
    assert [(r.userId, r.mandatory) for r in legacy.effective_reviewers] == [
        ("u1", True),
        ("u2", True),
    ]
    assert InboundWebhook(authMode="hmac", secret="s" * 16).effective_provider == "velt"


def test_view_of_a_definition() -> None:
    body = decode(CREATE_EXAMPLE)
    compiled = CompiledGraph(forwardEdges=[], loops=[])
    shown = msgspec.to_builtins(
        view(
            body,
            compiled,
            version=1,
            status="active",
            created_at=1731432000000,
            updated_at=1731432000000,
        )
    )
    authored = CREATE_EXAMPLE
    assert shown == {
        "definitionId": "marketing-copy-approval",
        "name": "Marketing copy approval",
        "description": None,
        "version": 1,
        "scope": {"level": "apiKey", "organizationId": None, "documentId": None},
        "nodes": authored["nodes"],
        "edges": authored["edges"],
        "groups": None,
        "compiled": {"forwardEdges": [], "loops": []},
        "triggers": None,
        "tags": None,
        "custom": None,
        "createdAt": 1731432000000,
        "updatedAt": 1731432000000,
        "status": "active",
    }


def test_a_view_never_shows_the_receiver_and_echoes_scope_ids() -> None:
    data = minimal(
        scope={"level": "document"},
        organizationId="org-1",
        documentId="doc-1",
        webhookConfig={"url": "https://hooks.acme.com/x", "secret": "s" * 16},
    )
    body = decode(data)
    shown = msgspec.to_builtins(
        view(
            body,
            CompiledGraph(forwardEdges=[], loops=[]),
            version=2,
            status="tombstoned",
            created_at=1,
            updated_at=2,
        )
    )
    assert "webhookConfig" not in shown
    assert shown["scope"] == {"level": "document", "organizationId": "org-1", "documentId": "doc-1"}
    # A read, stripped of server-owned fields and nulls, creates the same definition again.
    again = {k: v for k, v in shown.items() if v is not None}
    for owned in ("version", "createdAt", "updatedAt", "status", "compiled"):
        again.pop(owned)
    again["scope"] = {k: v for k, v in again["scope"].items() if v is not None}
    assert effective_scope(decode(again)) == effective_scope(body)


@pytest.mark.parametrize(
    ("scope", "top", "expected"),
    [
        (None, {}, ("apiKey", None, None)),
        ({"level": "apiKey"}, {"organizationId": "o"}, ("apiKey", None, None)),
        ({"level": "organization", "organizationId": "o"}, {}, ("organization", "o", None)),
        (
            {"level": "organization"},
            {"organizationId": "o", "documentId": "d"},
            ("organization", "o", None),
        ),
        (
            {"level": "document", "organizationId": "o", "documentId": "d"},
            {},
            ("document", "o", "d"),
        ),
    ],
)
def test_effective_scope(scope: Json | None, top: Json, expected: tuple[Any, ...]) -> None:
    data = minimal(**top)
    if scope is not None:
        data["scope"] = scope
    shown = effective_scope(decode(data))
    assert (shown.level, shown.organizationId, shown.documentId) == expected


def test_stored_bodies_convert_back() -> None:
    """What storage keeps (the request as builtins) converts back to an equal body."""
    body = decode(GROUP_LOOP_EXAMPLE)
    stored = copy.deepcopy(msgspec.to_builtins(body))
    assert msgspec.to_builtins(msgspec.convert(stored, DefinitionBody)) == stored

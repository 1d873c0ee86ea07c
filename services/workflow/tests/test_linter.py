"""The linter: one minimal definition per rule, asserting the code and the path; the reference's
valid examples pass; its anti-patterns are refused with the codes it names; and nothing that
decoded makes the linter raise."""

from __future__ import annotations

import json
import random
from typing import Any

import msgspec
import pytest

from redline.webhooks import AddressGuard
from redline.workflow.definitions.linter import error_for, lint, needs_app_platform
from redline.workflow.definitions.models import CreateDefinition

Json = dict[str, Any]
GUARD = AddressGuard()


# ---- building definitions


def definition(nodes: list[Json], edges: list[Json] | None = None, **extra: Any) -> CreateDefinition:
    data = {"definitionId": "linted", "name": "Linted", "nodes": nodes, "edges": edges or [], **extra}
    return msgspec.convert(data, CreateDefinition)


def human(node_id: str, *, sla: int | None = None, **config: Any) -> Json:
    node: Json = {
        "nodeId": node_id,
        "type": "human",
        "config": config or {"reviewers": [{"userId": f"u-{node_id}", "mandatory": True}]},
    }
    if sla is not None:
        node["slaMs"] = sla
    return node


def agent(node_id: str, **config: Any) -> Json:
    return {"nodeId": node_id, "type": "agent", "config": {"agentId": "a", "urlPath": "url", **config}}


def webhook(node_id: str, **config: Any) -> Json:
    return {"nodeId": node_id, "type": "webhook", "config": {"url": "https://hooks.acme.dev/x", **config}}


def notification(node_id: str, **config: Any) -> Json:
    base = {"channel": "email", "bodyTemplate": "Decision: {{input.decision}}", "recipients": ["a@acme.dev"]}
    return {"nodeId": node_id, "type": "notification", "config": {**base, **config}}


def edge(source: Any, target: Any, on: str | None = None, **fields: Any) -> Json:
    found: Json = {"from": source, "to": target}
    if on is not None:
        found["on"] = on
    return {**found, **fields}


def G(group_id: str) -> Json:
    return {"kind": "group", "groupId": group_id}


def group(group_id: str, members: list[str], policy: str | None = None, **fields: Any) -> Json:
    found: Json = {
        "groupId": group_id,
        "memberNodeIds": members,
        "expectedSteps": len(members),
        "quorum": len(members),
    }
    if policy is not None:
        found["onQuorumMet"] = policy
    return {**found, **fields}


def problems(body: CreateDefinition) -> list[tuple[str, str]]:
    return [(found.code, found.path) for found in lint(body, GUARD)]


def reviewed(*nodes: Json, edges: list[Json] | None = None, **extra: Any) -> CreateDefinition:
    """`nodes` after a human node `review` that rejects to `redo` and approves to each."""
    first = [human("review"), agent("redo")]
    routes = [edge("review", "redo", "reject")] + [
        edge("review", node["nodeId"], "approve") for node in nodes
    ]
    return definition(first + list(nodes), routes + (edges or []), **extra)


# ---- the reference's valid definitions


def _send_back() -> CreateDefinition:
    return definition(
        [agent("agent-draft"), human("human-boss"), agent("agent-publish"), human("human-skip-level-mgr"), agent("archive")],
        [
            edge("agent-draft", "human-boss"),
            edge("human-boss", "agent-publish", "approve"),
            edge("human-boss", "agent-draft", "reject", loop={"maxIterations": 3}),
            edge("human-boss", "human-skip-level-mgr", "exhausted"),
            edge("human-skip-level-mgr", "archive", "reject"),
        ],
    )


def _rewind_stage() -> CreateDefinition:
    return definition(
        [
            agent("agent-draft"),
            human("human-legal"),
            human("human-brand"),
            human("human-finance"),
            agent("agent-publish"),
            human("human-cco"),
            agent("archive"),
        ],
        [
            edge("agent-draft", G("compliance-review")),
            edge(G("compliance-review"), "agent-publish", "approve"),
            edge(G("compliance-review"), "agent-draft", "reject", loop={"maxIterations": 3}),
            edge(G("compliance-review"), "human-cco", "exhausted"),
            edge("human-cco", "archive", "reject"),
        ],
        groups=[group("compliance-review", ["human-legal", "human-brand", "human-finance"], "joinOnQuorum")],
    )


def _marketing_group_loop() -> CreateDefinition:
    return definition(
        [agent("agent-draft"), human("human-legal"), human("human-brand"), agent("agent-publish")],
        [
            edge("agent-draft", "human-legal"),
            edge("agent-draft", "human-brand"),
            edge("human-legal", "agent-publish"),
            edge("human-brand", "agent-publish"),
            edge(G("parallel-review"), "agent-draft", "reject", loop={"maxIterations": 3}),
        ],
        groups=[group("parallel-review", ["human-legal", "human-brand"], "joinOnQuorum")],
    )


def _collective_wait_all() -> CreateDefinition:
    return definition(
        [agent("draft"), human("a"), human("b"), agent("publish"), agent("redo")],
        [
            edge("draft", G("g")),
            edge(G("g"), "publish", "approve"),
            edge(G("g"), "redo", "reject"),
        ],
        groups=[group("g", ["a", "b"])],
    )


def _cancel_on_quorum() -> CreateDefinition:
    return definition(
        [agent("draft"), human("a"), human("b"), human("c"), agent("publish"), agent("redo")],
        [edge("draft", G("g"))]
        + [edge(m, "redo", "reject") for m in "abc"]
        + [edge(G("g"), "publish", "approve")],
        groups=[group("g", ["a", "b", "c"], "cancelOnQuorum", quorum=2)],
    )


def _agent_in_quorum_group() -> CreateDefinition:
    return definition(
        [agent("draft"), agent("agent-summarize"), human("human-legal"), agent("publish")],
        [
            edge("draft", G("x")),
            edge(G("x"), "publish", "approve"),
            edge(G("x"), "draft", "reject", loop={"maxIterations": 2}),
        ],
        groups=[group("x", ["agent-summarize", "human-legal"], "joinOnQuorum")],
    )


def _exhausted_target_reachable_elsewhere() -> CreateDefinition:
    # Accepted, though the escalation may run twice (the reference warns about it).
    return definition(
        [agent("draft"), human("review"), agent("escalate")],
        [
            edge("draft", "review"),
            edge("review", "escalate", "approve"),
            edge("review", "draft", "reject", loop={"maxIterations": 2}),
            edge("review", "escalate", "exhausted"),
        ],
    )


def _deadlines() -> CreateDefinition:
    breached = json.dumps({"op": "eq", "args": [{"var": "step.status"}, "breached"]})
    return definition(
        [human("first", sla=86_400_000), human("second", sla=3_600_000), human("last", sla=60_000), agent("sink")],
        [
            edge("first", "second", "approve"),
            edge("first", "sink", "reject"),
            edge("first", "sink"),
            edge("second", "last", "approve"),
            edge("second", "sink", "reject"),
            edge("second", "sink", "custom", when=breached),
            edge("last", "sink", "reject"),
            edge("last", "sink", "always"),
        ],
    )


def _everything_else() -> CreateDefinition:
    return reviewed(
        webhook(
            "hook",
            mode="async",
            method="GET",
            authMode="token",
            authTokenHeader="Authorization",
            bodyTemplate="none",
            requestHeaders={"x-acme-tenant": "t 1"},
            expectedStatusCodes=[202],
        ),
        notification("mail", subjectTemplate="{{ execution.triggerContext.title }}"),
        notification("chat", channel="slack", slackTarget="https://hooks.slack.com/services/T/B/x", format="slack-blocks", recipients=None),
        agent("blocking", blocking=True, resolutionPolicy="any", url="https://acme.com/page"),
        scope={"level": "document", "organizationId": "org", "documentId": "doc"},
        organizationId="org",
        webhookConfig={"url": "https://receiver.acme.dev/events", "secret": "s" * 16},
        triggers=[
            {
                "triggerId": "custom",
                "inboundWebhook": {
                    "authMode": "hmac",
                    "secret": "s" * 16,
                    "provider": "custom",
                    "signatureHeader": "x-sig",
                    "signatureAlgorithm": "sha256",
                },
            },
            {"triggerId": "velt-bearer", "inboundWebhook": {"authMode": "bearer", "secret": "s" * 16}},
            {"triggerId": "nightly", "schedule": {"cron": "0 2 * * MON-FRI", "timezone": "UTC", "enabled": False}},
        ],
    )


REFERENCE_EXAMPLES = {
    "create-definition": lambda: definition(
        [agent("agent-draft"), human("human-review"), agent("agent-publish"), agent("agent-rework")],
        [
            edge("agent-draft", "human-review"),
            edge("human-review", "agent-publish", "approve"),
            edge("human-review", "agent-rework", "reject"),
        ],
        scope={"level": "apiKey"},
    ),
    "nightly-audit": lambda: definition(
        [{"nodeId": "audit", "type": "agent", "config": {"agentId": "broken-links", "url": "https://acme.com"}}],
        triggers=[
            {
                "triggerId": "nightly-audit",
                "schedule": {"cron": "0 2 * * *", "timezone": "America/Los_Angeles", "enabled": True},
            }
        ],
    ),
    "doc-signoff": lambda: definition(
        [human("manager-approval"), {"nodeId": "rework-notice", "type": "agent", "config": {"agentId": "__mock__", "urlPath": "documentUrl"}}],
        [edge("manager-approval", "rework-notice", "reject")],
    ),
    "send-somewhere-else": lambda: definition(
        [human("human-boss"), agent("agent-publish"), human("human-rework-team"), agent("archive")],
        [
            edge("human-boss", "agent-publish", "approve"),
            edge("human-boss", "human-rework-team", "reject"),
            edge("human-rework-team", "archive", "reject"),
        ],
    ),
    "vercel-scan": lambda: definition(
        [
            agent("scan", urlPath="payload.deployment.url", maxUrlsToProcess=50),
            notification(
                "notify",
                recipients=["web-team@acme.com"],
                subjectTemplate="Broken-link scan for {{execution.triggerContext.payload.deployment.url}}",
                bodyTemplate="Found {{input.agentResultsSummary.totalFindings}} broken link(s).",
                format="text",
            ),
        ],
        [edge("scan", "notify", "always")],
        triggers=[
            {
                "triggerId": "vercel-prod-deploys",
                "appTrigger": {"provider": "vercel", "installationRef": "icfg_AbC123xyz"},
            }
        ],
    ),
    "send-back": _send_back,
    "rewind-stage": _rewind_stage,
    "marketing-group-loop": _marketing_group_loop,
    "collective-wait-all": _collective_wait_all,
    "cancel-on-quorum": _cancel_on_quorum,
    "agent-in-quorum-group": _agent_in_quorum_group,
    "exhausted-target-reachable-elsewhere": _exhausted_target_reachable_elsewhere,
    "deadlines": _deadlines,
    "everything-else": _everything_else,
}


@pytest.mark.parametrize("name", REFERENCE_EXAMPLES)
def test_valid_definitions_have_no_problems(name: str) -> None:
    assert problems(REFERENCE_EXAMPLES[name]()) == []


def test_app_triggers_need_an_app_platform() -> None:
    assert needs_app_platform(REFERENCE_EXAMPLES["vercel-scan"]())
    assert not needs_app_platform(REFERENCE_EXAMPLES["nightly-audit"]())
    assert not needs_app_platform(REFERENCE_EXAMPLES["doc-signoff"]())

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


def definition(
    nodes: list[Json], edges: list[Json] | None = None, **extra: Any
) -> CreateDefinition:
    data = {
        "definitionId": "linted",
        "name": "Linted",
        "nodes": nodes,
        "edges": edges or [],
        **extra,
    }
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
    return {
        "nodeId": node_id,
        "type": "agent",
        "config": {"agentId": "a", "urlPath": "url", **config},
    }


def webhook(node_id: str, **config: Any) -> Json:
    return {
        "nodeId": node_id,
        "type": "webhook",
        "config": {"url": "https://hooks.acme.dev/x", **config},
    }


def notification(node_id: str, **config: Any) -> Json:
    base = {
        "channel": "email",
        "bodyTemplate": "Decision: {{input.decision}}",
        "recipients": ["a@acme.dev"],
    }
    merged = {key: value for key, value in {**base, **config}.items() if value is not None}
    return {"nodeId": node_id, "type": "notification", "config": merged}


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
        [
            agent("agent-draft"),
            human("human-boss"),
            agent("agent-publish"),
            human("human-skip-level-mgr"),
            agent("archive"),
        ],
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
        groups=[
            group(
                "compliance-review", ["human-legal", "human-brand", "human-finance"], "joinOnQuorum"
            )
        ],
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
        [
            human("first", sla=86_400_000),
            human("second", sla=3_600_000),
            human("last", sla=60_000),
            agent("sink"),
        ],
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
        notification(
            "chat",
            channel="slack",
            slackTarget="https://hooks.slack.com/services/T/B/x",
            format="slack-blocks",
            recipients=None,
        ),
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
            {
                "triggerId": "velt-bearer",
                "inboundWebhook": {"authMode": "bearer", "secret": "s" * 16},
            },
            {
                "triggerId": "nightly",
                "schedule": {"cron": "0 2 * * MON-FRI", "timezone": "UTC", "enabled": False},
            },
        ],
    )


REFERENCE_EXAMPLES = {
    "create-definition": lambda: definition(
        [
            agent("agent-draft"),
            human("human-review"),
            agent("agent-publish"),
            agent("agent-rework"),
        ],
        [
            edge("agent-draft", "human-review"),
            edge("human-review", "agent-publish", "approve"),
            edge("human-review", "agent-rework", "reject"),
        ],
        scope={"level": "apiKey"},
    ),
    "nightly-audit": lambda: definition(
        [
            {
                "nodeId": "audit",
                "type": "agent",
                "config": {"agentId": "broken-links", "url": "https://acme.com"},
            }
        ],
        triggers=[
            {
                "triggerId": "nightly-audit",
                "schedule": {
                    "cron": "0 2 * * *",
                    "timezone": "America/Los_Angeles",
                    "enabled": True,
                },
            }
        ],
    ),
    "doc-signoff": lambda: definition(
        [
            human("manager-approval"),
            {
                "nodeId": "rework-notice",
                "type": "agent",
                "config": {"agentId": "__mock__", "urlPath": "documentUrl"},
            },
        ],
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
                subjectTemplate="Broken-link scan for "
                "{{execution.triggerContext.payload.deployment.url}}",
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


# ---- one definition per rule

SINK = agent("sink")


def alone(node: Json) -> CreateDefinition:
    """One node of interest; a human gets the reject edge it needs."""
    if node["type"] == "human":
        return definition([node, SINK], [edge(node["nodeId"], "sink", "reject")])
    return definition([node])


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


WHEN = json.dumps({"op": "eq", "args": [{"var": "output.ok"}, True]})


@pytest.mark.parametrize(
    ("edges", "code", "path"),
    [
        ([edge("a", "b", "approve", when=WHEN)], "edge-when-only-for-custom", "data.edges[0].when"),
        ([edge("a", "b", when=WHEN)], "edge-when-only-for-custom", "data.edges[0].when"),
        ([edge("a", "b", "custom")], "edge-custom-requires-when", "data.edges[0].when"),
        ([edge("a", "b", "custom", when="  ")], "edge-custom-requires-when", "data.edges[0].when"),
        (
            [edge("a", "b", "custom", when="output.decision == 'approve'")],
            "when-invalid-json",
            "data.edges[0].when",
        ),
        (
            [edge("a", "b", "custom", when='{"op":"eq","args":[{"var":"input.x"},1]}')],
            "when-unknown-var-root",
            "data.edges[0].when",
        ),
        (
            [edge("a", "b", "custom", when='{"op":"like","args":[1,2]}')],
            "when-unknown-op",
            "data.edges[0].when",
        ),
        (
            [edge("a", "b", "always", loop={"maxIterations": 2})],
            "edge-loop-requires-reject",
            "data.edges[0].loop",
        ),
        (
            [edge("a", "b", loop={"maxIterations": 2})],
            "edge-loop-requires-reject",
            "data.edges[0].loop",
        ),
    ],
)
def test_edge_field_rules(edges: list[Json], code: str, path: str) -> None:
    assert problems(definition([agent("a"), agent("b")], edges)) == [(code, path)]


def test_loop_and_exhausted_rules() -> None:
    nodes = [agent("a"), human("h"), agent("b"), agent("c")]
    base = [edge("a", "h"), edge("h", "b", "approve")]
    sibling_missing = definition(
        nodes, [*base, edge("h", "b", "reject"), edge("h", "c", "exhausted")]
    )
    assert problems(sibling_missing) == [("edge-exhausted-requires-loop-sibling", "data.edges[3]")]
    twice = definition(
        nodes,
        [
            *base,
            edge("h", "a", "reject", loop={"maxIterations": 2}),
            edge("h", "c", "exhausted"),
            edge("h", "b", "exhausted"),
        ],
    )
    assert problems(twice) == [("edge-exhausted-duplicate", "data.edges[4]")]
    forward_loop = definition(nodes, [*base, edge("h", "c", "reject", loop={"maxIterations": 2})])
    assert problems(forward_loop) == [("edge-loop-requires-back-edge", "data.edges[2].to")]
    self_loop = definition(
        nodes, [*base, edge("h", "h", "reject", loop={"maxIterations": 2}), edge("a", "c")]
    )
    assert ("edge-loop-requires-back-edge", "data.edges[2].to") in problems(self_loop)
    plain_back = definition(nodes, [*base, edge("h", "a", "reject"), edge("a", "c")])
    assert problems(plain_back) == [
        ("edge-reject-cycle-requires-loop", "data.edges[2]"),
        ("cycle-detected", "data.edges[0]"),
        ("unreachable-node", "data.nodes[0]"),
        ("unreachable-node", "data.nodes[1]"),
        ("unreachable-node", "data.nodes[2]"),
        ("unreachable-node", "data.nodes[3]"),
    ]


def test_loops_and_exhausted_routes_lead_to_nodes() -> None:
    body = definition(
        [agent("a"), human("m1"), human("m2"), agent("x")],
        [
            edge("a", G("g")),
            edge(G("g"), "x", "approve"),
            edge(G("g"), G("g"), "reject", loop={"maxIterations": 2}),
            edge(G("g"), G("g"), "exhausted"),
        ],
        groups=[group("g", ["m1", "m2"], "joinOnQuorum")],
    )
    assert problems(body) == [
        ("edge-loop-target-must-be-node", "data.edges[2].to"),
        ("edge-group-to-group-forbidden", "data.edges[2]"),
        ("edge-loop-target-must-be-node", "data.edges[3].to"),
        ("edge-group-to-group-forbidden", "data.edges[3]"),
        # An exhausted route back into the graph would run again at every later rejection.
        ("cycle-detected", "data.edges[3]"),
    ]


@pytest.mark.parametrize(
    ("policy", "edges", "expected"),
    [
        (
            "waitAll",
            [edge(G("g"), G("h"))],
            [("edge-group-to-group-forbidden", "data.edges[1]")],
        ),
        (
            "joinOnQuorum",
            [edge(G("g"), "x", "approve"), edge(G("g"), "y", "reject")],
            [("group-from-reject-requires-loop", "data.edges[2]")],
        ),
        (
            "cancelOnQuorum",
            [edge(G("g"), "x", "approve"), edge(G("g"), "y", "reject")],
            [("group-from-reject-requires-loop", "data.edges[2]")],
        ),
        (
            "waitAll",
            [edge(G("g"), "x", "approve"), edge(G("g"), "a", "reject", loop={"maxIterations": 2})],
            [("group-from-loop-requires-joinonquorum", "data.edges[2]")],
        ),
    ],
)
def test_group_source_rules(
    policy: str, edges: list[Json], expected: list[tuple[str, str]]
) -> None:
    quorum = 2 if policy != "cancelOnQuorum" else 1
    body = definition(
        [agent("a"), agent("m1"), agent("m2"), agent("x"), agent("y"), agent("h1")],
        [edge("a", G("g")), *edges, edge("a", "x"), edge("a", "y"), edge("a", G("h"))],
        groups=[group("g", ["m1", "m2"], policy, quorum=quorum), group("h", ["h1"])],
    )
    found = problems(body)
    assert [item for item in found if item[0] == expected[0][0]] == expected


def test_every_human_needs_a_reject_path() -> None:
    # The reference's anti-pattern: a final human node with no reject edge.
    final = definition([human("human-final-approver")])
    [(code, path)] = problems(final)
    assert (code, path) == ("human-node-requires-reject-path", "data.nodes[0]")
    assert lint(final, GUARD)[0].message == (
        'every human node must have at least one outgoing edge with on="reject" '
        "(a forward reject route or a reject back-edge): human-final-approver"
    )


@pytest.mark.parametrize(
    ("trigger", "code", "path"),
    [
        (
            {
                "triggerId": "t",
                "schedule": {"cron": "0 2 * * *", "timezone": "UTC", "enabled": True},
                "inboundWebhook": {"authMode": "hmac", "secret": "s" * 16},
            },
            "trigger-mechanism-exclusive",
            "data.triggers[1]",
        ),
        ({"triggerId": "t", "eventName": "e"}, "trigger-mechanism-required", "data.triggers[1]"),
        (
            {
                "triggerId": "first",
                "schedule": {"cron": "0 2 * * *", "timezone": "UTC", "enabled": True},
            },
            "trigger-duplicate-id",
            "data.triggers[1].triggerId",
        ),
        (
            {
                "triggerId": "t",
                "schedule": {"cron": "0 2 * * * *", "timezone": "UTC", "enabled": True},
            },
            "schedule-cron-invalid",
            "data.triggers[1].schedule.cron",
        ),
        (
            {"triggerId": "t", "schedule": {"cron": "@daily", "timezone": "UTC", "enabled": True}},
            "schedule-cron-invalid",
            "data.triggers[1].schedule.cron",
        ),
        (
            {
                "triggerId": "t",
                "schedule": {"cron": "61 2 * * *", "timezone": "UTC", "enabled": True},
            },
            "schedule-cron-invalid",
            "data.triggers[1].schedule.cron",
        ),
        (
            {
                "triggerId": "t",
                "schedule": {"cron": "0 2 * * *", "timezone": "Mars/Olympus", "enabled": True},
            },
            "schedule-timezone-invalid",
            "data.triggers[1].schedule.timezone",
        ),
        (
            {
                "triggerId": "t",
                "schedule": {"cron": "0 2 * * *", "timezone": "../../etc/passwd", "enabled": True},
            },
            "schedule-timezone-invalid",
            "data.triggers[1].schedule.timezone",
        ),
        (
            {
                "triggerId": "t",
                "inboundWebhook": {"authMode": "bearer", "secret": "s" * 16, "provider": "github"},
            },
            "inbound-webhook-provider-requires-hmac",
            "data.triggers[1].inboundWebhook.authMode",
        ),
        (
            {
                "triggerId": "t",
                "inboundWebhook": {
                    "authMode": "hmac",
                    "secret": "s" * 16,
                    "provider": "custom",
                    "signatureHeader": "x-sig",
                },
            },
            "inbound-webhook-custom-requires-signature",
            "data.triggers[1].inboundWebhook",
        ),
    ],
)
def test_trigger_rules(trigger: Json, code: str, path: str) -> None:
    first = {"triggerId": "first", "inboundWebhook": {"authMode": "hmac", "secret": "s" * 16}}
    assert problems(definition([agent("a")], triggers=[first, trigger])) == [(code, path)]


def test_trigger_messages_are_the_hosted_ones() -> None:
    triggers = [
        {"triggerId": "a", "schedule": {"cron": "nope", "timezone": "Nowhere", "enabled": True}},
        {
            "triggerId": "b",
            "inboundWebhook": {"authMode": "bearer", "secret": "s" * 16, "provider": "vercel"},
        },
        {
            "triggerId": "c",
            "inboundWebhook": {"authMode": "hmac", "secret": "s" * 16, "provider": "custom"},
        },
    ]
    assert [p.message for p in lint(definition([agent("a")], triggers=triggers), GUARD)] == [
        "schedule.cron must be a valid 5-field cron expression",
        "schedule.timezone must be a valid IANA timezone name (e.g. America/Los_Angeles)",
        'inboundWebhook provider="github"/"vercel"/"custom" requires authMode="hmac"',
        'inboundWebhook with provider="custom" and authMode="hmac" requires signatureHeader '
        "and signatureAlgorithm",
    ]


def test_duplicate_node_ids() -> None:
    body = definition([agent("a"), agent("b"), agent("a")], [edge("a", "b")])
    assert problems(body) == [("duplicate-node-id", "data.nodes[2].nodeId")]


def test_dangling_edges() -> None:
    body = definition(
        [agent("a"), human("h")],
        [
            edge("a", "h"),
            edge("h", "ghost", "reject"),
            edge(G("nope"), "a"),
            edge({"kind": "node", "nodeId": "x"}, G("g")),
        ],
        groups=[group("g", ["a"])],
    )
    assert problems(body) == [
        ("dangling-edge", "data.edges[1].to"),
        ("dangling-edge", "data.edges[2].from"),
        ("dangling-edge", "data.edges[3].from"),
        ("unreachable-node", "data.nodes[0]"),
        ("unreachable-node", "data.nodes[1]"),
    ]


def test_cycles_other_than_loops() -> None:
    body = definition(
        [agent("start"), agent("a"), agent("b"), agent("c"), agent("d")],
        [
            edge("start", "a"),
            edge("a", "b"),
            edge("b", "c"),
            edge("c", "a"),
            edge("start", "d"),
            edge("d", "d"),
        ],
    )
    assert problems(body) == [
        ("cycle-detected", "data.edges[1]"),
        ("cycle-detected", "data.edges[5]"),
    ]
    assert "a, b, c" in lint(body, GUARD)[0].message


def test_unreachable_nodes() -> None:
    body = definition([agent("a"), agent("b"), agent("c")], [edge("a", "b"), edge("c", "c")])
    assert problems(body) == [
        ("cycle-detected", "data.edges[1]"),
        ("unreachable-node", "data.nodes[2]"),
    ]


def test_missing_breach_edge() -> None:
    # The reference's anti-pattern: slaMs with only a reject edge.
    body = definition(
        [human("human-review", sla=86_400_000), human("human-rework")],
        [
            edge("human-review", "human-rework", "reject"),
            edge("human-rework", "human-review", "reject", loop={"maxIterations": 1}),
        ],
    )
    assert ("missing-breach-edge", "data.nodes[0].slaMs") in problems(body)
    custom = definition(
        [agent("a", **{}) | {"slaMs": 1000}, agent("b")],
        [edge("a", "b", "custom", when=WHEN)],
    )
    assert problems(custom) == [("missing-breach-edge", "data.nodes[0].slaMs")]


def test_group_rules() -> None:
    nodes = [agent("start"), agent("m1"), agent("m2"), agent("m3"), agent("after")]
    edges = [
        edge("start", G("g1")),
        edge("start", G("g2")),
        edge("m1", "after"),
        edge("m2", "after"),
        edge("m3", "after"),
    ]
    groups = [
        group("g1", ["m1", "m2", "ghost"], expectedSteps=2, quorum=3, requiredNodeIds=["m1", "m3"]),
        group("g1", ["m3"]),
        group("g2", ["m2"], "cancelOnQuorum"),
    ]
    assert problems(definition(nodes, edges, groups=groups)) == [
        ("group-member-missing", "data.groups[0].memberNodeIds[2]"),
        ("group-quorum-invalid", "data.groups[0].quorum"),
        ("group-required-not-in-members", "data.groups[0].requiredNodeIds[1]"),
        ("group-duplicate-id", "data.groups[1].groupId"),
        ("group-node-in-multiple-groups", "data.groups[2].memberNodeIds[0]"),
        ("group-cancelonquorum-requires-quorum-lt-expected", "data.groups[2].quorum"),
    ]
    required = [group("g1", ["m1", "m2", "m3"], quorum=1, requiredNodeIds=["m1", "m2"])]
    assert problems(definition(nodes, edges[:1] + edges[2:], groups=required)) == [
        ("group-required-exceeds-quorum", "data.groups[0].requiredNodeIds")
    ]


def test_join_on_quorum_members_share_successors() -> None:
    body = definition(
        [agent("start"), human("m1"), human("m2"), agent("publish"), agent("redo")],
        [
            edge("start", G("g")),
            edge("m1", "publish"),
            edge("m2", "publish"),
            edge("m1", "redo", "reject"),
            edge(G("g"), "start", "reject", loop={"maxIterations": 2}),
        ],
        groups=[group("g", ["m1", "m2"], "joinOnQuorum")],
    )
    assert problems(body) == [
        ("group-joinonquorum-members-must-share-successors", "data.groups[0].memberNodeIds[1]")
    ]


def test_one_back_edge_per_parallel_reviewer_is_refused() -> None:
    # The reference's anti-pattern: each back-edge derives its own, overlapping, loop region.
    body = definition(
        [
            agent("agent-draft"),
            human("human-legal"),
            human("human-brand"),
            human("human-finance"),
            agent("publish"),
        ],
        [edge("agent-draft", m) for m in ("human-legal", "human-brand", "human-finance")]
        + [edge(m, "publish", "approve") for m in ("human-legal", "human-brand", "human-finance")]
        + [
            edge(m, "agent-draft", "reject", loop={"maxIterations": 3})
            for m in ("human-legal", "human-brand", "human-finance")
        ],
    )
    overlapping = [item for item in problems(body) if item[0] == "loop-node-in-multiple-loops"]
    assert overlapping == [
        ("loop-node-in-multiple-loops", "data.edges[7]"),
        ("loop-node-in-multiple-loops", "data.edges[8]"),
    ]


def test_loop_body_shapes() -> None:
    # Two exits that are not a joinOnQuorum group's members.
    two_exits = definition(
        [agent("draft"), agent("check"), human("review"), agent("done"), agent("audit")],
        [
            edge("draft", "check"),
            edge("check", "review"),
            edge("check", "audit"),
            edge("review", "done", "approve"),
            edge("review", "draft", "reject", loop={"maxIterations": 2}),
        ],
    )
    assert problems(two_exits) == [("loop-body-must-have-single-terminal", "data.edges[4]")]
    # Bounded by a joinOnQuorum group whose quorum is below expectedSteps.
    partial = definition(
        [agent("draft"), human("m1"), human("m2"), agent("publish")],
        [
            edge("draft", G("g")),
            edge("m1", "publish"),
            edge("m2", "publish"),
            edge(G("g"), "draft", "reject", loop={"maxIterations": 2}),
        ],
        groups=[group("g", ["m1", "m2"], "joinOnQuorum", quorum=1)],
    )
    assert problems(partial) == [("loop-group-bounded-quorum-must-equal-expected", "data.edges[3]")]
    # A body no edge leaves: approval at its end completes the run.
    closed = definition(
        [agent("draft"), human("review")],
        [edge("draft", "review"), edge("review", "draft", "reject", loop={"maxIterations": 2})],
    )
    assert problems(closed) == []


# ---- the error


def test_a_rule_problem_gives_its_own_message() -> None:
    found = lint(
        definition([agent("a"), human("final")], [edge("a", "final"), edge("a", "ghost")]), GUARD
    )
    assert [p.code for p in found] == ["human-node-requires-reject-path", "dangling-edge"]
    error = error_for(found)
    assert error.code == "INVALID_ARGUMENT"
    assert error.message.startswith("every human node must have at least one outgoing edge")
    assert error.details == {"issues": [msgspec.to_builtins(p) for p in found]}


def test_linter_problems_are_listed_in_the_message() -> None:
    found = lint(definition([agent("a"), agent("a")], [edge("a", "ghost")]), GUARD)
    error = error_for(found)
    prefix = "Definition linter failed: "
    assert error.message.startswith(prefix)
    assert json.loads(error.message.removeprefix(prefix)) == [
        {"code": p.code, "message": p.message, "path": p.path} for p in found
    ]
    assert [issue["code"] for issue in (error.details or {})["issues"]] == [
        "duplicate-node-id",
        "dangling-edge",
    ]


# ---- robustness


def test_lint_is_stable_and_total_on_hostile_graphs() -> None:
    chain = [agent(f"n{i}") for i in range(100)]
    edges = [edge(f"n{i}", f"n{(i + 1) % 100}") for i in range(100)]
    edges += [
        edge(f"n{i}", f"n{(i * 7) % 100}", "reject", loop={"maxIterations": 1}) for i in range(100)
    ]
    edges += [edge(f"n{i}", "n0", "exhausted") for i in range(100)]
    edges += [edge(G("g"), f"n{i}") for i in range(100)]
    body = definition(
        chain, edges, groups=[group("g", [f"n{i}" for i in range(100)] + ["ghost"], "joinOnQuorum")]
    )
    first = lint(body, GUARD)
    assert first == lint(body, GUARD)
    assert {p.code for p in first} >= {"cycle-detected", "unreachable-node"}


def test_lint_never_raises_on_random_definitions() -> None:
    rng = random.Random(7)
    roles = [None, "approve", "reject", "always", "exhausted", "custom"]
    for _ in range(300):
        ids = [f"n{i}" for i in range(rng.randint(1, 8))]
        points: list[Any] = [*ids, "ghost", G("g0"), G("g1"), G("none")]
        nodes = [
            rng.choice([human, agent, webhook, notification])(node_id) for node_id in ids + ids[:1]
        ]
        edges = []
        for _ in range(rng.randint(0, 12)):
            found = edge(rng.choice(points), rng.choice(points), rng.choice(roles))
            if found.get("on") == "custom":
                found["when"] = rng.choice(
                    [WHEN, "{", '{"op":"eq","args":[{"var":"step.status"},"x"]}']
                )
            if rng.random() < 0.3:
                found["loop"] = {"maxIterations": 2}
            edges.append(found)
        groups = [
            group(
                f"g{k}",
                rng.sample([*ids, "ghost"], k=rng.randint(1, len(ids))),
                rng.choice(["waitAll", "cancelOnQuorum", "joinOnQuorum"]),
            )
            for k in range(rng.randint(0, 2))
        ]
        found_problems = lint(definition(nodes, edges, groups=groups), GUARD)
        assert all(p.code and p.path.startswith("data") for p in found_problems)

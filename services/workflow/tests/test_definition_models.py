"""Definition requests: what the reference's examples and the hosted product's SDK send
decodes; nulls, unknown and server-owned fields and out-of-bounds values are refused with the
offending path; edges round-trip exactly; reads have the documented shape."""

from __future__ import annotations

import copy
import json
from typing import Any

import msgspec
import pytest

from redline.envelope import decode_request
from redline.envelope.errors import InvalidArgument
from redline.workflow.definitions.models import (
    AgentConfig,
    CompiledGraph,
    CreateDefinition,
    DefinitionBody,
    DeleteDefinition,
    GetDefinition,
    Group,
    HumanConfig,
    HumanNode,
    InboundWebhook,
    ListDefinitions,
    NotificationConfig,
    UpdateDefinition,
    WebhookNodeConfig,
    effective_scope,
    view,
)

Json = dict[str, Any]


def decode(data: Json, tp: type[Any] = CreateDefinition) -> Any:
    return decode_request(json.dumps({"data": data}).encode(), tp)


def refused(data: Json, tp: type[Any] = CreateDefinition) -> dict[str, Any]:
    with pytest.raises(InvalidArgument) as error:
        decode(data, tp)
    details = error.value.details
    assert details is not None
    issue: dict[str, Any] = details["issues"][0]
    return issue


def minimal(**extra: Any) -> Json:
    return {
        "definitionId": "doc-signoff",
        "name": "Document sign-off",
        "nodes": [
            {"nodeId": "a", "type": "agent", "config": {"agentId": "x", "url": "https://a.b"}}
        ],
        "edges": [],
        **extra,
    }


# ---- the reference's examples

CREATE_EXAMPLE: Json = {
    "definitionId": "marketing-copy-approval",
    "name": "Marketing copy approval",
    "scope": {"level": "apiKey"},
    "nodes": [
        {
            "nodeId": "agent-draft",
            "type": "agent",
            "config": {"agentId": "copy-agent-v1", "urlPath": "documentUrl"},
        },
        {
            "nodeId": "human-review",
            "type": "human",
            "config": {"reviewers": [{"userId": "u_reviewer_01", "mandatory": True}]},
        },
        {
            "nodeId": "agent-publish",
            "type": "agent",
            "config": {"agentId": "publish-agent-v1", "urlPath": "documentUrl"},
        },
        {
            "nodeId": "agent-rework",
            "type": "agent",
            "config": {"agentId": "rework-agent-v1", "urlPath": "documentUrl"},
        },
    ],
    "edges": [
        {"from": "agent-draft", "to": "human-review"},
        {"from": "human-review", "to": "agent-publish", "on": "approve"},
        {"from": "human-review", "to": "agent-rework", "on": "reject"},
    ],
}

NIGHTLY_EXAMPLE: Json = {
    "definitionId": "nightly-content-audit",
    "name": "Nightly content audit",
    "nodes": [
        {
            "nodeId": "audit",
            "type": "agent",
            "config": {"agentId": "broken-links", "url": "https://acme.com"},
        }
    ],
    "edges": [],
    "triggers": [
        {
            "triggerId": "nightly-audit",
            "schedule": {"cron": "0 2 * * *", "timezone": "America/Los_Angeles", "enabled": True},
        }
    ],
}

SIGNOFF_EXAMPLE: Json = {
    "definitionId": "doc-signoff",
    "name": "Document sign-off",
    "scope": {"level": "apiKey"},
    "nodes": [
        {
            "nodeId": "manager-approval",
            "type": "human",
            "config": {
                "reviewers": [{"userId": "u_manager_01", "mandatory": True}],
                "commentBody": "Please review and approve this document.",
            },
        },
        {
            "nodeId": "rework-notice",
            "type": "agent",
            "config": {"agentId": "__mock__", "urlPath": "documentUrl"},
        },
    ],
    "edges": [{"from": "manager-approval", "to": "rework-notice", "on": "reject"}],
}

GROUP_LOOP_EXAMPLE: Json = {
    "definitionId": "marketing-copy-approval",
    "name": "Marketing copy approval",
    "scope": {"level": "apiKey"},
    "nodes": [
        {
            "nodeId": "agent-draft",
            "type": "agent",
            "config": {"agentId": "copy-agent-v1", "urlPath": "documentUrl"},
        },
        {
            "nodeId": "human-legal",
            "type": "human",
            "config": {"reviewers": [{"userId": "u_legal_01", "mandatory": True}]},
        },
        {
            "nodeId": "human-brand",
            "type": "human",
            "config": {"reviewers": [{"userId": "u_brand_01", "mandatory": True}]},
        },
        {
            "nodeId": "agent-publish",
            "type": "agent",
            "config": {"agentId": "publish-agent-v1", "urlPath": "documentUrl"},
        },
    ],
    "edges": [
        {"from": "agent-draft", "to": "human-legal"},
        {"from": "agent-draft", "to": "human-brand"},
        {"from": "human-legal", "to": "agent-publish"},
        {"from": "human-brand", "to": "agent-publish"},
        {
            "from": {"kind": "group", "groupId": "parallel-review"},
            "to": "agent-draft",
            "on": "reject",
            "loop": {"maxIterations": 3},
        },
    ],
    "groups": [
        {
            "groupId": "parallel-review",
            "memberNodeIds": ["human-legal", "human-brand"],
            "expectedSteps": 2,
            "quorum": 2,
            "onQuorumMet": "joinOnQuorum",
        }
    ],
}

VERCEL_EXAMPLE: Json = {
    "definitionId": "vercel-broken-links-scan",
    "name": "Vercel deploy scan",
    "nodes": [
        {
            "nodeId": "scan",
            "type": "agent",
            "config": {
                "agentId": "broken-links",
                "urlPath": "payload.deployment.url",
                "maxUrlsToProcess": 50,
            },
        },
        {
            "nodeId": "notify",
            "type": "notification",
            "config": {
                "channel": "email",
                "recipients": ["web-team@acme.com"],
                "subjectTemplate": "Broken-link scan for "
                "{{execution.triggerContext.payload.deployment.url}}",
                "bodyTemplate": "Found {{input.agentResultsSummary.totalFindings}} broken link(s).",
                "format": "text",
            },
        },
    ],
    "edges": [{"from": "scan", "to": "notify", "on": "always"}],
    "triggers": [
        {
            "triggerId": "vercel-prod-deploys",
            "appTrigger": {
                "provider": "vercel",
                "installationRef": "icfg_AbC123xyz",
                "projectFilter": ["my-marketing-site"],
                "allowedEvents": ["deployment.succeeded"],
            },
        }
    ],
}

UPDATE_EXAMPLE: Json = {
    "definitionId": "marketing-copy-approval",
    "ifVersion": 1,
    "name": "Marketing copy approval (Q2 revision)",
    "scope": {"level": "apiKey"},
    "nodes": [
        {
            "nodeId": "agent-draft",
            "type": "agent",
            "config": {"agentId": "copy-agent-v1", "urlPath": "documentUrl"},
        },
        {
            "nodeId": "human-review",
            "type": "human",
            "config": {"reviewers": [{"userId": "u_reviewer_01", "mandatory": True}]},
        },
        {
            "nodeId": "agent-publish",
            "type": "agent",
            "config": {"agentId": "publish-agent-v1", "urlPath": "documentUrl"},
        },
        {
            "nodeId": "agent-rework",
            "type": "agent",
            "config": {"agentId": "rework-agent-v1", "urlPath": "documentUrl"},
        },
    ],
    "edges": [
        {"from": "agent-draft", "to": "human-review"},
        {"from": "human-review", "to": "agent-publish", "on": "approve"},
        {"from": "human-review", "to": "agent-rework", "on": "reject"},
    ],
}

# Node, edge, group and trigger snippets of the reference, placed into a definition.
NODE_SNIPPETS: list[Json] = [
    {
        "nodeId": "brand-check",
        "type": "agent",
        "name": "Brand check",
        "description": "Verifies copy against brand guidelines.",
        "config": {
            "agentId": "brand-agent-v1",
            "urlPath": "documentUrl",
            "requireNonEmptyOutput": True,
        },
        "slaMs": 3600000,
    },
    {
        "nodeId": "notify-stakeholders",
        "type": "notification",
        "config": {
            "channel": "email",
            "recipients": ["lead@acme.dev", "pm@acme.dev"],
            "subjectTemplate": "Approval {{input.decision}} for "
            "{{execution.triggerContext.page.title}}",
            "bodyTemplate": "Findings: {{input.agentResultsSummary.summary}}",
            "format": "text",
        },
    },
    {
        "nodeId": "human-legal",
        "type": "human",
        "config": {
            "reviewers": [{"userId": "u_legal_01", "mandatory": True}],
            "commentBody": "Please review for legal compliance.",
        },
    },
    {
        "nodeId": "human-review",
        "type": "human",
        "slaMs": 86400000,
        "config": {"reviewers": [{"userId": "u_1", "mandatory": True}]},
    },
]
EDGE_SNIPPETS: list[Json] = [
    {"from": "brand-check", "to": "legal-review", "on": "approve"},
    {"from": "human-review", "to": "rework-notice", "on": "reject"},
    {"from": "human-review", "to": "agent-draft", "on": "reject", "loop": {"maxIterations": 3}},
    {"from": "human-review", "to": "escalate", "on": "exhausted"},
    {
        "from": "brand-check",
        "to": "legal-review",
        "on": "custom",
        "when": '{"op":"eq","args":[{"var":"output.passesBrandCheck"},true]}',
    },
    {
        "from": {"kind": "group", "groupId": "compliance-review"},
        "to": "agent-publish",
        "on": "approve",
    },
    {"from": {"kind": "node", "nodeId": "x"}, "to": {"kind": "group", "groupId": "g"}},
]
GROUP_SNIPPETS: list[Json] = [
    {
        "groupId": "approver-group",
        "memberNodeIds": ["legal", "finance", "brand"],
        "expectedSteps": 3,
        "quorum": 2,
        "requiredNodeIds": ["legal", "finance"],
    },
    {
        "groupId": "compliance-review",
        "memberNodeIds": ["human-legal", "human-brand", "human-finance"],
        "expectedSteps": 3,
        "quorum": 3,
        "onQuorumMet": "joinOnQuorum",
    },
]
TRIGGER_SNIPPETS: list[Json] = [
    {
        "triggerId": "ci-build",
        "inboundWebhook": {
            "authMode": "hmac",
            "secret": "github-webhook-secret-...",
            "provider": "github",
            "allowedEvents": ["workflow_run", "push"],
            "idempotencyHeader": "x-github-delivery",
        },
    },
    {
        "triggerId": "nightly-audit",
        "schedule": {
            "cron": "0 2 * * *",
            "timezone": "America/Los_Angeles",
            "enabled": True,
            "payloadTemplate": {"source": "nightly"},
        },
    },
    {
        "triggerId": "gh-deploy-review",
        "appTrigger": {
            "provider": "github",
            "installationRef": "41234567",
            "repoFilter": ["acme/website"],
            "allowedEvents": ["push", "pull_request"],
        },
    },
]


@pytest.mark.parametrize(
    "example",
    [CREATE_EXAMPLE, NIGHTLY_EXAMPLE, SIGNOFF_EXAMPLE, GROUP_LOOP_EXAMPLE, VERCEL_EXAMPLE],
)
def test_reference_examples_decode(example: Json) -> None:
    assert msgspec.to_builtins(decode(example)) == example


def test_the_update_example_decodes() -> None:
    body = decode(UPDATE_EXAMPLE, UpdateDefinition)
    assert body.ifVersion == 1


def test_reference_snippets_decode() -> None:
    body = decode(
        minimal(
            nodes=NODE_SNIPPETS,
            edges=EDGE_SNIPPETS,
            groups=GROUP_SNIPPETS,
            triggers=TRIGGER_SNIPPETS,
        )
    )
    assert msgspec.to_builtins(body.nodes) == NODE_SNIPPETS
    assert msgspec.to_builtins(body.groups) == GROUP_SNIPPETS
    assert msgspec.to_builtins(body.triggers) == TRIGGER_SNIPPETS


def test_edges_round_trip_exactly() -> None:
    body = decode(minimal(edges=EDGE_SNIPPETS))
    assert msgspec.to_builtins(body.edges) == EDGE_SNIPPETS
    assert body.edges[0].role == "approve"
    assert body.edges[6].role == "always"
    assert body.edges[2].is_loop_back
    assert not body.edges[1].is_loop_back


def test_every_sdk_field_is_accepted() -> None:
    data = minimal(
        description="d",
        scope={"level": "document", "organizationId": "org", "documentId": "doc"},
        groups=[],
        triggers=[],
        tags=["t"],
        custom={"any": {"thing": [1, None]}},
        organizationId="org",
        documentId="doc",
        webhookConfig={"url": "https://hooks.acme.com/x", "secret": "s" * 16, "eventTypes": ["a"]},
    )
    data["nodes"] = [
        {
            "nodeId": "agent",
            "type": "agent",
            "name": "n",
            "description": "d",
            "slaMs": 1000,
            "requireNonEmptyOutput": True,
            "config": {
                "agentId": "a",
                "url": "https://acme.com",
                "urlPath": "documentUrl",
                "crossPageExecute": True,
                "maxUrlsToProcess": 500,
                "userContextMapping": {"name": "user.name"},
                "promptOverride": "p",
                "inputMapping": {"x": {"y": 1}},
                "pollIntervalMs": 5000,
                "agentMaxRuntimeMs": 86_400_000,
                "blocking": True,
                "resolutionPolicy": {"mode": "any"},
                "requireNonEmptyOutput": False,
            },
        },
        {
            "nodeId": "hook",
            "type": "webhook",
            "config": {
                "url": "https://api.acme.com/hook",
                "mode": "async",
                "method": "GET",
                "authMode": "token",
                "authTokenHeader": "x-acme-token",
                "timeoutMs": 60000,
                "expectedStatusCodes": [200, 202],
                "bodyTemplate": "none",
                "requestHeaders": {"x-acme-tenant": "t1"},
            },
        },
        {
            "nodeId": "human",
            "type": "human",
            "config": {
                "reviewerIds": ["u1"],
                "reviewerEmails": ["u1@acme.dev"],
                "commentBody": "c",
            },
        },
        {
            "nodeId": "slack",
            "type": "notification",
            "config": {
                "channel": "slack",
                "bodyTemplate": "[]",
                "slackTarget": "C0123",
                "format": "slack-blocks",
            },
        },
    ]
    data["triggers"] = [
        {
            "triggerId": "custom-source",
            "eventName": "label",
            "filters": {"branch": "main"},
            "inboundWebhook": {
                "authMode": "hmac",
                "secret": "x" * 16,
                "provider": "custom",
                "signatureHeader": "x-signature",
                "signatureAlgorithm": "sha1",
                "signaturePrefix": "sha1=",
                "allowedEvents": ["push"],
                "eventNameHeader": "x-event",
                "idempotencyHeader": "x-delivery",
                "idempotencyBodyPath": "event.id",
                "payloadMapping": "wrap",
            },
        },
        {
            "triggerId": "app",
            "appTrigger": {
                "provider": "github",
                "installationRef": "1",
                "repoFilter": ["acme/web"],
                "projectFilter": ["p"],
                "allowedEvents": ["push"],
                "payloadFilters": [{"path": "workflow.name", "in": ["ci", 1]}],
            },
        },
    ]
    body = decode(data)
    assert msgspec.to_builtins(body) == data
    update = decode({**data, "ifVersion": 3}, UpdateDefinition)
    assert update.ifVersion == 3
    get = decode({"definitionId": "x", "organizationId": "o", "documentId": "d"}, GetDefinition)
    assert get.definitionId == "x"
    delete = decode({"definitionId": "x", "purge": True, "organizationId": "o"}, DeleteDefinition)
    assert delete.purge is True
    page = decode(
        {"pageSize": 500, "cursor": 0, "organizationId": "o", "documentId": "d"}, ListDefinitions
    )
    assert page.pageSize == 500


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"description": None}, "data.description"),
        ({"scope": None}, "data.scope"),
        ({"scope": {"level": "apiKey", "organizationId": None}}, "data.scope.organizationId"),
        ({"groups": None}, "data.groups"),
        ({"triggers": None}, "data.triggers"),
        ({"tags": None}, "data.tags"),
        ({"custom": None}, "data.custom"),
        ({"organizationId": None}, "data.organizationId"),
        ({"webhookConfig": None}, "data.webhookConfig"),
        (
            {"nodes": [{"nodeId": "a", "type": "agent", "name": None, "config": {"agentId": "x"}}]},
            "data.nodes[0].name",
        ),
        (
            {"nodes": [{"nodeId": "a", "type": "agent", "config": {"agentId": "x", "url": None}}]},
            "data.nodes[0].config.url",
        ),
        ({"edges": [{"from": "a", "to": "a", "on": None}]}, "data.edges[0].on"),
        ({"edges": [{"from": "a", "to": "a", "when": None}]}, "data.edges[0].when"),
    ],
)
def test_explicit_nulls_are_refused(change: Json, path: str) -> None:
    issue = refused(minimal(**change))
    assert issue["path"] == path
    assert "null" in issue["message"]


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"version": 1}, "data.version"),
        ({"compiled": {"forwardEdges": [], "loops": []}}, "data.compiled"),
        ({"status": "active"}, "data.status"),
        ({"createdAt": 1}, "data.createdAt"),
        ({"updatedAt": 1}, "data.updatedAt"),
        ({"loops": []}, "data.loops"),
        ({"ifVersion": 1}, "data.ifVersion"),
        (
            {"nodes": [{"nodeId": "a", "type": "agent", "config": {"agentId": "x", "foo": 1}}]},
            "data.nodes[0].config.foo",
        ),
        (
            {
                "nodes": [
                    {
                        "nodeId": "a",
                        "type": "human",
                        "config": {"reviewers": [{"userId": "u", "mandatory": True, "role": "x"}]},
                    }
                ]
            },
            "data.nodes[0].config.reviewers[0].role",
        ),
        ({"edges": [{"from": "a", "to": "a", "priority": 1}]}, "data.edges[0].priority"),
        ({"scope": {"level": "apiKey", "orgId": "o"}}, "data.scope.orgId"),
    ],
)
def test_unknown_and_server_owned_fields_are_refused(change: Json, path: str) -> None:
    issue = refused(minimal(**change))
    assert issue["code"] == "unknown_field"
    assert issue["path"] == path


def node_with(node_type: str, config: Json, **fields: Any) -> Json:
    return minimal(nodes=[{"nodeId": "n", "type": node_type, "config": config, **fields}])


AGENT: Json = {"agentId": "a", "url": "https://a.b"}
HOOK: Json = {"url": "https://a.b"}
NOTE: Json = {"channel": "email", "bodyTemplate": "b", "recipients": ["a@b.c"]}


@pytest.mark.parametrize(
    ("data", "path"),
    [
        (minimal(definitionId="ab"), "data.definitionId"),
        (minimal(definitionId="Upper-case"), "data.definitionId"),
        (minimal(definitionId="-leading-dash"), "data.definitionId"),
        (minimal(definitionId="abc\n"), "data.definitionId"),
        (minimal(definitionId="a" * 65), "data.definitionId"),
        (minimal(name=""), "data.name"),
        (minimal(name="n" * 201), "data.name"),
        (minimal(description="d" * 2001), "data.description"),
        (minimal(tags=["t"] * 21), "data.tags"),
        (minimal(tags=["t" * 65]), "data.tags[0]"),
        (minimal(nodes=[]), "data.nodes"),
        (minimal(edges=[{"from": "a", "to": "a"}] * 501), "data.edges"),
        (
            minimal(
                groups=[{"groupId": "g", "memberNodeIds": ["a"], "expectedSteps": 1, "quorum": 1}]
                * 101
            ),
            "data.groups",
        ),
        (minimal(triggers=[{"triggerId": "t"}] * 51), "data.triggers"),
        (minimal(scope={"level": "workspace"}), "data.scope.level"),
        (
            node_with("agent", AGENT)
            | {"nodes": [{"nodeId": "n" * 65, "type": "agent", "config": AGENT}]},
            "data.nodes[0].nodeId",
        ),
        (node_with("agent", AGENT, slaMs=7 * 86_400_000 + 1), "data.nodes[0].slaMs"),
        (node_with("agent", AGENT, slaMs=0), "data.nodes[0].slaMs"),
        (node_with("agent", AGENT, name=""), "data.nodes[0].name"),
        (node_with("robot", AGENT), "data.nodes[0].type"),
        (
            node_with("agent", {**AGENT, "maxUrlsToProcess": 501}),
            "data.nodes[0].config.maxUrlsToProcess",
        ),
        (
            node_with("agent", {**AGENT, "pollIntervalMs": 4999}),
            "data.nodes[0].config.pollIntervalMs",
        ),
        (
            node_with("agent", {**AGENT, "pollIntervalMs": 60001}),
            "data.nodes[0].config.pollIntervalMs",
        ),
        (
            node_with("agent", {**AGENT, "agentMaxRuntimeMs": 86_400_001}),
            "data.nodes[0].config.agentMaxRuntimeMs",
        ),
        (
            node_with("agent", {**AGENT, "promptOverride": "p" * 8001}),
            "data.nodes[0].config.promptOverride",
        ),
        (node_with("agent", {**AGENT, "url": "u" * 2001}), "data.nodes[0].config.url"),
        (node_with("agent", {**AGENT, "urlPath": "u" * 501}), "data.nodes[0].config.urlPath"),
        (
            node_with("agent", {**AGENT, "userContextMapping": {"a": 1}}),
            "data.nodes[0].config.userContextMapping[...]",
        ),
        (node_with("agent", {"url": "https://a.b"}), "data.nodes[0].config.agentId"),
        (
            node_with("human", {"reviewerEmails": ["a@b.c"] * 51}),
            "data.nodes[0].config.reviewerEmails",
        ),
        (
            node_with("human", {"reviewerEmails": ["not-an-email"]}),
            "data.nodes[0].config.reviewerEmails[0]",
        ),
        (node_with("human", {"commentBody": "c" * 8001}), "data.nodes[0].config.commentBody"),
        (
            node_with("human", {"reviewers": [{"userId": "u"}]}),
            "data.nodes[0].config.reviewers[0].mandatory",
        ),
        (node_with("webhook", {**HOOK, "timeoutMs": 999}), "data.nodes[0].config.timeoutMs"),
        (node_with("webhook", {**HOOK, "timeoutMs": 60001}), "data.nodes[0].config.timeoutMs"),
        (
            node_with("webhook", {**HOOK, "expectedStatusCodes": [600]}),
            "data.nodes[0].config.expectedStatusCodes[0]",
        ),
        (
            node_with("webhook", {**HOOK, "expectedStatusCodes": [200] * 21}),
            "data.nodes[0].config.expectedStatusCodes",
        ),
        (node_with("webhook", {**HOOK, "mode": "stream"}), "data.nodes[0].config.mode"),
        (node_with("webhook", {**HOOK, "method": "PUT"}), "data.nodes[0].config.method"),
        (node_with("webhook", {**HOOK, "authMode": "basic"}), "data.nodes[0].config.authMode"),
        (
            node_with("webhook", {**HOOK, "bodyTemplate": "raw"}),
            "data.nodes[0].config.bodyTemplate",
        ),
        (
            node_with("webhook", {**HOOK, "authTokenHeader": "bad header"}),
            "data.nodes[0].config.authTokenHeader",
        ),
        (node_with("webhook", {}), "data.nodes[0].config.url"),
        (
            node_with("notification", {**NOTE, "bodyTemplate": ""}),
            "data.nodes[0].config.bodyTemplate",
        ),
        (
            node_with("notification", {**NOTE, "bodyTemplate": "b" * 16001}),
            "data.nodes[0].config.bodyTemplate",
        ),
        (node_with("notification", {**NOTE, "recipients": []}), "data.nodes[0].config.recipients"),
        (
            node_with("notification", {**NOTE, "recipients": ["a@b.c"] * 51}),
            "data.nodes[0].config.recipients",
        ),
        (
            node_with("notification", {**NOTE, "recipients": ["x" * 312 + "@acme.dev"]}),
            "data.nodes[0].config.recipients[0]",
        ),
        (node_with("notification", {**NOTE, "channel": "sms"}), "data.nodes[0].config.channel"),
        (node_with("notification", {**NOTE, "format": "markdown"}), "data.nodes[0].config.format"),
        (
            node_with("notification", {**NOTE, "subjectTemplate": "s" * 2001}),
            "data.nodes[0].config.subjectTemplate",
        ),
        (minimal(edges=[{"from": "a", "to": "a", "on": "maybe"}]), "data.edges[0].on"),
        (minimal(edges=[{"from": "a", "to": "a", "when": "w" * 1001}]), "data.edges[0].when"),
        (
            minimal(edges=[{"from": "a", "to": "a", "loop": {"maxIterations": 21}}]),
            "data.edges[0].loop.maxIterations",
        ),
        (
            minimal(edges=[{"from": "a", "to": "a", "loop": {"maxIterations": 0}}]),
            "data.edges[0].loop.maxIterations",
        ),
        (
            minimal(edges=[{"from": {"kind": "step", "id": "a"}, "to": "a"}]),
            "data.edges[0].from.kind",
        ),
        (minimal(edges=[{"from": "", "to": "a"}]), "data.edges[0].from"),
        (minimal(edges=[{"to": "a"}]), "data.edges[0].from"),
        (
            minimal(
                groups=[{"groupId": "g", "memberNodeIds": [], "expectedSteps": 1, "quorum": 1}]
            ),
            "data.groups[0].memberNodeIds",
        ),
        (
            minimal(
                groups=[{"groupId": "g", "memberNodeIds": ["a"], "expectedSteps": 0, "quorum": 1}]
            ),
            "data.groups[0].expectedSteps",
        ),
        (
            minimal(
                groups=[{"groupId": "g", "memberNodeIds": ["a"], "expectedSteps": 501, "quorum": 1}]
            ),
            "data.groups[0].expectedSteps",
        ),
        (
            minimal(
                groups=[{"groupId": "g", "memberNodeIds": ["a"], "expectedSteps": 1, "quorum": 0}]
            ),
            "data.groups[0].quorum",
        ),
        (
            minimal(
                groups=[
                    {
                        "groupId": "g",
                        "memberNodeIds": ["a"],
                        "expectedSteps": 1,
                        "quorum": 1,
                        "onQuorumMet": "any",
                    }
                ]
            ),
            "data.groups[0].onQuorumMet",
        ),
        (minimal(triggers=[{"triggerId": ""}]), "data.triggers[0].triggerId"),
        (
            minimal(triggers=[{"triggerId": "t", "eventName": "e" * 129}]),
            "data.triggers[0].eventName",
        ),
        (
            minimal(
                triggers=[{"triggerId": "t", "schedule": {"cron": "* * * * *", "timezone": "UTC"}}]
            ),
            "data.triggers[0].schedule.enabled",
        ),
        (
            minimal(
                triggers=[
                    {"triggerId": "t", "inboundWebhook": {"authMode": "hmac", "secret": "s" * 15}}
                ]
            ),
            "data.triggers[0].inboundWebhook.secret",
        ),
        (
            minimal(
                triggers=[
                    {
                        "triggerId": "t",
                        "inboundWebhook": {
                            "authMode": "hmac",
                            "secret": "s" * 16,
                            "allowedEvents": [],
                        },
                    }
                ]
            ),
            "data.triggers[0].inboundWebhook.allowedEvents",
        ),
        (
            minimal(
                triggers=[
                    {"triggerId": "t", "inboundWebhook": {"authMode": "basic", "secret": "s" * 16}}
                ]
            ),
            "data.triggers[0].inboundWebhook.authMode",
        ),
        (
            minimal(
                triggers=[
                    {"triggerId": "t", "appTrigger": {"provider": "gitlab", "installationRef": "1"}}
                ]
            ),
            "data.triggers[0].appTrigger.provider",
        ),
        (
            minimal(
                triggers=[
                    {"triggerId": "t", "appTrigger": {"provider": "github", "installationRef": ""}}
                ]
            ),
            "data.triggers[0].appTrigger.installationRef",
        ),
        (
            minimal(
                triggers=[
                    {
                        "triggerId": "t",
                        "appTrigger": {
                            "provider": "github",
                            "installationRef": "1",
                            "payloadFilters": [{"path": "p", "in": []}] * 21,
                        },
                    }
                ]
            ),
            "data.triggers[0].appTrigger.payloadFilters",
        ),
        (
            minimal(webhookConfig={"url": "https://a.b", "secret": "short"}),
            "data.webhookConfig.secret",
        ),
        (
            minimal(
                webhookConfig={"url": "https://a.b", "secret": "s" * 16, "eventTypes": ["e"] * 51}
            ),
            "data.webhookConfig.eventTypes",
        ),
    ],
)
def test_bounds(data: Json, path: str) -> None:
    assert refused(data)["path"] == path


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"pageSize": 0}, "data.pageSize"),
        ({"pageSize": 501}, "data.pageSize"),
        ({"cursor": -1}, "data.cursor"),
        ({"cursor": None}, "data.cursor"),
        ({"cursor": "abc"}, "data.cursor"),
    ],
)
def test_list_bounds(data: Json, path: str) -> None:
    assert refused(data, ListDefinitions)["path"] == path


def test_request_header_names_are_http_tokens() -> None:
    issue = refused(node_with("webhook", {**HOOK, "requestHeaders": {"bad header": "v"}}))
    assert "requestHeaders" in issue["message"]


def test_list_defaults_and_update_needs_if_version() -> None:
    assert decode({}, ListDefinitions).pageSize == 50
    assert refused(minimal(), UpdateDefinition)["path"] == "data.ifVersion"
    assert refused(minimal(ifVersion=0), UpdateDefinition)["path"] == "data.ifVersion"
    assert refused({"definitionId": "x", "purge": None}, DeleteDefinition)["path"] == "data.purge"
    assert decode({"definitionId": "x"}, DeleteDefinition).purge is False


def test_node_types() -> None:
    body = decode(minimal(nodes=NODE_SNIPPETS))
    assert [node.type for node in body.nodes] == ["agent", "notification", "human", "human"]
    assert isinstance(body.nodes[2], HumanNode)


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

"""Definition requests for the model tests: decoding helpers, and the reference's example
definitions and snippets as they are published."""

from __future__ import annotations

import json
from typing import Any

import pytest

from redline.envelope import decode_request
from redline.envelope.errors import InvalidArgument
from redline.workflow.definitions.models import (
    CreateDefinition,
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

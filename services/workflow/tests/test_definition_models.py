"""Definition requests: what the reference's examples and the hosted product's SDK send
decodes; nulls, unknown and server-owned fields are refused with the offending path; edges
round-trip exactly; reads have the documented shape."""

from __future__ import annotations

import msgspec
import pytest

from redline.workflow.definitions.models import (
    DeleteDefinition,
    GetDefinition,
    HumanNode,
    ListDefinitions,
    UpdateDefinition,
)
from services.workflow.tests.definition_support import (
    CREATE_EXAMPLE,
    EDGE_SNIPPETS,
    GROUP_LOOP_EXAMPLE,
    GROUP_SNIPPETS,
    NIGHTLY_EXAMPLE,
    NODE_SNIPPETS,
    SIGNOFF_EXAMPLE,
    TRIGGER_SNIPPETS,
    UPDATE_EXAMPLE,
    VERCEL_EXAMPLE,
    Json,
    decode,
    minimal,
    refused,
)


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

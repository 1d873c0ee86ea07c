"""Definition requests out of bounds are refused with the offending path."""

from __future__ import annotations

from typing import Any

import pytest

from redline.workflow.definitions.models import (
    ListDefinitions,
)
from services.workflow.tests.definition_support import (
    Json,
    minimal,
    refused,
)


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

"""Building minimal definitions for the linter's tests, and reading its problems."""

from __future__ import annotations

import json
from typing import Any

import msgspec

from redline.webhooks import AddressGuard
from redline.workflow.definitions.linter import lint
from redline.workflow.definitions.models import CreateDefinition

Json = dict[str, Any]
GUARD = AddressGuard()


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


SINK = agent("sink")


def alone(node: Json) -> CreateDefinition:
    """One node of interest; a human gets the reject edge it needs."""
    if node["type"] == "human":
        return definition([node, SINK], [edge(node["nodeId"], "sink", "reject")])
    return definition([node])


WHEN = json.dumps({"op": "eq", "args": [{"var": "output.ok"}, True]})

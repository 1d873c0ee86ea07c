"""The linter's edge, loop, group-source, reject-path and trigger rules."""

from __future__ import annotations

import pytest

from redline.workflow.definitions.linter import lint
from services.workflow.tests.linter_support import (
    GUARD,
    WHEN,
    G,
    Json,
    agent,
    definition,
    edge,
    group,
    human,
    problems,
)


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

"""The linter's graph rules: duplicate ids, dangling edges, cycles, reachability, breach
routes, groups and loop bodies."""

from __future__ import annotations

from redline.workflow.definitions.linter import lint
from services.workflow.tests.linter_support import (
    GUARD,
    WHEN,
    G,
    agent,
    definition,
    edge,
    group,
    human,
    problems,
)


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

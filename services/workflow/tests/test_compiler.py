"""The compiled view: forward edges with groups expanded and roles compiled, loop regions derived
from reject back-edges, and the roots a run starts at."""

from __future__ import annotations

import json
from typing import Any

import msgspec

from redline.workflow.definitions.compiler import compile_graph, roots
from redline.workflow.definitions.models import CreateDefinition

Json = dict[str, Any]

APPROVE = {"op": "eq", "args": [{"var": "output.decision"}, "approve"]}
REJECT = {"op": "eq", "args": [{"var": "output.decision"}, "reject"]}


def body(nodes: list[Json], edges: list[Json], **extra: Any) -> CreateDefinition:
    data = {"definitionId": "compiled", "name": "Compiled", "nodes": nodes, "edges": edges, **extra}
    return msgspec.convert(data, CreateDefinition)


def human(node_id: str) -> Json:
    return {
        "nodeId": node_id,
        "type": "human",
        "config": {"reviewers": [{"userId": f"u-{node_id}", "mandatory": True}]},
    }


def agent(node_id: str) -> Json:
    return {"nodeId": node_id, "type": "agent", "config": {"agentId": "a", "urlPath": "url"}}


def group(group_id: str, members: list[str], policy: str = "joinOnQuorum") -> Json:
    return {
        "groupId": group_id,
        "memberNodeIds": members,
        "expectedSteps": len(members),
        "quorum": len(members),
        "onQuorumMet": policy,
    }


def compiled(definition: CreateDefinition) -> Json:
    result: Json = msgspec.to_builtins(compile_graph(definition))
    return result


def test_the_reference_example_compiles_as_documented() -> None:
    definition = body(
        [
            agent("agent-draft"),
            human("human-review"),
            agent("agent-publish"),
            agent("agent-rework"),
        ],
        [
            {"from": "agent-draft", "to": "human-review"},
            {"from": "human-review", "to": "agent-publish", "on": "approve"},
            {"from": "human-review", "to": "agent-rework", "on": "reject"},
        ],
    )
    documented = json.loads(
        """{
      "forwardEdges": [
        { "from": "agent-draft", "to": "human-review", "role": "always", "when": null },
        { "from": "human-review", "to": "agent-publish", "role": "approve",
          "when": { "op": "eq", "args": [{ "var": "output.decision" }, "approve"] } },
        { "from": "human-review", "to": "agent-rework", "role": "reject",
          "when": { "op": "eq", "args": [{ "var": "output.decision" }, "reject"] } }
      ],
      "loops": []
    }"""
    )
    assert compiled(definition) == documented
    assert msgspec.json.encode(compile_graph(definition)) == msgspec.json.encode(documented)


def test_an_empty_graph_compiles_empty() -> None:
    assert compiled(body([agent("audit")], [])) == {"forwardEdges": [], "loops": []}


def test_custom_edges_carry_their_parsed_predicate() -> None:
    when = '{"op":"eq","args":[{"var":"output.passesBrandCheck"},true]}'
    definition = body(
        [agent("brand-check"), agent("legal-review")],
        [{"from": "brand-check", "to": "legal-review", "on": "custom", "when": when}],
    )
    assert compiled(definition)["forwardEdges"] == [
        {"from": "brand-check", "to": "legal-review", "role": "custom", "when": json.loads(when)}
    ]


def test_group_endpoints_expand_per_member() -> None:
    definition = body(
        [agent("draft"), human("legal"), human("brand"), agent("publish"), agent("redo")],
        [
            {"from": "draft", "to": {"kind": "group", "groupId": "review"}},
            {"from": {"kind": "group", "groupId": "review"}, "to": "publish", "on": "approve"},
            {
                "from": {"kind": "group", "groupId": "review"},
                "to": {"kind": "node", "nodeId": "redo"},
                "on": "reject",
            },
        ],
        groups=[group("review", ["legal", "brand"], "waitAll")],
    )
    assert compiled(definition)["forwardEdges"] == [
        {"from": "draft", "to": "legal", "role": "always", "when": None, "toGroupId": "review"},
        {"from": "draft", "to": "brand", "role": "always", "when": None, "toGroupId": "review"},
        {
            "from": "legal",
            "to": "publish",
            "role": "approve",
            "when": APPROVE,
            "fromGroupId": "review",
        },
        {
            "from": "brand",
            "to": "publish",
            "role": "approve",
            "when": APPROVE,
            "fromGroupId": "review",
        },
        {"from": "legal", "to": "redo", "role": "reject", "when": REJECT, "fromGroupId": "review"},
        {"from": "brand", "to": "redo", "role": "reject", "when": REJECT, "fromGroupId": "review"},
    ]


def test_a_loop_with_an_exhausted_route() -> None:
    definition = body(
        [
            agent("agent-draft"),
            human("human-boss"),
            agent("agent-publish"),
            human("human-skip-level-mgr"),
        ],
        [
            {"from": "agent-draft", "to": "human-boss"},
            {"from": "human-boss", "to": "agent-publish", "on": "approve"},
            {
                "from": "human-boss",
                "to": "agent-draft",
                "on": "reject",
                "loop": {"maxIterations": 3},
            },
            {"from": "human-boss", "to": "human-skip-level-mgr", "on": "exhausted"},
        ],
    )
    result = compiled(definition)
    assert result["forwardEdges"] == [
        {"from": "agent-draft", "to": "human-boss", "role": "always", "when": None},
        {"from": "human-boss", "to": "agent-publish", "role": "approve", "when": APPROVE},
    ]
    assert result["loops"] == [
        {
            "loopId": "loop:human-boss->agent-draft",
            "entryNodeId": "agent-draft",
            "bodyNodeIds": ["agent-draft", "human-boss"],
            "maxIterations": 3,
            "onExhausted": {"routeToNodeId": "human-skip-level-mgr"},
        }
    ]
    assert roots(definition) == ["agent-draft"]


def test_a_group_bounded_loop_body_holds_every_member() -> None:
    # The reference's marketing-copy example: a joinOnQuorum group rewound by one back-edge.
    definition = body(
        [agent("agent-draft"), human("human-legal"), human("human-brand"), agent("agent-publish")],
        [
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
        groups=[group("parallel-review", ["human-legal", "human-brand"])],
    )
    result = compiled(definition)
    assert [(e["from"], e["to"]) for e in result["forwardEdges"]] == [
        ("agent-draft", "human-legal"),
        ("agent-draft", "human-brand"),
        ("human-legal", "agent-publish"),
        ("human-brand", "agent-publish"),
    ]
    assert result["loops"] == [
        {
            "loopId": "loop:parallel-review->agent-draft",
            "entryNodeId": "agent-draft",
            "bodyNodeIds": ["agent-draft", "human-legal", "human-brand"],
            "maxIterations": 3,
            "onExhausted": None,
        }
    ]
    assert roots(definition) == ["agent-draft"]


def test_a_loop_body_is_the_paths_between_entry_and_source() -> None:
    definition = body(
        [
            agent("start"),
            agent("draft"),
            agent("check"),
            agent("side"),
            human("review"),
            agent("after"),
            agent("cco"),
        ],
        [
            {"from": "start", "to": "draft"},
            {"from": "draft", "to": "check"},
            {"from": "draft", "to": "side"},
            {"from": "check", "to": "review"},
            {"from": "review", "to": "after", "on": "approve"},
            {
                "from": {"kind": "node", "nodeId": "review"},
                "to": "draft",
                "on": "reject",
                "loop": {"maxIterations": 2},
            },
            {"from": "review", "to": "cco", "on": "exhausted"},
        ],
    )
    [loop] = compiled(definition)["loops"]
    assert loop["bodyNodeIds"] == ["draft", "check", "review"]
    assert loop["onExhausted"] == {"routeToNodeId": "cco"}
    assert roots(definition) == ["start"]


def test_roots_in_declaration_order() -> None:
    definition = body(
        [agent("b"), agent("a"), agent("joined"), agent("alone")],
        [{"from": "a", "to": "joined"}, {"from": "b", "to": "joined"}],
    )
    assert roots(definition) == ["b", "a", "alone"]


def test_roots_exclude_group_targets_and_exhausted_targets() -> None:
    definition = body(
        [agent("start"), human("m1"), human("m2"), agent("escalate")],
        [
            {"from": "start", "to": {"kind": "group", "groupId": "g"}},
            {
                "from": {"kind": "group", "groupId": "g"},
                "to": "start",
                "on": "reject",
                "loop": {"maxIterations": 2},
            },
            {"from": {"kind": "group", "groupId": "g"}, "to": "escalate", "on": "exhausted"},
        ],
        groups=[group("g", ["m1", "m2"])],
    )
    assert roots(definition) == ["start"]
    [loop] = compiled(definition)["loops"]
    assert loop["bodyNodeIds"] == ["start", "m1", "m2"]
    assert loop["onExhausted"] == {"routeToNodeId": "escalate"}


def test_dangling_references_do_not_break_compilation() -> None:
    definition = body(
        [agent("a")],
        [
            {"from": "a", "to": "ghost"},
            {"from": {"kind": "group", "groupId": "nope"}, "to": "a"},
            {"from": "a", "to": "ghost", "on": "reject", "loop": {"maxIterations": 1}},
        ],
    )
    assert compiled(definition) == {"forwardEdges": [], "loops": []}
    # An edge from nowhere still enters its target.
    assert roots(definition) == []

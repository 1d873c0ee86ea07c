"""Parallel groups: quorum counts approvals (with required members), completion counts every
ending, and each policy does what it says at quorum."""

from __future__ import annotations

from typing import Any

from redline.workflow.engine.reviews import record_decision
from services.workflow.tests import engine_support as es


def _panel(policy: str, quorum: int = 2, **group: Any) -> es.Run:
    nodes = [es.human(f"r{i}", (f"u{i}", True)) for i in (1, 2, 3)]
    nodes += [es.agent("publish"), es.agent("redo")]
    edges = [es.edge(f"r{i}", "redo", "reject") for i in (1, 2, 3)]
    if policy == "joinOnQuorum":
        edges += [es.edge(f"r{i}", "publish") for i in (1, 2, 3)]
    else:
        edges.append(es.edge({"kind": "group", "groupId": "g"}, "publish", "approve"))
    if policy == "waitAll":
        edges.append(es.edge({"kind": "group", "groupId": "g"}, "redo", "reject"))
    spec = {
        "groupId": "g",
        "memberNodeIds": ["r1", "r2", "r3"],
        "expectedSteps": 3,
        "quorum": quorum,
        "onQuorumMet": policy,
        **group,
    }
    return es.Run(es.definition(nodes, edges, groups=[spec]))


def _decide(run: es.Run, index: int, decision: str) -> None:
    step = run.step(f"r{index}", "waiting")
    run.change(lambda t: record_decision(t, step, f"u{index}", decision, None))


def test_wait_all_announces_quorum_then_takes_one_branch_by_unanimity() -> None:
    run = _panel("waitAll")
    _decide(run, 1, "approve")
    _decide(run, 2, "approve")
    assert "group.quorum-met" in run.types()
    assert not [s for s in run.state.steps.values() if s.node_id == "publish"]
    _decide(run, 3, "reject")
    # One reject among the three: the collective branch is reject; r3's own reject edge fires too.
    assert sorted(n for n, _ in run.statuses() if n in ("publish", "redo")) == ["redo", "redo"]
    quorum = next(e for e in run.events if e.type == "group.quorum-met")
    assert quorum.data == {
        "groupId": "g",
        "total": 2,
        "expectedSteps": 3,
        "quorum": 2,
        "completedTotal": 2,
    }


def test_cancel_on_quorum_cancels_the_rest_and_fires_the_group_branch() -> None:
    run = _panel("cancelOnQuorum")
    _decide(run, 1, "approve")
    _decide(run, 2, "approve")
    r3 = run.step("r3")
    assert r3.status == "cancelled"
    cancelled = next(e for e in run.events if e.type == "step.cancelled")
    assert cancelled.data == {"actorId": "system:group-quorum", "reason": "group-quorum-met"}
    [publish] = [s for s in run.state.steps.values() if s.node_id == "publish"]
    assert publish.step_id == "group_g__to__publish"


def test_join_on_quorum_runs_the_shared_target_once_with_every_output() -> None:
    run = _panel("joinOnQuorum")
    _decide(run, 1, "approve")
    _decide(run, 2, "approve")
    [publish] = [s for s in run.state.steps.values() if s.node_id == "publish"]
    assert publish.input["groupId"] == "g"
    assert publish.input["totalApproved"] == 2
    assert set(publish.input["groupOutputs"]) == {"r1", "r2", "r3"}
    assert run.step("r3").status == "cancelled"


def test_a_join_member_reject_does_not_fan_out_on_its_own() -> None:
    run = _panel("joinOnQuorum")
    _decide(run, 1, "reject")
    assert not [s for s in run.state.steps.values() if s.node_id == "redo"]


def test_required_members_must_be_among_the_approvals() -> None:
    run = _panel("cancelOnQuorum", requiredNodeIds=["r3"])
    _decide(run, 1, "approve")
    _decide(run, 2, "approve")
    assert "group.quorum-met" not in run.types()
    _decide(run, 3, "approve")
    assert "group.quorum-met" in run.types()
    assert run.state.status == "running"  # publish is still to run


def test_a_group_branch_written_twice_over_runs_its_target_once() -> None:
    nodes = [es.human(f"r{i}", (f"u{i}", True)) for i in (1, 2)] + [es.agent("publish")]
    group = {"kind": "group", "groupId": "g"}
    edges = [es.edge(f"r{i}", "publish", "reject") for i in (1, 2)]
    edges += [es.edge(group, "publish", "approve")] * 2 + [es.edge(group, "publish")]
    spec = {"groupId": "g", "memberNodeIds": ["r1", "r2"], "expectedSteps": 2, "quorum": 1}
    run = es.Run(es.definition(nodes, edges, groups=[{**spec, "onQuorumMet": "cancelOnQuorum"}]))
    _decide(run, 1, "approve")
    assert [s.step_id for s in run.state.steps.values() if s.node_id == "publish"] == [
        "group_g__to__publish"
    ]

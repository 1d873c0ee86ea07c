"""Fan-out: an ended step starts each node its edges lead to once, however many edges lead
there, and an execution never makes more steps than its cap."""

from __future__ import annotations

from services.workflow.tests import engine_support as es


def _run_all(run: es.Run) -> None:
    """Run every pending agent step, approving, until none is left."""
    while pending := [s for s in run.state.steps.values() if s.status == "pending"]:
        run.approve_agent_step(pending[0])


def test_identical_edges_start_one_step_per_node() -> None:
    nodes = [es.agent(f"a{i}") for i in range(5)]
    edges = [es.edge(f"a{i}", f"a{i + 1}") for i in range(4) for _ in range(3)]
    run = es.Run(es.definition(nodes, edges))
    _run_all(run)
    assert [s.node_id for s in run.state.steps.values()] == [f"a{i}" for i in range(5)]
    assert run.state.status == "completed"


def test_edges_of_several_roles_into_one_node_start_it_once() -> None:
    decided = '{"op": "eq", "args": [{"var": "output.decision"}, "approve"]}'
    edges = [
        es.edge("a", "b", "approve"),
        es.edge("a", "b"),
        es.edge("a", "b", "custom", when=decided),
        es.edge("a", "c"),
    ]
    run = es.Run(es.definition([es.agent("a"), es.agent("b"), es.agent("c")], edges))
    run.approve_agent("a")
    assert [s.node_id for s in run.state.steps.values()] == ["a", "b", "c"]


def test_an_execution_that_would_pass_the_step_cap_fails_and_makes_no_more() -> None:
    nodes = [es.agent(f"a{i}") for i in range(10)]
    edges = [es.edge(f"a{i}", f"a{i + 1}") for i in range(9)]
    run = es.Run(es.definition(nodes, edges), max_steps=4)
    _run_all(run)
    assert [s.node_id for s in run.state.steps.values()] == ["a0", "a1", "a2", "a3"]
    assert run.state.status == "failed"
    assert run.state.failure_reason == {
        "code": "step-limit-exceeded",
        "message": "the execution reached its cap of 4 steps (REDLINE_MAX_STEPS_PER_EXECUTION); "
        "node a4 was not started",
    }
    assert run.types()[-1] == "execution.failed"


def test_the_cap_cancels_what_still_runs() -> None:
    edges = [es.edge("a", "b"), es.edge("a", "c"), es.edge("a", "d")]
    nodes = [es.agent(n) for n in "abcd"]
    run = es.Run(es.definition(nodes, edges), max_steps=3)
    run.approve_agent("a")
    assert {s.node_id: s.status for s in run.state.steps.values()} == {
        "a": "completed",
        "b": "cancelled",
        "c": "cancelled",
    }
    assert run.state.status == "failed"
    # No task is left to run them: each one added is removed again.
    final = {(task.step_id, task.kind): task.due_at_ms for task in run.last.tasks}
    assert set(final.values()) == {None}

"""Automatic steps: retries within budget, failures nothing routes, breaches, and what is sent
to the execution's receiver."""

from __future__ import annotations

from redline.proto.events import ExecutionEventOut
from redline.workflow.engine.nodes.outcome import NodeOutcome, StepError
from redline.workflow.engine.outgoing import outgoing_events
from redline.workflow.engine.runs import breach, finish_run
from redline.workflow.engine.scheduling import start_run
from services.workflow.tests import engine_support as es


def _chain() -> es.Run:
    return es.Run(es.definition([es.agent("a"), es.agent("b")], [es.edge("a", "b", "approve")]))


def _retry() -> NodeOutcome:
    return NodeOutcome(
        status="retry",
        data={"retryClass": "retryable"},
        error=StepError("runner-unavailable", "503"),
    )


def test_a_retryable_failure_runs_again_until_the_budget_is_spent() -> None:
    run = _chain()
    step = run.step("a")
    assert run.change(lambda t: start_run(t, step))
    run.change(lambda t: finish_run(t, step, _retry(), (1.0, 2.0)))
    assert step.status == "running"
    assert [c.due_at_ms for c in run.last.tasks] == [run.now + 1000]
    run.change(lambda t: start_run(t, step))
    run.change(lambda t: finish_run(t, step, _retry(), (1.0, 2.0)))
    run.change(lambda t: start_run(t, step))
    run.change(lambda t: finish_run(t, step, _retry(), (1.0, 2.0)))
    assert step.status == "failed"
    assert step.error == {"code": "runner-unavailable", "message": "503"}
    assert run.types().count("step.retried") == 2
    # Nothing routes a failure of `a`: the run fails.
    assert run.state.status == "failed"
    assert run.state.failure_reason is not None


def test_an_outcome_for_a_step_that_ended_meanwhile_is_dropped() -> None:
    run = _chain()
    step = run.step("a")
    run.change(lambda t: start_run(t, step))
    run.change(lambda t: breach(t, step, 100))
    assert step.status == "breached"
    done = NodeOutcome(status="completed", output={"decision": "approve"}, data={})
    run.change(lambda t: finish_run(t, step, done, ()))
    assert step.status == "breached"
    assert run.types().count("step.completed") == 0


def _sent(run: es.Run) -> list[tuple[str, int, int]]:
    """(type, seq, previousSeq) of each execution event bound for the receiver."""
    return [
        (e.event.type, e.event.seq, e.previousSeq)
        for e in outgoing_events(run.state, run.last)
        if isinstance(e, ExecutionEventOut)
    ]


def test_the_receiver_gets_visible_events_each_naming_the_one_before() -> None:
    run = _chain()
    run.state.receiver_url = "https://hooks.example.com/x"
    run.state.receiver_event_types = ["step.completed", "execution.completed"]
    run.approve_agent("a")
    [(kind, first_seq, previous)] = _sent(run)
    assert (kind, previous) == ("step.completed", 0)
    run.approve_agent("b")
    [completed, ended] = _sent(run)
    assert completed[0] == "step.completed"
    assert completed[2] == first_seq
    assert ended[0] == "execution.completed"
    assert ended[2] == completed[1]

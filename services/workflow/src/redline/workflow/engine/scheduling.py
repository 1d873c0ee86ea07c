"""Making steps and starting them: a human step waits for its reviewers at once; every other
node type is run by a worker (a `run` task); a node with `slaMs` also gets a deadline."""

from __future__ import annotations

from redline.workflow.engine.state import Json, StepState
from redline.workflow.engine.transition import Transition, resume_key


def schedule(
    t: Transition,
    node_id: str,
    step_id: str,
    step_input: Json,
    *,
    iteration: int,
) -> StepState | None:
    """Make the node's step and start it; None when the execution has ended, or ends now
    because another step would pass its cap."""
    if t.ended():
        return None
    if t.execution.step_count >= t.max_steps:
        t.fail_execution(
            "step-limit-exceeded",
            f"the execution reached its cap of {t.max_steps} steps "
            f"(REDLINE_MAX_STEPS_PER_EXECUTION); node {node_id} was not started",
        )
        return None
    group = t.graph.group_of.get(node_id)
    step = t.new_step(
        node_id,
        step_id,
        step_input,
        iteration=iteration,
        group_id=group.group_id if group else None,
    )
    t.emit("step.scheduled", step.step_id)
    node = t.graph.nodes[node_id]
    sla_ms = node.get("slaMs")
    if isinstance(sla_ms, int):
        t.add_task(step, "deadline", t.now + sla_ms)
    if step.node_type == "human":
        _await_reviewers(t, step, node["config"])
    else:
        t.add_task(step, "run", t.now)
    return step


def reviewers_of(config: Json) -> list[Json]:
    """`reviewers[]`, or the legacy `reviewerIds[]` (each one mandatory)."""
    if "reviewers" in config:
        return [
            {"userId": r["userId"], "mandatory": bool(r.get("mandatory", False))}
            for r in config["reviewers"]
        ]
    return [{"userId": user_id, "mandatory": True} for user_id in config.get("reviewerIds", [])]


def _await_reviewers(t: Transition, step: StepState, config: Json) -> None:
    reviewers = reviewers_of(config)
    key = resume_key(t.execution.execution_id, step.step_id)
    # What a reviewer UI needs while the step waits; the aggregator's rollup joins it when the
    # step resumes.
    step.output = {
        "reviewers": reviewers,
        "reviewerIds": [r["userId"] for r in reviewers],
        "reviewerEmails": list(config.get("reviewerEmails", [])),
        "commentBody": config.get("commentBody"),
        "aggregatorStatus": "pending",
        "resumeKey": key,
    }
    t.set_status(step, "running")
    t.emit("step.started", step.step_id)
    t.set_status(step, "waiting")
    t.emit(
        "step.awaiting-approval",
        step.step_id,
        {
            "waitingForReviewers": len(reviewers),
            "mandatoryCount": sum(1 for r in reviewers if r["mandatory"]),
            "resumeKey": key,
        },
    )


def start_run(t: Transition, step: StepState) -> bool:
    """A worker is about to run the step's node: False if there is nothing to run any more
    (the step ended meanwhile, or the run did)."""
    if t.execution.terminal or step.status not in ("pending", "running"):
        return False
    step.attempts += 1
    step.changed = True
    if step.status == "pending":
        t.set_status(step, "running")
        t.emit("step.started", step.step_id)
    else:
        # Taken up again after a worker died or a retryable failure: same step, next attempt.
        t.emit("step.retried", step.step_id, {"attempt": step.attempts})
    return True

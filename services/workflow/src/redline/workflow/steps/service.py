"""What callers do to one step: record a reviewer's decision or an agent resolution, resolve it
by override or reviewer action, cancel it. Each is one engine transition."""

from __future__ import annotations

from redline.envelope import ApiKeyPrincipal
from redline.envelope.errors import FailedPrecondition, InvalidArgument, NotFound
from redline.workflow.engine.engine import Engine
from redline.workflow.engine.interventions import cancel_step, resolve
from redline.workflow.engine.reviews import DecisionRecorded, record_decision
from redline.workflow.engine.runs import record_agent_resolution
from redline.workflow.engine.state import StepState
from redline.workflow.engine.transition import Transition, parse_resume_key
from redline.workflow.steps import models


class StepService:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    async def record_decision(
        self, principal: ApiKeyPrincipal, request: models.RecordReviewerDecision
    ) -> DecisionRecorded:
        execution_id, step_id = _step_ids(request)
        return await self._engine.change(
            execution_id,
            principal.api_key,
            lambda t: record_decision(
                t, _step(t, step_id), request.reviewerId, request.decision, request.reason
            ),
        )

    async def record_agent_resolution(
        self, principal: ApiKeyPrincipal, request: models.RecordAgentResolution
    ) -> models.AgentResolutionRecorded:
        execution_id, step_id = _step_ids(request)

        def rule(t: Transition) -> models.AgentResolutionRecorded:
            recorded, status = record_agent_resolution(
                t,
                _step(t, step_id),
                request.responseId,
                request.resolution,
                request.actorId,
                request.reason,
            )
            return models.AgentResolutionRecorded(recorded, status, recorded)

        return await self._engine.change(execution_id, principal.api_key, rule)

    async def resolve(
        self, principal: ApiKeyPrincipal, request: models.ResolveStep
    ) -> models.Resolved:
        execution_id, step_id = _step_ids(request)

        def rule(t: Transition) -> None:
            step = t.execution.steps.get(step_id)
            if step is None:
                raise _missing_for(request.action, step_id)
            resolve(t, step, request.action, request.actorId, request.output, request.reason)

        try:
            await self._engine.change(execution_id, principal.api_key, rule)
        except NotFound:
            raise _missing_for(request.action, step_id) from None
        return models.Resolved(True, execution_id, step_id, request.action)

    async def cancel(
        self, principal: ApiKeyPrincipal, request: models.CancelStep
    ) -> models.CancelledStep:
        execution_id, step_id = _step_ids(request)
        await self._engine.change(
            execution_id,
            principal.api_key,
            lambda t: cancel_step(t, _step(t, step_id), request.actorId, request.reason),
        )
        return models.CancelledStep(True, execution_id, step_id)


def _step_ids(request: models.StepRequest) -> tuple[str, str]:
    if request.executionId is not None and request.stepId is not None:
        return request.executionId, request.stepId
    if request.resumeKey is not None:
        ids = parse_resume_key(request.resumeKey)
        if ids is None:
            raise InvalidArgument.field("data.resumeKey", "resumeKey is not one this service gave")
        return ids
    missing = "data.executionId" if request.executionId is None else "data.stepId"
    raise InvalidArgument.field(
        missing, "executionId and stepId are required (or a resumeKey)", code="required"
    )


def _step(t: Transition, step_id: str) -> StepState:
    step = t.execution.steps.get(step_id)
    if step is None:
        raise NotFound(f"Step {step_id} not found in execution {t.execution.execution_id}.")
    return step


def _missing_for(action: str, step_id: str) -> Exception:
    """A step resolve cannot find: the hosted product answers FAILED_PRECONDITION for the
    operator actions and NOT_FOUND for the reviewer ones."""
    if action.startswith("force-"):
        return FailedPrecondition("resolveStep not applied: step-not-found")
    return NotFound(f"Step {step_id} not found.")

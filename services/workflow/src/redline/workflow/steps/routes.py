"""The URL map of steps: /v2/workflow/steps/recordReviewerDecision|recordAgentResolution|
resolve|cancel."""

from __future__ import annotations

from redline.envelope import Call, Endpoint, Style
from redline.workflow.app_keys import STEPS
from redline.workflow.engine.reviews import DecisionRecorded
from redline.workflow.steps import models


async def record_reviewer_decision(
    call: Call, request: models.RecordReviewerDecision
) -> DecisionRecorded:
    return await call.app[STEPS].record_decision(call.api_key, request)


async def record_agent_resolution(
    call: Call, request: models.RecordAgentResolution
) -> models.AgentResolutionRecorded:
    return await call.app[STEPS].record_agent_resolution(call.api_key, request)


async def resolve(call: Call, request: models.ResolveStep) -> models.Resolved:
    return await call.app[STEPS].resolve(call.api_key, request)


async def cancel(call: Call, request: models.CancelStep) -> models.CancelledStep:
    return await call.app[STEPS].cancel(call.api_key, request)


ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/workflow/steps/recordReviewerDecision",
        record_reviewer_decision,
        models.RecordReviewerDecision,
        DecisionRecorded,
        style=Style.PLAIN,
        summary="Record one reviewer's approve or reject at a waiting human step",
        tags=("workflow",),
    ),
    Endpoint(
        "/v2/workflow/steps/recordAgentResolution",
        record_agent_resolution,
        models.RecordAgentResolution,
        models.AgentResolutionRecorded,
        style=Style.PLAIN,
        summary="Resolve a waiting agent step (once per response id)",
        tags=("workflow",),
    ),
    Endpoint(
        "/v2/workflow/steps/resolve",
        resolve,
        models.ResolveStep,
        models.Resolved,
        style=Style.PLAIN,
        summary="Force a step to an outcome, or act as one of its reviewers",
        tags=("workflow",),
    ),
    Endpoint(
        "/v2/workflow/steps/cancel",
        cancel,
        models.CancelStep,
        models.CancelledStep,
        style=Style.PLAIN,
        summary="Cancel one step; its edges never fire",
        tags=("workflow",),
    ),
]

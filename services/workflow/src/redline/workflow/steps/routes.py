"""The URL map of steps: /v2/workflow/steps/recordReviewerDecision|recordAgentResolution|
resolve|cancel."""

from __future__ import annotations

from redline.envelope import Endpoint, Style
from redline.workflow.app_keys import STEPS
from redline.workflow.steps.service import StepService

ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/workflow/steps/recordReviewerDecision",
        STEPS,
        StepService.record_decision,
        style=Style.PLAIN,
        summary="Record one reviewer's approve or reject at a waiting human step",
        tags=("workflow",),
    ),
    Endpoint.of(
        "/v2/workflow/steps/recordAgentResolution",
        STEPS,
        StepService.record_agent_resolution,
        style=Style.PLAIN,
        summary="Resolve a waiting agent step (once per response id)",
        tags=("workflow",),
    ),
    Endpoint.of(
        "/v2/workflow/steps/resolve",
        STEPS,
        StepService.resolve,
        style=Style.PLAIN,
        summary="Force a step to an outcome, or act as one of its reviewers",
        tags=("workflow",),
    ),
    Endpoint.of(
        "/v2/workflow/steps/cancel",
        STEPS,
        StepService.cancel,
        style=Style.PLAIN,
        summary="Cancel one step; its edges never fire",
        tags=("workflow",),
    ),
]

"""The URL map of executions: /v2/workflow/executions/dispatch|get|list|getEvents|cancel."""

from __future__ import annotations

from redline.envelope import Endpoint, Style
from redline.workflow.app_keys import EXECUTIONS
from redline.workflow.executions.service import ExecutionService

ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/workflow/executions/dispatch",
        EXECUTIONS,
        ExecutionService.dispatch,
        style=Style.PLAIN,
        summary="Start an execution of a definition's current version (once per idempotency key)",
        tags=("workflow",),
    ),
    Endpoint.of(
        "/v2/workflow/executions/get",
        EXECUTIONS,
        ExecutionService.get,
        style=Style.PLAIN,
        summary="An execution and every one of its steps",
        tags=("workflow",),
    ),
    Endpoint.of(
        "/v2/workflow/executions/list",
        EXECUTIONS,
        ExecutionService.list,
        style=Style.PLAIN,
        summary="Executions, newest first, by definition and status",
        tags=("workflow",),
    ),
    Endpoint.of(
        "/v2/workflow/executions/getEvents",
        EXECUTIONS,
        ExecutionService.events,
        style=Style.PLAIN,
        summary="An execution's visible events after a seq, in seq order",
        tags=("workflow",),
    ),
    Endpoint.of(
        "/v2/workflow/executions/cancel",
        EXECUTIONS,
        ExecutionService.cancel,
        style=Style.PLAIN,
        summary="Cancel an execution and every step still going (no-op once it has ended)",
        tags=("workflow",),
    ),
]

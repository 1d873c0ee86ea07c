"""The URL map of executions: /v2/workflow/executions/dispatch|get|list|getEvents|cancel."""

from __future__ import annotations

from redline.envelope import Call, Endpoint, Style
from redline.workflow.app_keys import EXECUTIONS
from redline.workflow.executions import models


async def dispatch(call: Call, request: models.DispatchExecution) -> models.Dispatched:
    return await call.app[EXECUTIONS].dispatch(call.api_key, request)


async def get(call: Call, request: models.GetExecution) -> models.ExecutionView:
    return await call.app[EXECUTIONS].get(call.api_key, request)


async def list_executions(call: Call, request: models.ListExecutions) -> models.ExecutionPage:
    return await call.app[EXECUTIONS].list(call.api_key, request)


async def get_events(call: Call, request: models.GetEvents) -> models.EventPage:
    return await call.app[EXECUTIONS].events(call.api_key, request)


async def cancel(call: Call, request: models.CancelExecution) -> models.CancelledExecution:
    return await call.app[EXECUTIONS].cancel(call.api_key, request)


ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/workflow/executions/dispatch",
        dispatch,
        models.DispatchExecution,
        models.Dispatched,
        style=Style.PLAIN,
        summary="Start an execution of a definition's current version (once per idempotency key)",
        tags=("workflow",),
    ),
    Endpoint(
        "/v2/workflow/executions/get",
        get,
        models.GetExecution,
        models.ExecutionView,
        style=Style.PLAIN,
        summary="An execution and every one of its steps",
        tags=("workflow",),
    ),
    Endpoint(
        "/v2/workflow/executions/list",
        list_executions,
        models.ListExecutions,
        models.ExecutionPage,
        style=Style.PLAIN,
        summary="Executions, newest first, by definition and status",
        tags=("workflow",),
    ),
    Endpoint(
        "/v2/workflow/executions/getEvents",
        get_events,
        models.GetEvents,
        models.EventPage,
        style=Style.PLAIN,
        summary="An execution's visible events after a seq, in seq order",
        tags=("workflow",),
    ),
    Endpoint(
        "/v2/workflow/executions/cancel",
        cancel,
        models.CancelExecution,
        models.CancelledExecution,
        style=Style.PLAIN,
        summary="Cancel an execution and every step still going (no-op once it has ended)",
        tags=("workflow",),
    ),
]

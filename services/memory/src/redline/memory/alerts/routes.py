"""The URL map of alerts: /v2/memory/alerts/*."""

from __future__ import annotations

from typing import Any

from redline.envelope import Call, Endpoint, Style
from redline.memory.alerts import models
from redline.memory.app_keys import ALERTS


async def list_alerts(call: Call, request: models.ListAlerts) -> list[models.Alert]:
    return await call.app[ALERTS].list(call.api_key, request)


async def dismiss(call: Call, request: models.DismissAlert) -> models.Done:
    return await call.app[ALERTS].dismiss(call.api_key, request)


async def action(call: Call, request: models.ActionAlert) -> models.Done:
    return await call.app[ALERTS].action(call.api_key, request)


async def get_config(call: Call, request: models.GetAlertConfig) -> dict[str, Any]:
    return await call.app[ALERTS].config(call.api_key, request)


async def update_config(call: Call, request: models.UpdateAlertConfig) -> models.Done:
    return await call.app[ALERTS].update_config(call.api_key, request)


def _endpoint(path: str, handler: Any, request: Any, response: Any, summary: str) -> Endpoint:
    return Endpoint(
        path, handler, request, response, style=Style.PLAIN, summary=summary, tags=("memory",)
    )


ENDPOINTS: list[Endpoint] = [
    _endpoint(
        "/v2/memory/alerts/list",
        list_alerts,
        models.ListAlerts,
        list[models.Alert],
        "The key's active alerts (at most 50), newest first",
    ),
    _endpoint(
        "/v2/memory/alerts/dismiss",
        dismiss,
        models.DismissAlert,
        models.Done,
        "Dismiss an alert (again: the dismissal time moves)",
    ),
    _endpoint(
        "/v2/memory/alerts/action",
        action,
        models.ActionAlert,
        models.Done,
        "Mark an alert actioned: followed up, and off the list for good",
    ),
    _endpoint(
        "/v2/memory/alerts/config/get",
        get_config,
        models.GetAlertConfig,
        dict[str, Any],
        "The key's alert settings as stored ({enabled: true} until set)",
    ),
    _endpoint(
        "/v2/memory/alerts/config/update",
        update_config,
        models.UpdateAlertConfig,
        models.Done,
        "Merge settings into the key's alert settings",
    ),
]

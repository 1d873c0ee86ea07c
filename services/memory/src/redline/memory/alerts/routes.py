"""The URL map of alerts: /v2/memory/alerts/*."""

from __future__ import annotations

from redline.envelope import Endpoint, Style
from redline.memory.alerts.service import AlertService
from redline.memory.app_keys import ALERTS

TAGS = ("memory",)

ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/memory/alerts/list",
        ALERTS,
        AlertService.list,
        style=Style.PLAIN,
        summary="The key's active alerts (at most 50), newest first",
        tags=TAGS,
    ),
    Endpoint.of(
        "/v2/memory/alerts/dismiss",
        ALERTS,
        AlertService.dismiss,
        style=Style.PLAIN,
        summary="Dismiss an alert (again: the dismissal time moves)",
        tags=TAGS,
    ),
    Endpoint.of(
        "/v2/memory/alerts/action",
        ALERTS,
        AlertService.action,
        style=Style.PLAIN,
        summary="Mark an alert actioned: followed up, and off the list for good",
        tags=TAGS,
    ),
    Endpoint.of(
        "/v2/memory/alerts/config/get",
        ALERTS,
        AlertService.config,
        style=Style.PLAIN,
        summary="The key's alert settings as stored ({enabled: true} until set)",
        tags=TAGS,
    ),
    Endpoint.of(
        "/v2/memory/alerts/config/update",
        ALERTS,
        AlertService.update_config,
        style=Style.PLAIN,
        summary="Merge settings into the key's alert settings",
        tags=TAGS,
    ),
]

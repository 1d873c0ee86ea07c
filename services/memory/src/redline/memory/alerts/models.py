"""Requests and answers of /v2/memory/alerts/*."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from redline.envelope import Request
from redline.memory.judgments.models import Id

AlertType = Literal["anomaly", "configuration_drift", "emerging_standard", "standards_drift"]
Severity = Literal["high", "medium", "low"]
Status = Literal["active", "dismissed", "actioned"]


class ListAlerts(Request):
    pass


class AlertUser(Request):
    # Recorded as the alert's `dismissedBy`.
    uid: Id | None = None


class DismissAlert(Request):
    alertId: Id
    user: AlertUser | None = None


class ActionAlert(Request):
    alertId: Id


class Alert(msgspec.Struct):
    id: str
    apiKey: str
    alertType: AlertType
    severity: Severity
    title: str
    description: str
    # `metric` always; `baseline`, `current`, `window`, `sourceRecordIds` as the trend has them.
    evidence: dict[str, Any]
    suggestedAction: str | None
    actionUrl: str | None
    status: Status
    createdAt: int
    dismissedAt: int | None
    dismissedBy: str | None
    dedupKey: str


class Done(msgspec.Struct):
    success: bool


class GetAlertConfig(Request):
    pass


class KnownConfig(msgspec.Struct):
    """The settings the reference names, checked when present; other keys pass as sent."""

    enabled: bool | None = None
    maxAlertsPerWeek: Annotated[int, Meta(ge=0)] | None = None
    enabledAlertTypes: Annotated[list[str], Meta(max_length=20)] | None = None
    severityThreshold: Severity | None = None


ConfigObject = Annotated[
    dict[str, Any],
    Meta(
        max_length=50,
        description=(
            "`enabled` (boolean), `maxAlertsPerWeek` (integer ≥ 0), `enabledAlertTypes` (alert "
            "types), `severityThreshold` (`high`, `medium` or `low`); other keys are stored "
            "and returned as sent."
        ),
    ),
]


class UpdateAlertConfig(Request):
    config: ConfigObject

"""Listing, dismissing and actioning a key's alerts, and its alert settings (raising them is
`check`'s).

An alert id of another key, or of none, is NOT_FOUND: the hosted product answers such ids with
a 500 INTERNAL, which Redline never answers to a client's input.
"""

from __future__ import annotations

from typing import Any

import msgspec

from redline.envelope import ApiKeyPrincipal
from redline.envelope.codec import issue_from_validation
from redline.envelope.errors import InvalidArgument, NotFound
from redline.memory.alerts import models, storage
from redline.pg import Pool
from redline.proto.events import now_ms

LIST_LIMIT = 50


def _alert(row: storage.AlertRow) -> models.Alert:
    return models.Alert(
        id=row.alert_id,
        apiKey=row.api_key,
        alertType=row.alert_type,  # type: ignore[arg-type]
        severity=row.severity,  # type: ignore[arg-type]
        title=row.title,
        description=row.description,
        evidence=row.evidence,
        suggestedAction=row.suggested_action,
        actionUrl=row.action_url,
        status=row.status,  # type: ignore[arg-type]
        createdAt=row.created_at,
        dismissedAt=row.dismissed_at,
        dismissedBy=row.dismissed_by,
        dedupKey=row.dedup_key,
    )


class AlertService:
    def __init__(self, pool: Pool) -> None:
        self._pool = pool

    async def list(
        self, principal: ApiKeyPrincipal, request: models.ListAlerts
    ) -> list[models.Alert]:
        async with self._pool.acquire() as conn:
            rows = await storage.active(conn, principal.api_key, LIST_LIMIT)
        return [_alert(row) for row in rows]

    async def dismiss(
        self, principal: ApiKeyPrincipal, request: models.DismissAlert
    ) -> models.Done:
        by = (request.user.uid if request.user else None) or ""
        async with self._pool.acquire() as conn:
            found = await storage.dismiss(conn, principal.api_key, request.alertId, by, now_ms())
        if not found:
            raise NotFound(f"No alert {request.alertId}.")
        return models.Done(success=True)

    async def action(self, principal: ApiKeyPrincipal, request: models.ActionAlert) -> models.Done:
        async with self._pool.acquire() as conn:
            found = await storage.action(conn, principal.api_key, request.alertId, now_ms())
        if not found:
            raise NotFound(f"No alert {request.alertId}.")
        return models.Done(success=True)

    async def config(
        self, principal: ApiKeyPrincipal, request: models.GetAlertConfig
    ) -> dict[str, Any]:
        async with self._pool.acquire() as conn:
            stored = await storage.config(conn, principal.api_key)
        return {"enabled": True, **stored}

    async def update_config(
        self, principal: ApiKeyPrincipal, request: models.UpdateAlertConfig
    ) -> models.Done:
        try:
            msgspec.convert(request.config, models.KnownConfig)
        except msgspec.ValidationError as exc:
            raise InvalidArgument.from_issues([issue_from_validation(exc, "data.config")]) from None
        async with self._pool.acquire() as conn:
            await storage.merge_config(conn, principal.api_key, request.config, now_ms())
        return models.Done(success=True)

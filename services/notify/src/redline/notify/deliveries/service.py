"""The delivery endpoints' rules: an API key sees and replays its own deliveries only."""

from __future__ import annotations

import datetime as dt

import msgspec

from redline.envelope import PageTokens, Reply, paged
from redline.envelope.auth import ApiKeyPrincipal
from redline.notify.deliveries import storage
from redline.notify.deliveries.models import (
    Attempt,
    Delivery,
    ListDeliveries,
    RetryDeliveries,
    RetryResult,
)
from redline.pg import Pool

_PAGE_KIND = "webhook-deliveries"


class _Cursor(msgspec.Struct, array_like=True, frozen=True):
    created_at_us: int
    id: int


def _ms(value: dt.datetime) -> int:
    return int(value.timestamp() * 1000)


def _from_ms(value: int) -> dt.datetime:
    return dt.datetime.fromtimestamp(value / 1000, dt.UTC)


def _from_us(value: int) -> dt.datetime:
    return dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(microseconds=value)


def _us(value: dt.datetime) -> int:
    return (value - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)) // dt.timedelta(microseconds=1)


class DeliveryService:
    def __init__(
        self, pool: Pool, page_tokens: PageTokens, default_page_size: int, page_byte_budget: int
    ) -> None:
        self._pool = pool
        self._pages = page_tokens
        self._default_page_size = default_page_size
        self._page_byte_budget = page_byte_budget

    async def list(self, caller: ApiKeyPrincipal, request: ListDeliveries) -> Reply[list[Delivery]]:
        before = None
        if request.pageToken:
            cursor = self._pages.decode(caller.workspace_id, _PAGE_KIND, request.pageToken, _Cursor)
            before = (_from_us(cursor.created_at_us), cursor.id)
        size = request.pageSize or self._default_page_size
        where = storage.DeliveryFilter(
            workspace_id=caller.workspace_id,
            api_key=caller.api_key,
            state=request.status,
            # An empty list counts as absent, as in every list filter of the API.
            event_types=request.eventTypes or None,
            created_after=_from_ms(request.createdAfter) if request.createdAfter else None,
            # Inclusive of the whole millisecond asked for.
            created_before=(
                _from_ms(request.createdBefore + 1) - dt.timedelta(microseconds=1)
                if request.createdBefore is not None
                else None
            ),
            before=before,
        )
        # One snapshot for both reads: an attempt recorded between them would otherwise show in
        # the log of a delivery read as not yet tried.
        async with (
            self._pool.acquire() as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            page, more = await storage.list_deliveries(conn, where, size, self._page_byte_budget)
            attempts = await storage.attempts_of(conn, [row.id for row in page])
        log: dict[int, list[Attempt]] = {}
        for a in attempts:
            log.setdefault(a.delivery_id, []).append(
                Attempt(a.attempt, _ms(a.started_at), a.status, round(a.latency_ms, 3), a.error)
            )
        next_token = None
        if more:
            last = page[-1]
            next_token = self._pages.encode(
                caller.workspace_id, _PAGE_KIND, _Cursor(_us(last.created_at), last.id)
            )
        return paged([_delivery(row, log.get(row.id, [])) for row in page], next_token)

    async def retry(
        self, caller: ApiKeyPrincipal, request: RetryDeliveries
    ) -> dict[str, RetryResult]:
        ids = list(dict.fromkeys(request.deliveryIds))
        async with self._pool.acquire() as conn, conn.transaction():
            await storage.hold_claims(conn)
            states = await storage.states_of(conn, caller.workspace_id, caller.api_key, ids)
            results = {webhook_id: _retry_result(states.get(webhook_id)) for webhook_id in ids}
            await storage.requeue(
                conn,
                caller.workspace_id,
                caller.api_key,
                [webhook_id for webhook_id, result in results.items() if result.success],
            )
        return results


def _retry_result(state: tuple[str, int] | None) -> RetryResult:
    if state is None:
        return RetryResult(False, "Delivery not found.")
    status, attempts = state
    if status == "succeeded":
        return RetryResult(False, "Delivery already succeeded.")
    if status == "sending":
        return RetryResult(False, "Delivery is being sent.")
    if status == "failed" and attempts == 0:
        # Stored failed without a request (no usable encryption key): the same body would fail
        # again. Later events use the corrected settings.
        return RetryResult(False, "Delivery was never sendable; fix the webhook settings.")
    return RetryResult(True, "Delivery queued for retry.")


def _delivery(row: storage.DeliveryRow, attempts: list[Attempt]) -> Delivery:
    return Delivery(
        deliveryId=row.webhook_id,
        eventId=row.event_id,
        eventType=row.event_type,
        target=row.target,
        url=row.url,
        status=row.state,  # type: ignore[arg-type]  # the CHECK constraint keeps it in range
        attempts=row.attempts,
        nextAttemptAt=_ms(row.next_attempt_at) if row.state == "pending" else None,
        lastStatusCode=row.last_status,
        lastError=row.last_error,
        createdAt=_ms(row.created_at),
        finishedAt=_ms(row.finished_at) if row.finished_at else None,
        attemptLog=attempts,
    )

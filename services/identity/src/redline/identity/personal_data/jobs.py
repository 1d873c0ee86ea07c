"""Personal data erasure jobs, coordinated by identity.

`start` records a job in PostgreSQL and writes `identity.personal_data.erasure_requested` through
the outbox in the same transaction; every service erases its data and reports
`<service>.personal_data.erased`, which `on_report` records. A job is `pending` until a service
reports, `in_progress` until all have, then `completed`. `ask_again` re-sends the request to the
services that have not reported when a job stays open longer than the retry interval, so a
service that was down, or an event that was lost, does not leave a job open for good.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Sequence

from msgspec.structs import replace

from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import NotFound
from redline.identity.personal_data import models, storage
from redline.identity.schema import SCHEMA
from redline.pg import Pool, write_events
from redline.proto.events import Event, PersonalDataErased, PersonalDataErasureRequested, epoch_ms

log = logging.getLogger("redline.identity.personal_data")


def _job_id() -> str:
    return "pdj_" + secrets.token_urlsafe(15)


class ErasureJobs:
    def __init__(self, pool: Pool, participants: Sequence[str]) -> None:
        self._pool = pool
        self._participants = list(participants)

    # erasure ----------------------------------------------------------------------------------

    async def start(
        self, caller: ApiKeyPrincipal, request: models.DeleteUserData
    ) -> models.ErasureStarted:
        organizations = request.organizationIds
        row = storage.ErasureRow(
            api_key=caller.api_key,
            job_id=_job_id(),
            workspace_id=caller.workspace_id,
            user_ids=list(dict.fromkeys(request.userIds)),
            organization_ids=None if organizations is None else list(dict.fromkeys(organizations)),
            status="pending",
            participants=list(self._participants),
            reports={},
            last_report_at=None,
        )
        async with self._pool.acquire() as conn, conn.transaction():
            await storage.insert(conn, row)
            await write_events(conn, SCHEMA, [_request_event(row)])
        return models.ErasureStarted(jobId=row.job_id, tasksCount=len(row.participants))

    async def status(
        self, caller: ApiKeyPrincipal, request: models.ErasureStatusRequest
    ) -> models.ErasureState:
        row = await storage.get(self._pool, caller.api_key, request.jobId)
        if row is None:
            raise NotFound("Data deletion job not found.")
        last = row.last_report_at
        return models.ErasureState(
            isDeleteCompleted=row.status == "completed",
            tasksLeft=len(_waiting_for(row)),
            lastTaskCompletedTime=None if last is None else epoch_ms(last),
            jobId=row.job_id,
            status=row.status,
        )

    async def on_report(self, event: Event) -> None:
        if not isinstance(event, PersonalDataErased):
            return
        async with self._pool.acquire() as conn, conn.transaction():
            row = await storage.get(conn, event.apiKey, event.jobId, for_update=True)
            if row is None or event.service not in row.participants:
                return
            if event.service in row.reports:
                return  # a redelivered or repeated report
            reports = {**row.reports, event.service: event.erasedRecords}
            done = set(reports) >= set(row.participants)
            status: models.ErasureStatus = "completed" if done else "in_progress"
            await storage.save_report(conn, replace(row, reports=reports, status=status))

    async def ask_again(self, older_than_s: float) -> int:
        """Re-send the request of overdue jobs to the services that have not reported."""
        async with self._pool.acquire() as conn, conn.transaction():
            overdue = await storage.claim_overdue(conn, older_than_s, limit=100)
            events = [_request_event(row, _waiting_for(row)) for row in overdue]
            if events:
                await write_events(conn, SCHEMA, events)
        return len(events)

    async def keep_asking(self, interval_s: float) -> None:
        """Run `ask_again` every `interval_s` for jobs open longer than that."""
        while True:
            await asyncio.sleep(interval_s)
            try:
                await self.ask_again(interval_s)
            except Exception:
                log.exception("asking again for overdue personal data erasures failed")


def _waiting_for(row: storage.ErasureRow) -> list[str]:
    return [service for service in row.participants if service not in row.reports]


def _request_event(
    row: storage.ErasureRow, participants: list[str] | None = None
) -> PersonalDataErasureRequested:
    return PersonalDataErasureRequested(
        workspaceId=row.workspace_id,
        jobId=row.job_id,
        apiKey=row.api_key,
        userIds=row.user_ids,
        organizationIds=row.organization_ids,
        participants=row.participants if participants is None else participants,
    )

"""Personal data export and erasure, coordinated by identity.

Export asks every participating service (`rpc.<service>.personal_data.export`, identity's own
answer included) for one page of each kind of data it holds about the user and merges the
answers; the page token carries where each kind resumes.

Erasure is a job: `start` records it in PostgreSQL and writes
`identity.personal_data.erasure_requested` through the outbox in the same transaction; every
service erases its data and reports `<service>.personal_data.erased`, which `on_report` records.
The job is `pending` until a service reports, `in_progress` until all have, then `completed`.
`ask_again` re-sends the request to the services that have not reported when a job stays open
longer than the retry interval, so a service that was down, or an event lost, does not leave
the job open for good.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Sequence

import msgspec
from msgspec.structs import replace

from redline.bus import Bus, rpc
from redline.envelope import PageTokens, Reply, paged
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument, NotFound
from redline.identity.personal_data import models, storage
from redline.identity.schema import SCHEMA
from redline.pg import Pool, write_events
from redline.proto.events import Event, PersonalDataErased, PersonalDataErasureRequested
from redline.proto.rpc import PersonalDataExport, PersonalDataExported
from redline.proto.subjects import personal_data_export_subject

log = logging.getLogger("redline.identity.personal_data")

_PAGE_KIND = "users.data"
PAGE_SIZE = 100


class _ExportCursor(msgspec.Struct, array_like=True):
    """Where an export resumes: the user (by position in the request's list) and, per service,
    where each of its unfinished kinds resumes. `api_key` and `users` bind the token to the
    request it continues."""

    api_key: str
    users: list[str]
    user_index: int
    offsets: dict[str, dict[str, int]]


def _job_id() -> str:
    return "pdj_" + secrets.token_urlsafe(15)


def _export_users(request: models.GetUserData) -> list[str]:
    if request.veltUserIds:
        return list(dict.fromkeys(request.veltUserIds))
    if request.userId is None:
        raise InvalidArgument.field("data.userId", "userId is required.")
    return [request.userId]


def _export_scope(request: models.GetUserData) -> list[str] | None:
    if request.veltAllOrganizations:
        return None
    if request.organizationId is None:
        raise InvalidArgument.field("data.organizationId", "organizationId is required.")
    return [request.organizationId]


class PersonalDataService:
    def __init__(
        self,
        pool: Pool,
        bus: Bus,
        pages: PageTokens,
        participants: Sequence[str],
        rpc_timeout_s: float,
    ) -> None:
        self._pool = pool
        self._bus = bus
        self._pages = pages
        self._participants = list(participants)
        self._rpc_timeout_s = rpc_timeout_s

    # export -----------------------------------------------------------------------------------

    async def export(
        self, caller: ApiKeyPrincipal, request: models.GetUserData
    ) -> Reply[models.UserData]:
        users, scope = _export_users(request), _export_scope(request)
        cursor = _ExportCursor(caller.api_key, users, 0, {})
        first_page = True
        if request.pageToken:
            cursor = self._pages.decode(
                caller.workspace_id, _PAGE_KIND, request.pageToken, _ExportCursor
            )
            if cursor.api_key != caller.api_key or cursor.users != users:
                raise InvalidArgument.field("data.pageToken", "Invalid page token.")
            first_page = False
        services = self._participants if first_page else list(cursor.offsets)
        answers = await asyncio.gather(
            *(
                self._ask(caller, users[cursor.user_index], scope, service, cursor, first_page)
                for service in services
            )
        )
        data: models.UserData = {kind: [] for kind in models.REFERENCE_KINDS}
        offsets: dict[str, dict[str, int]] = {}
        for service, answer in zip(services, answers, strict=True):
            for kind, page in answer.kinds.items():
                data.setdefault(kind, []).extend(page.items)
                if page.nextOffset is not None:
                    offsets.setdefault(service, {})[kind] = page.nextOffset
        return paged(data, self._next_token(caller, cursor, offsets))

    async def _ask(
        self,
        caller: ApiKeyPrincipal,
        user_id: str,
        scope: list[str] | None,
        service: str,
        cursor: _ExportCursor,
        first_page: bool,
    ) -> PersonalDataExported:
        request = PersonalDataExport(
            workspaceId=caller.workspace_id,
            apiKey=caller.api_key,
            userId=user_id,
            organizationIds=scope,
            offsets=None if first_page else cursor.offsets[service],
            limit=PAGE_SIZE,
        )
        return await rpc.call(
            self._bus.nc,
            personal_data_export_subject(service),
            request,
            PersonalDataExported,
            timeout_s=self._rpc_timeout_s,
        )

    def _next_token(
        self,
        caller: ApiKeyPrincipal,
        cursor: _ExportCursor,
        offsets: dict[str, dict[str, int]],
    ) -> str | None:
        if offsets:
            following = replace(cursor, offsets=offsets)
        elif cursor.user_index + 1 < len(cursor.users):
            following = replace(cursor, user_index=cursor.user_index + 1, offsets={})
        else:
            return None
        return self._pages.encode(caller.workspace_id, _PAGE_KIND, following)

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
            lastTaskCompletedTime=None if last is None else int(last.timestamp() * 1000),
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

"""Taking part in personal data export and erasure: the same contract for every service.

A service describes what it holds about a user as a list of `DataKind`s, one per kind of data
(comments, reactions, judgments…), each with two functions: `export` reads one page of the
user's items, `erase` deletes or anonymises them. `take_part_in_personal_data` then does the rest:

- it answers `rpc.<service>.personal_data.export` (identity asks every service and merges the
  answers into `/v2/users/data/get`);
- it runs a durable consumer of `identity.personal_data.erasure_requested`: for each user of the
  job, every kind's `erase` runs in one transaction with the inbox claim and the
  `<service>.personal_data.erased` report, so a redelivered event does nothing twice and a crash
  mid-way leaves all of it or none. `erase` must be idempotent: identity asks again when a
  report is late, with a new event.

Adding a kind of data is adding one `DataKind` to the service's list; adding a service is one
cleanup context in its app and its name in `REDLINE_PERSONAL_DATA_PARTICIPANTS`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from redline.bus import DurableConsumer, rpc
from redline.pg import Connection, Pool, claim_event, write_events
from redline.proto.events import Event, PersonalDataErased, PersonalDataErasureRequested
from redline.proto.rpc import PersonalDataExport, PersonalDataExported, PersonalDataPage
from redline.proto.subjects import PERSONAL_DATA_ERASURE_REQUESTS, personal_data_export_subject
from redline.runtime.resources import BUS, POOL
from redline.runtime.tasks import running

_CONSUMER = "personal-data-erasure"


@dataclass(frozen=True)
class Subject:
    """Whose data, in which tenant: one user of one API key, optionally of some organizations
    only (None: every organization of the key)."""

    workspace_id: str
    api_key: str
    user_id: str
    organization_ids: Sequence[str] | None

    @property
    def organization_scope(self) -> list[str] | None:
        """The organizations as a query parameter: a list, or None for every one."""
        return None if self.organization_ids is None else list(self.organization_ids)


# (connection, subject, offset, limit) -> items in a stable order
Export = Callable[[Connection, Subject, int, int], Awaitable[list[dict[str, Any]]]]
# (connection, subject) -> how many records were deleted or anonymised
Erase = Callable[[Connection, Subject], Awaitable[int]]


@dataclass(frozen=True)
class DataKind:
    """One kind of personal data a service holds; `name` is its key in the export. `erase` is
    None for a kind that another kind of the service erases with its own (comments and
    reactions live inside annotations, say)."""

    name: str
    export: Export
    erase: Erase | None = None


class PersonalDataParticipant:
    def __init__(self, service: str, pool: Pool, kinds: Sequence[DataKind]) -> None:
        self._service = service  # also the service's schema
        self._pool = pool
        self._kinds = {kind.name: kind for kind in kinds}

    async def export(self, request: PersonalDataExport) -> PersonalDataExported:
        subject = Subject(
            request.workspaceId, request.apiKey, request.userId, request.organizationIds
        )
        offsets = request.offsets if request.offsets is not None else dict.fromkeys(self._kinds, 0)
        pages: dict[str, PersonalDataPage] = {}
        async with self._pool.acquire() as conn:
            for name, offset in offsets.items():
                kind = self._kinds.get(name)
                if kind is None:
                    continue
                # One more than a page tells whether another follows.
                items = await kind.export(conn, subject, offset, request.limit + 1)
                more = len(items) > request.limit
                pages[name] = PersonalDataPage(
                    items[: request.limit], offset + request.limit if more else None
                )
        return PersonalDataExported(pages)

    async def erase(self, event: Event) -> None:
        if not isinstance(event, PersonalDataErasureRequested):
            return
        if self._service not in event.participants:
            return
        async with self._pool.acquire() as conn, conn.transaction():
            if not await claim_event(conn, self._service, _CONSUMER, event.id):
                return
            erased = 0
            for user_id in event.userIds:
                subject = Subject(event.workspaceId, event.apiKey, user_id, event.organizationIds)
                for kind in self._kinds.values():
                    if kind.erase is not None:
                        erased += await kind.erase(conn, subject)
            report = PersonalDataErased(
                workspaceId=event.workspaceId,
                service=self._service,
                jobId=event.jobId,
                apiKey=event.apiKey,
                erasedRecords=erased,
            )
            await write_events(conn, self._service, [report])


def take_part_in_personal_data(
    service: str, kinds: Callable[[web.Application], Sequence[DataKind]]
) -> Callable[[web.Application], contextlib.AbstractAsyncContextManager[None]]:
    """A cleanup context answering `service`'s export RPC and running its erasure consumer while
    the app serves."""

    @contextlib.asynccontextmanager
    async def context(app: web.Application) -> AsyncIterator[None]:
        participant = PersonalDataParticipant(service, app[POOL], kinds(app))
        subscription = await rpc.serve(
            app[BUS].nc,
            personal_data_export_subject(service),
            PersonalDataExport,
            participant.export,
        )
        consumer = DurableConsumer(
            app[BUS].js,
            f"{service}-personal-data",
            participant.erase,
            filter_subjects=PERSONAL_DATA_ERASURE_REQUESTS,
        )
        try:
            async with running(consumer.run(), name=f"{service}-personal-data"):
                yield
        finally:
            await subscription.unsubscribe()

    return context

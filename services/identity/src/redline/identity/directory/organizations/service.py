"""Organizations of an API key: add, update, get, delete. Every change commits with its event."""

from __future__ import annotations

import msgspec

from redline.envelope import PageTokens, Reply, paged
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument
from redline.identity.access_changes import (
    FORGET_NOTHING,
    ForgetAccess,
    access_changed_event,
    forget_if_access_changed,
)
from redline.identity.directory.disable_state.service import require_writable
from redline.identity.directory.models import ItemResult
from redline.identity.directory.organizations import models, storage
from redline.identity.directory.organizations.storage import OrganizationRow
from redline.identity.directory.rules import (
    ALREADY_EXISTS,
    NOT_FOUND,
    check_entries,
    check_unique,
    failed,
    raise_if_any_failed,
    succeeded,
)
from redline.identity.schema import SCHEMA
from redline.pg import Pool, write_events
from redline.proto.events import (
    Event,
    OrganizationAdded,
    OrganizationDeleted,
    OrganizationUpdated,
    epoch_ms,
)

_PAGE_KIND = "organizations"
_MISSING = "Organization does not exist."


class _Cursor(msgspec.Struct, array_like=True):
    api_key: str
    after: str


def organization(row: OrganizationRow) -> models.Organization:
    return models.Organization(
        id=row.organization_id,
        organizationName=row.name,
        disabled=row.disabled,
        metadata=row.metadata,
        createdAt=epoch_ms(row.created_at),
        lastUpdated=epoch_ms(row.updated_at),
    )


class OrganizationService:
    def __init__(
        self, pool: Pool, page_tokens: PageTokens, forget_access: ForgetAccess = FORGET_NOTHING
    ) -> None:
        self._pool = pool
        self._pages = page_tokens
        self._forget_access = forget_access

    async def add(
        self, caller: ApiKeyPrincipal, request: models.AddOrganizations
    ) -> dict[str, ItemResult]:
        items = request.organizations
        check_entries("organizations", [o.organizationId for o in items], "organizationId", items)
        results: dict[str, ItemResult] = {}
        events: list[Event] = []
        async with self._pool.acquire() as conn, conn.transaction():
            for item in items:
                org_id = item.organizationId
                if await storage.insert_organization(
                    conn, caller.api_key, org_id, item.organizationName, item.metadata or {}
                ):
                    results[org_id] = succeeded(org_id, "Added Successfully")
                    events.append(
                        OrganizationAdded(
                            workspaceId=caller.workspace_id,
                            apiKey=caller.api_key,
                            organizationId=org_id,
                            organizationName=item.organizationName,
                        )
                    )
                else:
                    results[org_id] = failed(org_id, "Organization already exists.", ALREADY_EXISTS)
            await write_events(conn, SCHEMA, events)
        forget_if_access_changed(self._forget_access, caller, events)
        raise_if_any_failed(results, "organizations")
        return results

    async def update(
        self, caller: ApiKeyPrincipal, request: models.UpdateOrganizations
    ) -> dict[str, ItemResult]:
        items = request.organizations
        check_entries("organizations", [o.organizationId for o in items], "organizationId", items)
        results: dict[str, ItemResult] = {}
        events: list[Event] = []
        async with self._pool.acquire() as conn, conn.transaction():
            for item in items:
                await require_writable(conn, caller.api_key, item.organizationId)
            for item in items:
                org_id = item.organizationId
                row = await storage.update_organization(
                    conn, caller.api_key, org_id, item.organizationName, item.metadata
                )
                if row is None:
                    results[org_id] = failed(org_id, _MISSING, NOT_FOUND)
                    continue
                results[org_id] = succeeded(org_id, "Updated Successfully")
                events.append(
                    OrganizationUpdated(
                        workspaceId=caller.workspace_id,
                        apiKey=caller.api_key,
                        organizationId=org_id,
                        organizationName=row.name,
                    )
                )
            await write_events(conn, SCHEMA, events)
        forget_if_access_changed(self._forget_access, caller, events)
        raise_if_any_failed(results, "organizations")
        return results

    async def get(
        self, caller: ApiKeyPrincipal, request: models.GetOrganizations
    ) -> Reply[list[models.Organization]]:
        after = None
        if request.pageToken:
            cursor = self._pages.decode(caller.workspace_id, _PAGE_KIND, request.pageToken, _Cursor)
            if cursor.api_key != caller.api_key:
                raise InvalidArgument.field("data.pageToken", "Invalid page token.")
            after = cursor.after
        ids = None if request.organizationIds is None else list(request.organizationIds)
        rows = await storage.organizations_page(
            self._pool, caller.api_key, ids, after, request.pageSize + 1
        )
        more = len(rows) > request.pageSize
        rows = rows[: request.pageSize]
        token = None
        if more:
            token = self._pages.encode(
                caller.workspace_id, _PAGE_KIND, _Cursor(caller.api_key, rows[-1].organization_id)
            )
        return paged([organization(r) for r in rows], token)

    async def delete(
        self, caller: ApiKeyPrincipal, request: models.OrganizationIds
    ) -> dict[str, ItemResult]:
        ids = request.organizationIds
        check_unique(ids, "data.organizationIds[{}]")
        results: dict[str, ItemResult] = {}
        events: list[Event] = []
        async with self._pool.acquire() as conn, conn.transaction():
            for org_id in ids:
                if not await storage.delete_organization(conn, caller.api_key, org_id):
                    results[org_id] = failed(org_id, _MISSING, NOT_FOUND)
                    continue
                results[org_id] = succeeded(org_id, "Deleted Successfully")
                events += [
                    OrganizationDeleted(
                        workspaceId=caller.workspace_id,
                        apiKey=caller.api_key,
                        organizationId=org_id,
                    ),
                    # Users' grants went with it.
                    access_changed_event(caller, org_id),
                ]
            await write_events(conn, SCHEMA, events)
        forget_if_access_changed(self._forget_access, caller, events)
        raise_if_any_failed(results, "organizations")
        return results

"""Organizations of an API key: add, update, get, delete. Every change commits with its event."""

from __future__ import annotations

import msgspec

from redline.envelope import PageTokens
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument
from redline.identity.models import directory as models
from redline.identity.service.directory import (
    ALREADY_EXISTS,
    FORGET_NOTHING,
    NOT_FOUND,
    ForgetAccess,
    check_entries,
    check_unique,
    failed,
    forget_if_access_changed,
    ms,
    raise_if_any_failed,
    succeeded,
)
from redline.identity.storage import organizations as storage
from redline.identity.storage.directory import SCHEMA, OrganizationRow
from redline.pg import Pool, write_events
from redline.proto.events import (
    AccessChanged,
    Event,
    OrganizationAdded,
    OrganizationDeleted,
    OrganizationUpdated,
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
        metadata=row.metadata,
        createdAt=ms(row.created_at),
        lastUpdated=ms(row.updated_at),
    )


class OrganizationService:
    def __init__(
        self, pool: Pool, page_tokens: PageTokens, forget_access: ForgetAccess = FORGET_NOTHING
    ) -> None:
        self._pool = pool
        self._pages = page_tokens
        self._forget = forget_access

    async def add(
        self, key: ApiKeyPrincipal, request: models.AddOrganizations
    ) -> dict[str, models.ItemResult]:
        items = request.organizations
        check_entries("organizations", [o.organizationId for o in items], "organizationId", items)
        results: dict[str, models.ItemResult] = {}
        events: list[Event] = []
        async with self._pool.acquire() as conn, conn.transaction():
            for item in items:
                org_id = item.organizationId
                if await storage.insert_organization(
                    conn, key.api_key, org_id, item.organizationName, item.metadata or {}
                ):
                    results[org_id] = succeeded(org_id, "Added Successfully")
                    events.append(
                        OrganizationAdded(
                            workspaceId=key.workspace_id,
                            apiKey=key.api_key,
                            organizationId=org_id,
                            organizationName=item.organizationName,
                        )
                    )
                else:
                    results[org_id] = failed(org_id, "Organization already exists.", ALREADY_EXISTS)
            await write_events(conn, SCHEMA, events)
        forget_if_access_changed(self._forget, key.api_key, events)
        raise_if_any_failed(results, "organizations")
        return results

    async def update(
        self, key: ApiKeyPrincipal, request: models.UpdateOrganizations
    ) -> dict[str, models.ItemResult]:
        items = request.organizations
        check_entries("organizations", [o.organizationId for o in items], "organizationId", items)
        results: dict[str, models.ItemResult] = {}
        events: list[Event] = []
        async with self._pool.acquire() as conn, conn.transaction():
            for item in items:
                org_id = item.organizationId
                row = await storage.update_organization(
                    conn, key.api_key, org_id, item.organizationName, item.metadata
                )
                if row is None:
                    results[org_id] = failed(org_id, _MISSING, NOT_FOUND)
                    continue
                results[org_id] = succeeded(org_id, "Updated Successfully")
                events.append(
                    OrganizationUpdated(
                        workspaceId=key.workspace_id,
                        apiKey=key.api_key,
                        organizationId=org_id,
                        organizationName=row.name,
                    )
                )
            await write_events(conn, SCHEMA, events)
        forget_if_access_changed(self._forget, key.api_key, events)
        raise_if_any_failed(results, "organizations")
        return results

    async def get(
        self, key: ApiKeyPrincipal, request: models.GetOrganizations
    ) -> tuple[list[models.Organization], str | None]:
        after = None
        if request.pageToken:
            cursor = self._pages.decode(key.workspace_id, _PAGE_KIND, request.pageToken, _Cursor)
            if cursor.api_key != key.api_key:
                raise InvalidArgument.field("data.pageToken", "Invalid page token.")
            after = cursor.after
        ids = None if request.organizationIds is None else list(request.organizationIds)
        rows = await storage.organizations_page(
            self._pool, key.api_key, ids, after, request.pageSize + 1
        )
        more = len(rows) > request.pageSize
        rows = rows[: request.pageSize]
        token = None
        if more:
            token = self._pages.encode(
                key.workspace_id, _PAGE_KIND, _Cursor(key.api_key, rows[-1].organization_id)
            )
        return [organization(r) for r in rows], token

    async def delete(
        self, key: ApiKeyPrincipal, request: models.OrganizationIds
    ) -> dict[str, models.ItemResult]:
        ids = request.organizationIds
        check_unique(ids, "data.organizationIds[{}]")
        results: dict[str, models.ItemResult] = {}
        events: list[Event] = []
        async with self._pool.acquire() as conn, conn.transaction():
            for org_id in ids:
                if not await storage.delete_organization(conn, key.api_key, org_id):
                    results[org_id] = failed(org_id, _MISSING, NOT_FOUND)
                    continue
                results[org_id] = succeeded(org_id, "Deleted Successfully")
                events += [
                    OrganizationDeleted(
                        workspaceId=key.workspace_id, apiKey=key.api_key, organizationId=org_id
                    ),
                    # Users' grants went with it.
                    AccessChanged(
                        workspaceId=key.workspace_id, apiKey=key.api_key, organizationId=org_id
                    ),
                ]
            await write_events(conn, SCHEMA, events)
        forget_if_access_changed(self._forget, key.api_key, events)
        raise_if_any_failed(results, "organizations")
        return results

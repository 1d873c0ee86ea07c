"""Disabling and enabling organizations and documents, and `require_writable`: the rule of
`redline.runtime.disable_state` applied to identity's own writes, read from its tables inside
the writing transaction.

A change of state commits with an `identity.access.changed` event per organization: every
process drops its cached disable states (and access decisions) of the API key when it hears it,
and this process drops its own before answering, so the next write is judged by the new state.
"""

from __future__ import annotations

from collections.abc import Sequence

from redline.envelope.auth import ApiKeyPrincipal
from redline.identity import errors
from redline.identity.access_changes import (
    FORGET_NOTHING,
    ForgetAccess,
    access_changed_event,
    forget_if_access_changed,
)
from redline.identity.directory.disable_state import models, storage
from redline.identity.directory.models import ItemResult
from redline.identity.directory.rules import (
    NOT_FOUND,
    check_unique,
    raise_if_any_failed,
    succeeded,
)
from redline.identity.directory.storage import lock_organization
from redline.identity.schema import SCHEMA
from redline.pg import Connection, Pool, write_events
from redline.proto.events import Event, OrganizationAdded
from redline.proto.rpc import DisableState, DisableStateQuery
from redline.runtime.disable_state import refuse_if_disabled

_ORGANIZATION_DONE = "Updated disable state for organization Successfully"
_DOCUMENT_DONE = "Document disabled state updated."


async def require_writable(
    conn: Connection, api_key: str, organization_id: str, document_ids: Sequence[str] = ()
) -> None:
    """FAILED_PRECONDITION when the organization, or one of `document_ids` in it, is disabled.
    Call it after locking the organization row where the write does: a concurrent change of
    state then waits for the write (or the write for it)."""
    found = await storage.disabled_among(conn, api_key, organization_id, list(document_ids))
    state = DisableState(found.organization, found.document_id is not None)
    refuse_if_disabled(state, organization_id, found.document_id)


class DisableStateService:
    def __init__(self, pool: Pool, forget_access: ForgetAccess = FORGET_NOTHING) -> None:
        self._pool = pool
        self._forget_access = forget_access

    async def set_organizations(
        self, caller: ApiKeyPrincipal, request: models.OrganizationDisableState
    ) -> dict[str, ItemResult]:
        ids = request.organizationIds
        check_unique(ids, "data.organizationIds[{}]")
        events: list[Event] = []
        async with self._pool.acquire() as conn, conn.transaction():
            changed = await storage.set_organizations_disabled(
                conn, caller.api_key, list(ids), request.disabled
            )
            for item in changed:
                if item.created:
                    events.append(
                        OrganizationAdded(
                            workspaceId=caller.workspace_id,
                            apiKey=caller.api_key,
                            organizationId=item.organization_id,
                            organizationName="",
                        )
                    )
                events.append(access_changed_event(caller, item.organization_id))
            await write_events(conn, SCHEMA, events)
        forget_if_access_changed(self._forget_access, caller, events)
        return {org_id: succeeded(org_id, _ORGANIZATION_DONE) for org_id in ids}

    async def set_documents(
        self, caller: ApiKeyPrincipal, request: models.DocumentDisableState
    ) -> dict[str, models.DocumentDisableResult]:
        org_id = request.organizationId
        ids = request.documentIds
        check_unique(ids, "data.documentIds[{}]")
        events: list[Event] = []
        async with self._pool.acquire() as conn, conn.transaction():
            if not await lock_organization(conn, caller.api_key, org_id):
                raise errors.organization_not_found()
            done = set(
                await storage.set_documents_disabled(
                    conn, caller.api_key, org_id, list(ids), request.disabled
                )
            )
            if done:
                events.append(access_changed_event(caller, org_id))
            await write_events(conn, SCHEMA, events)
        forget_if_access_changed(self._forget_access, caller, events)
        results = {
            doc_id: models.DocumentDisableResult(
                success=True, id=doc_id, message=_DOCUMENT_DONE, disabled=request.disabled
            )
            if doc_id in done
            else models.DocumentDisableResult(
                success=False, id=doc_id, message="Document does not exist.", code=NOT_FOUND
            )
            for doc_id in ids
        }
        raise_if_any_failed(results, "documents")
        return results

    async def state(self, query: DisableStateQuery) -> DisableState:
        """The `rpc.identity.disablestate.get` answer."""
        docs = [] if query.documentId is None else [query.documentId]
        found = await storage.disabled_among(self._pool, query.apiKey, query.organizationId, docs)
        return DisableState(found.organization, found.document_id is not None)

"""Definitions: validated, compiled and versioned. Each create or update is a new immutable
version; executions pin the version current when they are dispatched, so an update never
changes a run in flight."""

from __future__ import annotations

import uuid
from typing import Any, Literal

import msgspec
from msgspec import UnsetType

from redline.envelope import ApiKeyPrincipal
from redline.envelope.errors import AlreadyExists, FailedPrecondition, NotFound
from redline.pg import Pool
from redline.proto.events import now_ms
from redline.runtime.keys import Sealer
from redline.webhooks import AddressGuard
from redline.workflow.definitions import models, storage
from redline.workflow.definitions.compiler import compile_graph
from redline.workflow.definitions.linter import error_for, lint, needs_app_platform
from redline.workflow.definitions.storage import NewVersion, StoredDefinition

# Fields of a write request that are not part of the stored definition.
_NOT_STORED = ("webhookConfig", "ifVersion")


def definition_receiver_binding(api_key: str, definition_id: str, uid: str) -> str:
    """What a definition's sealed receiver secret is bound to: that life of that definition."""
    return f"definition:{api_key}:{definition_id}:{uid}"


class DefinitionService:
    def __init__(self, pool: Pool, sealer: Sealer, guard: AddressGuard) -> None:
        self._pool = pool
        self._sealer = sealer
        self._guard = guard

    async def create(
        self, principal: ApiKeyPrincipal, request: models.CreateDefinition
    ) -> models.DefinitionView:
        compiled = self._validate(request)
        async with self._pool.acquire() as conn, conn.transaction():
            await storage.lock_key(conn, principal.api_key)
            existing = await storage.find(conn, principal.api_key, request.definitionId)
            if existing is not None and existing.status == "active":
                raise AlreadyExists(f"Definition {request.definitionId} already exists.")
            if existing is not None:
                # A deleted id starts a new life at version 1; the old one's versions go.
                await storage.drop_versions(conn, existing.uid)
            now = await storage.next_update_time(conn, principal.api_key, now_ms())
            new = self._version(principal, request, compiled, str(uuid.uuid4()), 1, now, now)
            await storage.save(conn, new)
        return self._view(new.body, new.compiled, 1, "active", now, now)

    async def update(
        self, principal: ApiKeyPrincipal, request: models.UpdateDefinition
    ) -> models.DefinitionView:
        compiled = self._validate(request)
        async with self._pool.acquire() as conn, conn.transaction():
            await storage.lock_key(conn, principal.api_key)
            existing = await self._active(conn, principal, request.definitionId)
            if existing.version != request.ifVersion:
                raise FailedPrecondition(
                    f"Version conflict: expected {request.ifVersion}, current {existing.version}"
                )
            now = await storage.next_update_time(conn, principal.api_key, now_ms())
            version = existing.version + 1
            new = self._version(
                principal, request, compiled, existing.uid, version, existing.created_at, now
            )
            await storage.save(conn, new)
        return self._view(new.body, new.compiled, version, "active", existing.created_at, now)

    async def get(
        self, principal: ApiKeyPrincipal, request: models.GetDefinition
    ) -> models.DefinitionView:
        async with self._pool.acquire() as conn:
            stored = await self._active(conn, principal, request.definitionId)
        return self._stored_view(stored)

    async def list(
        self, principal: ApiKeyPrincipal, request: models.ListDefinitions
    ) -> models.DefinitionPage:
        before = None if isinstance(request.cursor, UnsetType) else request.cursor
        async with self._pool.acquire() as conn:
            rows = await storage.page(conn, principal.api_key, before, request.pageSize)
        items = [self._stored_view(row) for row in rows]
        full = len(items) == request.pageSize
        return models.DefinitionPage(
            items=items, nextCursor=items[-1].updatedAt if full and items else None
        )

    async def delete(
        self, principal: ApiKeyPrincipal, request: models.DeleteDefinition
    ) -> models.DeletedDefinition:
        async with self._pool.acquire() as conn, conn.transaction():
            await storage.lock_key(conn, principal.api_key)
            existing = await storage.find(conn, principal.api_key, request.definitionId)
            if existing is None or (existing.status != "active" and not request.purge):
                raise NotFound(f"Definition {request.definitionId} not found.")
            if await storage.has_executions_in_flight(
                conn, principal.api_key, request.definitionId
            ):
                raise FailedPrecondition(
                    f"Definition {request.definitionId} has executions in flight; cancel them "
                    "or let them finish first."
                )
            if request.purge:
                await storage.purge(conn, principal.api_key, request.definitionId, existing.uid)
            else:
                now = await storage.next_update_time(conn, principal.api_key, now_ms())
                await storage.tombstone(conn, principal.api_key, request.definitionId, now)
        return models.DeletedDefinition(
            deleted=True, purged=request.purge, definitionId=request.definitionId
        )

    def _validate(self, body: models.DefinitionBody) -> models.CompiledGraph:
        problems = lint(body, self._guard)
        if problems:
            raise error_for(problems)
        if needs_app_platform(body):
            raise FailedPrecondition(
                "appTrigger needs a connected app platform, and none is connected to this "
                "workspace."
            )
        return compile_graph(body)

    async def _active(
        self, conn: Any, principal: ApiKeyPrincipal, definition_id: str
    ) -> StoredDefinition:
        stored = await storage.find(conn, principal.api_key, definition_id)
        if stored is None or stored.status != "active":
            raise NotFound(f"Definition {definition_id} not found.")
        return stored

    def _version(
        self,
        principal: ApiKeyPrincipal,
        request: models.DefinitionBody,
        compiled: models.CompiledGraph,
        uid: str,
        version: int,
        created_at: int,
        updated_at: int,
    ) -> NewVersion:
        body: dict[str, Any] = msgspec.to_builtins(request)
        for name in _NOT_STORED:
            body.pop(name, None)
        receiver = request.webhookConfig
        secret = url = event_types = None
        if not isinstance(receiver, UnsetType):
            url = receiver.url
            binding = definition_receiver_binding(principal.api_key, request.definitionId, uid)
            secret = self._sealer.seal(receiver.secret, binding)
            event_types = (
                None if isinstance(receiver.eventTypes, UnsetType) else receiver.eventTypes
            )
        return NewVersion(
            api_key=principal.api_key,
            workspace_id=principal.workspace_id,
            definition_id=request.definitionId,
            uid=uid,
            version=version,
            body=body,
            compiled=msgspec.to_builtins(compiled),
            receiver_url=url,
            receiver_secret=secret,
            receiver_event_types=event_types,
            created_at=created_at,
            updated_at=updated_at,
        )

    def _stored_view(self, stored: StoredDefinition) -> models.DefinitionView:
        status: Literal["active", "tombstoned"] = (
            "active" if stored.status == "active" else "tombstoned"
        )
        return self._view(
            stored.body,
            stored.compiled,
            stored.version,
            status,
            stored.created_at,
            stored.updated_at,
        )

    @staticmethod
    def _view(
        body: dict[str, Any],
        compiled: dict[str, Any],
        version: int,
        status: Literal["active", "tombstoned"],
        created_at: int,
        updated_at: int,
    ) -> models.DefinitionView:
        return models.view(
            msgspec.convert(body, models.DefinitionBody),
            msgspec.convert(compiled, models.CompiledGraph),
            version=version,
            status=status,
            created_at=created_at,
            updated_at=updated_at,
        )

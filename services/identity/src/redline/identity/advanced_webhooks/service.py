"""The advanced webhook endpoint service: endpoints of an API key, each with its URL, event-type
filter, state and a Standard Webhooks signing secret that the API hands back, so it is stored
sealed. Every change commits with `identity.config.advanced_webhook_endpoint_changed`, which
tells notify to read the key's endpoints again (`current`, over NATS)."""

from __future__ import annotations

import builtins
from typing import Any

import msgspec

from redline.envelope import ApiKeyPrincipal, PageTokens
from redline.envelope.errors import FailedPrecondition, InvalidArgument, NotFound
from redline.identity.advanced_webhooks import models, rules, storage
from redline.identity.advanced_webhooks.storage import EndpointRow
from redline.identity.caller import require_key_caller
from redline.identity.key_settings import storage as config_storage
from redline.identity.schema import SCHEMA
from redline.pg import Connection, Pool, write_events
from redline.proto.events import AdvancedWebhookEndpointChanged, epoch_ms
from redline.proto.rpc import AdvancedEndpointState
from redline.runtime.keys import Sealer
from redline.webhooks import AddressGuard

_PAGE_KIND = "advanced-webhook-endpoints"
DEFAULT_LIMIT = 50


class _Cursor(msgspec.Struct, array_like=True, frozen=True):
    seq: int  # the endpoint the page starts after (or, backward, ends before)
    backward: bool


def _not_found() -> NotFound:
    # The hosted product's words for an endpoint it cannot find.
    return NotFound("Advanced webhook provider request failed.")


def _bound(endpoint_id: str) -> str:
    return f"advanced-webhook-endpoint:{endpoint_id}"


def endpoint_view(row: EndpointRow) -> models.Endpoint:
    return models.Endpoint(
        id=row.id,
        url=row.url,
        description=row.description,
        filterTypes=row.filter_types,
        channels=row.channels,
        disabled=row.disabled,
        rateLimit=row.rate_limit,
        uid=row.uid,
        createdAt=rules.iso_time(row.created_at),
        updatedAt=rules.iso_time(row.updated_at),
    )


class AdvancedWebhookService:
    def __init__(
        self, pool: Pool, sealer: Sealer, guard: AddressGuard, page_tokens: PageTokens
    ) -> None:
        self._pool = pool
        self._sealer = sealer
        # Endpoint URLs are checked when saved; notify checks again, resolving, at delivery.
        self._guard = guard
        self._pages = page_tokens

    async def create(
        self, caller: ApiKeyPrincipal, request: models.CreateEndpoint
    ) -> models.Endpoint:
        require_key_caller(caller)
        rules.check_endpoint(msgspec.to_builtins(request), self._guard)
        endpoint_id = rules.new_endpoint_id()
        new = storage.NewEndpoint(
            id=endpoint_id,
            api_key=caller.api_key,
            workspace_id=caller.workspace_id,
            uid=request.uid,
            url=request.url,
            description=request.description,
            filter_types=rules.distinct(request.filterTypes),
            channels=rules.distinct(request.channels),
            disabled=request.disabled is True,
            rate_limit=request.rateLimit,
            metadata=request.metadata,
            secret_sealed=self._sealer.seal(rules.new_secret(), _bound(endpoint_id)),
        )
        async with self._pool.acquire() as conn, conn.transaction():
            await self._lock_enabled(conn, caller)
            if await storage.count(conn, caller.api_key) >= rules.MAX_ENDPOINTS:
                raise FailedPrecondition(
                    f"An API key holds at most {rules.MAX_ENDPOINTS} advanced webhook endpoints."
                )
            row = await storage.insert(conn, new)
            await self._changed(conn, caller, row.id, "created")
        return endpoint_view(row)

    async def list(
        self, caller: ApiKeyPrincipal, request: models.ListEndpoints
    ) -> models.EndpointPage:
        require_key_caller(caller)
        cursor = self._cursor(caller, request.iterator)
        limit = request.limit or DEFAULT_LIMIT
        async with self._pool.acquire() as conn:
            stored = await config_storage.read_config(conn, caller.api_key)
            rules.require_enabled(stored.advanced_webhook)
            if cursor is not None and cursor.backward:
                rows = await storage.page(conn, caller.api_key, None, cursor.seq, limit + 1)
                has_prev, has_next = len(rows) > limit, True
                rows = rows[-limit:]
            else:
                after = cursor.seq if cursor else None
                rows = await storage.page(conn, caller.api_key, after, None, limit + 1)
                has_next = len(rows) > limit
                rows = rows[:limit]
                has_prev = bool(rows) and await storage.exists_before(
                    conn, caller.api_key, rows[0].seq
                )
        iterator = prev = None
        if rows and has_next:
            iterator = self._token(caller, _Cursor(rows[-1].seq, backward=False))
        if rows and has_prev:
            prev = self._token(caller, _Cursor(rows[0].seq, backward=True))
        return models.EndpointPage(
            endpoints=[endpoint_view(row) for row in rows],
            iterator=iterator,
            prevIterator=prev,
            done=not has_next,
        )

    async def update(
        self, caller: ApiKeyPrincipal, request: models.UpdateEndpoint
    ) -> models.Endpoint:
        require_key_caller(caller)
        changes: dict[str, Any] = {
            name: getattr(request, name)
            for name in storage.CHANGEABLE
            if getattr(request, name) is not msgspec.UNSET
        }
        if not changes:
            raise InvalidArgument.field(
                "data",
                "At least one endpoint field besides endpointId must be provided.",
                code="missing_field",
            )
        rules.check_endpoint(changes, self._guard)
        for name in ("filterTypes", "channels"):
            if name in changes:
                changes[name] = rules.distinct(changes[name])
        async with self._pool.acquire() as conn, conn.transaction():
            await self._lock_enabled(conn, caller)
            found = await self._find(conn, caller, request.endpointId)
            row = await storage.update(conn, found.id, changes)
            await self._changed(conn, caller, row.id, "updated")
        return endpoint_view(row)

    async def delete(
        self, caller: ApiKeyPrincipal, request: models.EndpointRefRequest
    ) -> models.EndpointDeleted:
        require_key_caller(caller)
        async with self._pool.acquire() as conn, conn.transaction():
            await self._lock_enabled(conn, caller)
            found = await self._find(conn, caller, request.endpointId)
            await storage.delete(conn, found.id)
            await self._changed(conn, caller, found.id, "deleted")
        return models.EndpointDeleted(endpointId=found.id, deleted=True)

    async def secret(
        self, caller: ApiKeyPrincipal, request: models.EndpointRefRequest
    ) -> models.EndpointSecret:
        require_key_caller(caller)
        async with self._pool.acquire() as conn:
            stored = await config_storage.read_config(conn, caller.api_key)
            rules.require_enabled(stored.advanced_webhook)
            found = await self._find(conn, caller, request.endpointId)
        return models.EndpointSecret(endpointId=found.id, secret=self._unseal(found))

    # for other services (NATS RPC) --------------------------------------------------------------

    async def endpoints_of(self, api_key: str) -> builtins.list[AdvancedEndpointState]:
        """The key's endpoints, oldest first, signing secrets included."""
        rows = await storage.all_of_key(self._pool, api_key)
        return [
            AdvancedEndpointState(
                id=row.id,
                url=row.url,
                filterTypes=row.filter_types,
                channels=row.channels,
                disabled=row.disabled,
                secret=self._unseal(row),
                createdAt=epoch_ms(row.created_at),
                switchedAt=epoch_ms(row.switched_at),
                rateLimit=row.rate_limit,
            )
            for row in rows
        ]

    # helpers ------------------------------------------------------------------------------------

    async def _lock_enabled(self, conn: Connection, caller: ApiKeyPrincipal) -> None:
        """Lock the key's configuration (endpoint changes and config changes of one key go one
        after the other) and require advanced webhooks to be on."""
        stored = await config_storage.lock_config(conn, caller.api_key)
        rules.require_enabled(stored.advanced_webhook)

    async def _find(self, conn: Connection, caller: ApiKeyPrincipal, ref: str) -> EndpointRow:
        row = await storage.find(conn, caller.api_key, ref)
        if row is None:
            raise _not_found()
        return row

    async def _changed(
        self, conn: Connection, caller: ApiKeyPrincipal, endpoint_id: str, change: str
    ) -> None:
        event = AdvancedWebhookEndpointChanged(
            workspaceId=caller.workspace_id,
            apiKey=caller.api_key,
            endpointId=endpoint_id,
            change=change,
        )
        await write_events(conn, SCHEMA, [event])

    def _unseal(self, row: EndpointRow) -> str:
        return self._sealer.unseal(row.secret_sealed, _bound(row.id))

    def _cursor(self, caller: ApiKeyPrincipal, iterator: str | None) -> _Cursor | None:
        if iterator is None:
            return None
        try:
            return self._pages.decode(caller.workspace_id, _PAGE_KIND, iterator, _Cursor)
        except InvalidArgument:
            raise InvalidArgument.field("data.iterator", "Invalid iterator.") from None

    def _token(self, caller: ApiKeyPrincipal, cursor: _Cursor) -> str:
        return self._pages.encode(caller.workspace_id, _PAGE_KIND, cursor)

"""Rules of workspaces, API keys and auth tokens. Every change commits with its event."""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from redline.envelope import PageTokens, Reply, paged
from redline.envelope.auth import ApiKeyPrincipal, WorkspacePrincipal
from redline.envelope.errors import FailedPrecondition, InvalidArgument
from redline.identity import errors, tokens
from redline.identity.access_changes import FORGET_NOTHING, ForgetAccess, forget_if_access_changed
from redline.identity.app_settings.service import store_initial_app
from redline.identity.key_settings import storage as config_storage
from redline.identity.key_settings.copying import copy_config
from redline.identity.key_settings.domains import normalise_domains
from redline.identity.key_settings.initial import store_initial_config, store_initial_email
from redline.identity.schema import SCHEMA
from redline.identity.workspace import models, storage
from redline.pg import Connection, Pool, write_events
from redline.proto.events import (
    ApiKeyCreated,
    ApiKeyUpdated,
    Event,
    KeyRevoked,
    WorkspaceCreated,
    now_ms,
)
from redline.runtime.cache import TtlCache
from redline.webhooks import AddressGuard

# The reference's name of the token every key gets (stored per token: older ones keep theirs).
DEFAULT_TOKEN_NAME = "Default Auth Token"  # noqa: S105 (a label, not a secret)
_PAGE_KIND = "apikeys"


def first_key_name(owner_email: str) -> str:
    """The first key's name, as the reference derives it: the address's local part with a
    capital first letter, then "Test API Key" (`owner@example.com` -> "Owner Test API Key")."""
    local = owner_email.split("@", 1)[0]
    return f"{local[:1].upper()}{local[1:]} Test API Key"


class _KeyCursor(msgspec.Struct, array_like=True):
    after_seq: int


def _allowed_domains(request: models.CreateApiKey) -> list[str]:
    """The domains a new key allows, each once; the same normalisation as domains/add, so both
    store the same spelling of a host."""
    asked = list(request.allowedDomains)
    if request.addLocalHostToAllowedDomains:
        asked.append("localhost")
    return list(dict.fromkeys(normalise_domains(asked, "data.allowedDomains")))


class WorkspaceService:
    def __init__(
        self,
        pool: Pool,
        sealer: tokens.Sealer,
        page_tokens: PageTokens,
        on_revoked: Callable[[str], None],
        webhook_guard: AddressGuard,
        config_sealer: tokens.Sealer,
        workspace_cache_ttl_s: float = 10.0,
        on_access_changed: ForgetAccess = FORGET_NOTHING,
        max_api_keys: int = 100,
    ) -> None:
        self._on_access_changed = on_access_changed
        # Keys one workspace may hold (every key carries configuration, tokens and directory).
        self._max_api_keys = max_api_keys
        self._pool = pool
        # Opens and seals the secrets of keys' configuration (apikey/copy seals them anew).
        self._config_sealer = config_sealer
        # Checks the webhook URLs a new key may be given.
        self._webhook_guard = webhook_guard
        self._sealer = sealer
        self._pages = page_tokens
        # Drops this process's cached checks for an API key before the reset call returns.
        self._on_revoked = on_revoked
        # `/v2/workspace/get` is the hottest read; its document changes only through this service.
        self._workspaces: TtlCache[str, models.Workspace] = TtlCache(workspace_cache_ttl_s)

    def forget_workspace(self, workspace_id: str) -> None:
        self._workspaces.drop(workspace_id)

    # workspaces -------------------------------------------------------------------------------

    async def create_workspace(self, request: models.CreateWorkspace) -> models.Workspace:
        workspace_id = tokens.new_id()
        workspace_token = tokens.new_token()
        # The reference's names: `name` is the owner's (Redline's `ownerName` too), defaulting to
        # the address; the workspace is `workspaceName`, else "<name> workspace".
        owner_name = request.name or request.ownerName or request.ownerEmail
        name = request.workspaceName or f"{owner_name} workspace"
        row = storage.NewWorkspace(
            id=workspace_id,
            name=name,
            owner_id=tokens.new_id(),
            owner_email=request.ownerEmail,
            owner_name=owner_name,
            owner_avatar=request.avatar or "",
            token_hash=tokens.digest(workspace_token),
            token_sealed=self._sealer.seal(workspace_token, workspace_id),
        )
        first_key = models.CreateApiKey(
            apiKeyName=first_key_name(request.ownerEmail), type="testing"
        )
        async with self._pool.acquire() as conn, conn.transaction():
            await storage.insert_workspace(conn, row)
            created_events: list[Event] = [
                WorkspaceCreated(
                    workspaceId=workspace_id,
                    ownerEmail=row.owner_email,
                    name=row.name,
                )
            ]
            await self._insert_api_key(conn, workspace_id, first_key, created_events)
        return await self._workspace(workspace_id)

    async def get_workspace(self, caller: WorkspacePrincipal) -> models.Workspace:
        return await self._workspace(caller.workspace_id)

    async def _workspace(self, workspace_id: str) -> models.Workspace:
        cached = self._workspaces.get(workspace_id)
        if cached is not None:
            return cached
        epoch = self._workspaces.epoch
        found = await storage.workspace_with_keys(self._pool, workspace_id)
        if found is None:
            raise errors.workspace_not_found()
        ws, keys = found
        document = models.Workspace(
            id=ws.id,
            name=ws.name,
            owner=models.Owner(
                email=ws.owner_email, id=ws.owner_id, name=ws.owner_name, avatar=ws.owner_avatar
            ),
            authToken=self._sealer.unseal(ws.token_sealed, ws.id),
            apiKeyList={
                k.api_key: models.ApiKeySummary(apiKeyName=k.name, id=k.api_key, type=k.key_type)
                for k in keys
            },
        )
        self._workspaces.put(workspace_id, document, since=epoch)
        return document

    async def ensure_auth_token(self, caller: WorkspacePrincipal) -> models.WorkspaceAuthToken:
        """The workspace's auth token. Every workspace gets one when it is created and keeps one
        (there is no call that removes it), so there is never one to create: the call answers
        the token the caller presented."""
        workspace = await self._workspace(caller.workspace_id)
        return models.WorkspaceAuthToken(workspaceId=workspace.id, authToken=workspace.authToken)

    # API keys ---------------------------------------------------------------------------------

    async def copy_api_key(
        self, caller: WorkspacePrincipal, request: models.CopyApiKey
    ) -> models.CopiedApiKey:
        """Configure the target key as the source is configured (see `config.copying`)."""
        if request.sourceApiKey == request.targetApiKey:
            raise InvalidArgument.field(
                "data.targetApiKey", "The target must be another API key than the source."
            )
        async with self._pool.acquire() as conn, conn.transaction():
            for api_key in (request.sourceApiKey, request.targetApiKey):
                if await storage.api_key_of_workspace(conn, caller.workspace_id, api_key) is None:
                    raise errors.api_key_not_found()
            source, target = (
                ApiKeyPrincipal(workspace_id=caller.workspace_id, api_key=api_key)
                for api_key in (request.sourceApiKey, request.targetApiKey)
            )
            events = await copy_config(conn, source, target, self._config_sealer, now_ms())
            await write_events(conn, SCHEMA, events)
        # The target may have another permission provider now.
        forget_if_access_changed(self._on_access_changed, target, events)
        return models.CopiedApiKey(
            sourceApiKey=request.sourceApiKey, targetApiKey=request.targetApiKey
        )

    async def create_api_key(
        self, caller: WorkspacePrincipal, request: models.CreateApiKey
    ) -> models.CreatedApiKey:
        events: list[Event] = []
        async with self._pool.acquire() as conn, conn.transaction():
            created = await self._insert_api_key(conn, caller.workspace_id, request, events)
        self.forget_workspace(caller.workspace_id)
        return created

    async def _insert_api_key(
        self,
        conn: Connection,
        workspace_id: str,
        request: models.CreateApiKey,
        events: list[Event],
    ) -> models.CreatedApiKey:
        if request.workspaceId is not None and request.workspaceId != workspace_id:
            raise InvalidArgument.field(
                "data.workspaceId",
                "A key is made in the workspace whose credentials ask for it; leave this out.",
            )
        if await storage.lock_key_count(conn, workspace_id) >= self._max_api_keys:
            raise FailedPrecondition(f"A workspace holds at most {self._max_api_keys} API keys.")
        api_key = tokens.new_id()
        domains = _allowed_domains(request)
        await storage.insert_api_key(
            conn,
            api_key=api_key,
            workspace_id=workspace_id,
            name=request.apiKeyName,
            key_type=request.type,
            domains=domains,
        )
        auth_token = None
        if request.createAuthToken:
            auth_token = await self._insert_token(conn, api_key)
        events.append(
            ApiKeyCreated(
                workspaceId=workspace_id,
                apiKey=api_key,
                apiKeyName=request.apiKeyName,
                keyType=request.type,
            )
        )
        principal = ApiKeyPrincipal(workspace_id=workspace_id, api_key=api_key)
        events += await self._store_initial_settings(conn, principal, request, domains)
        await write_events(conn, SCHEMA, events)
        return models.CreatedApiKey(apiKey=api_key, authToken=auth_token)

    async def _store_initial_settings(
        self,
        conn: Connection,
        key: ApiKeyPrincipal,
        request: models.CreateApiKey,
        domains: list[str],
    ) -> list[Event]:
        """The settings a new key is created with (webhooks, email, app switches); returns
        the events they make."""
        # Webhook settings given here are the key's initial basic webhook configuration.
        events = await store_initial_config(
            conn,
            key,
            request.useWebhookService,
            request.webhookServiceConfig,
            domains,
            self._webhook_guard,
            now_ms(),
        )
        await store_initial_email(
            conn, key.api_key, request.useEmailService, request.emailServiceConfig
        )
        switches = {
            "requireAutoOrgUser": request.requireAutoOrgUser,
            "enablePrivateComments": request.enablePrivateComments,
        }
        await store_initial_app(
            conn, key.api_key, {name: on for name, on in switches.items() if on is not None}
        )
        return events

    async def _insert_token(self, conn: Connection, api_key: str) -> str:
        token = tokens.new_token()
        await storage.insert_auth_token(
            conn,
            api_key,
            DEFAULT_TOKEN_NAME,
            tokens.digest(token),
            self._sealer.seal(token, api_key),
        )
        return token

    async def list_api_keys(
        self, caller: WorkspacePrincipal, request: models.ListApiKeys
    ) -> Reply[list[models.ApiKeySummary]]:
        workspace_id = caller.workspace_id
        after = 0
        if request.pageToken:
            after = self._pages.decode(
                workspace_id, _PAGE_KIND, request.pageToken, _KeyCursor
            ).after_seq
        rows = await storage.api_keys_page(
            self._pool, workspace_id, after, request.pageSize + 1, request.apiKeys
        )
        more = len(rows) > request.pageSize
        rows = rows[: request.pageSize]
        next_token = (
            self._pages.encode(workspace_id, _PAGE_KIND, _KeyCursor(rows[-1].seq)) if more else None
        )
        return paged(
            [models.ApiKeySummary(apiKeyName=r.name, id=r.api_key, type=r.key_type) for r in rows],
            next_token,
        )

    async def update_api_key(
        self, caller: WorkspacePrincipal, request: models.UpdateApiKey
    ) -> None:
        async with self._pool.acquire() as conn, conn.transaction():
            if not await storage.rename_api_key(
                conn, caller.workspace_id, request.apiKey, request.apiKeyName
            ):
                raise errors.api_key_not_found()
            event = ApiKeyUpdated(
                workspaceId=caller.workspace_id,
                apiKey=request.apiKey,
                apiKeyName=request.apiKeyName,
            )
            await write_events(conn, SCHEMA, [event])
        self.forget_workspace(caller.workspace_id)

    # auth tokens ------------------------------------------------------------------------------

    async def get_auth_tokens(
        self, caller: WorkspacePrincipal, request: models.ApiKeyRef
    ) -> models.AuthTokens:
        api_key = request.apiKey
        if await storage.api_key_of_workspace(self._pool, caller.workspace_id, api_key) is None:
            raise errors.api_key_not_found()
        domains = await config_storage.allowed_domains(self._pool, api_key)
        rows = await storage.live_tokens(self._pool, api_key)
        return models.AuthTokens(
            apiKey=api_key,
            authTokens=[
                models.AuthToken(
                    token=self._sealer.unseal(r.token_sealed, api_key), name=r.name, domains=domains
                )
                for r in rows
            ],
        )

    async def reset_auth_token(
        self, caller: WorkspacePrincipal, request: models.ApiKeyRef
    ) -> models.ResetAuthToken:
        api_key = request.apiKey
        async with self._pool.acquire() as conn, conn.transaction():
            if await storage.api_key_of_workspace(conn, caller.workspace_id, api_key) is None:
                raise errors.api_key_not_found()
            await storage.revoke_tokens(conn, api_key)
            token = await self._insert_token(conn, api_key)
            revoked = KeyRevoked(
                workspaceId=caller.workspace_id,
                credential="apiKey",
                apiKey=api_key,
            )
            await write_events(conn, SCHEMA, [revoked])
            domains = await config_storage.allowed_domains(conn, api_key)
        self._on_revoked(api_key)
        return models.ResetAuthToken(
            apiKey=api_key,
            newAuthToken=models.AuthToken(token=token, name=DEFAULT_TOKEN_NAME, domains=domains),
        )

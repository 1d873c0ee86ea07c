"""Rules of users: profiles per API key, and membership at one level (an organization, or one
folder or document in it), which is an access grant on that resource.

- A user is a member at a level when they hold a live grant on that resource. users/get lists
  those; users/update and users/delete of anyone else answer "User does not exist." per user.
- Removal at organization level removes every grant the user holds in the organization (the
  organization, its folders and documents); at folder or document level, only that grant.
- `initial`, when not given, is derived from `name`: the first letters of its first two words,
  uppercased ("Ada Lovelace" -> "AL", "ada" -> "A").
- `accessRole` left out keeps the role a member already has; a new member is an `editor`.
- users/add creates a missing organization always (its `createOrganization` flag is accepted for
  compatibility), and a missing folder or document only with `createFolder` / `createDocument`;
  otherwise the call is NOT_FOUND. The other user endpoints answer NOT_FOUND for an organization,
  folder or document that does not exist.
- These endpoints manage the API key's users: they need the key's own auth token, and a user
  token gets PERMISSION_DENIED.

Every grant change commits with an `identity.access.changed` event, and drops this process's
cached access decisions of the API key before the call returns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from redline.envelope import PageTokens
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument, NotFound, PermissionDenied
from redline.identity.models import users as models
from redline.identity.service import directory
from redline.identity.service.access_model import AccessType
from redline.identity.storage import users as storage
from redline.pg import Connection, Pool, write_events
from redline.proto.events import AccessChanged

_PAGE_KIND = "users"

ADDED = "User added."
UPDATED = "User updated."
DELETED = "User deleted."
DOES_NOT_EXIST = "User does not exist."


class _UserCursor(msgspec.Struct, array_like=True):
    after_user_id: str


def require_key_caller(caller: ApiKeyPrincipal) -> None:
    """Managing users and grants, and minting user tokens, is the API key holder's business."""
    if caller.user_id is not None:
        raise PermissionDenied("This endpoint needs the API key's auth token, not a user token.")


def initial_of(name: str) -> str:
    return "".join(word[0] for word in name.split()[:2]).upper()


def level_of(organization_id: str, document_id: str | None, folder_id: str | None) -> storage.Level:
    if document_id is not None and folder_id is not None:
        raise InvalidArgument.field(
            "data.folderId", "Give either documentId or folderId, not both."
        )
    if document_id is not None:
        return storage.Level(organization_id, "document", document_id)
    if folder_id is not None:
        return storage.Level(organization_id, "folder", folder_id)
    return storage.Level(organization_id, "organization", organization_id)


def unique_ids(ids: Iterable[str], path: str) -> None:
    """Results are keyed by user id, so one user may appear once per call."""
    seen: set[str] = set()
    for index, user_id in enumerate(ids):
        if user_id in seen:
            raise InvalidArgument.field(path.format(index), f"User {user_id!r} appears twice.")
        seen.add(user_id)


def profile_of(user: models.User) -> storage.Profile:
    metadata: dict[str, Any] = {}
    for field in ("photoUrl", "color", "textColor"):
        value = getattr(user, field)
        if value is not None:
            metadata[field] = value
    initial = user.initial
    if initial is None and user.name is not None:
        initial = initial_of(user.name)
    return storage.Profile(user.userId, user.name, user.email, initial, metadata)


async def write_access_changed(
    conn: Connection, workspace_id: str, api_key: str, organization_ids: Iterable[str]
) -> None:
    await write_events(
        conn,
        storage.SCHEMA,
        [
            AccessChanged(workspaceId=workspace_id, apiKey=api_key, organizationId=org)
            for org in sorted(set(organization_ids))
        ],
    )


def _level_name(level: storage.Level) -> str:
    return {"organization": "Organization", "folder": "Folder", "document": "Document"}[
        level.resource_type
    ]


class UsersService:
    def __init__(
        self,
        pool: Pool,
        page_tokens: PageTokens,
        default_access_type: AccessType,
        on_access_changed: Callable[[str], None],
    ) -> None:
        self._pool = pool
        self._pages = page_tokens
        self._default_access_type = default_access_type
        # Drops this process's cached access decisions of an API key.
        self._on_access_changed = on_access_changed

    async def _require_level(
        self, conn: Connection | Pool, api_key: str, level: storage.Level
    ) -> None:
        if not await storage.organization_exists(conn, api_key, level.organization_id):
            raise NotFound("Organization not found.")
        if level.resource_type != "organization" and not await storage.resource_exists(
            conn, api_key, level
        ):
            raise NotFound(f"{_level_name(level)} not found.")

    async def add(
        self, caller: ApiKeyPrincipal, request: models.AddUsers
    ) -> dict[str, models.UserResult]:
        require_key_caller(caller)
        unique_ids((u.userId for u in request.users), "data.users[{}].userId")
        level = level_of(request.organizationId, request.documentId, request.folderId)
        api_key = caller.api_key
        async with self._pool.acquire() as conn, conn.transaction():
            # A missing organization is created whatever `createOrganization` says.
            await directory.ensure_organization(conn, caller, level.organization_id, create=True)
            if level.resource_type == "folder":
                await directory.ensure_folder(
                    conn,
                    caller,
                    level.organization_id,
                    level.resource_id,
                    create=request.createFolder,
                    default_access_type=self._default_access_type,
                )
            elif level.resource_type == "document":
                await directory.ensure_document(
                    conn,
                    caller,
                    level.organization_id,
                    level.resource_id,
                    create=request.createDocument,
                )
            await storage.upsert_profiles(conn, api_key, [profile_of(u) for u in request.users])
            await storage.add_members(
                conn, api_key, level, {u.userId: u.accessRole for u in request.users}
            )
            await write_access_changed(conn, caller.workspace_id, api_key, [level.organization_id])
        self._on_access_changed(api_key)
        return {u.userId: models.UserResult(True, u.userId, ADDED) for u in request.users}

    async def update(
        self, caller: ApiKeyPrincipal, request: models.UpdateUsers
    ) -> dict[str, models.UserResult]:
        require_key_caller(caller)
        unique_ids((u.userId for u in request.users), "data.users[{}].userId")
        level = level_of(request.organizationId, request.documentId, request.folderId)
        api_key = caller.api_key
        async with self._pool.acquire() as conn, conn.transaction():
            await self._require_level(conn, api_key, level)
            found = await storage.update_members(
                conn, api_key, level, {u.userId: u.accessRole for u in request.users}
            )
            await storage.upsert_profiles(
                conn, api_key, [profile_of(u) for u in request.users if u.userId in found]
            )
            if found:
                await write_access_changed(
                    conn, caller.workspace_id, api_key, [level.organization_id]
                )
        if found:
            self._on_access_changed(api_key)
        return {
            u.userId: models.UserResult(
                u.userId in found, u.userId, UPDATED if u.userId in found else DOES_NOT_EXIST
            )
            for u in request.users
        }

    async def delete(
        self, caller: ApiKeyPrincipal, request: models.DeleteUsers
    ) -> dict[str, models.UserResult]:
        require_key_caller(caller)
        unique_ids(request.userIds, "data.userIds[{}]")
        level = level_of(request.organizationId, request.documentId, request.folderId)
        api_key = caller.api_key
        async with self._pool.acquire() as conn, conn.transaction():
            await self._require_level(conn, api_key, level)
            removed = await storage.remove_members(conn, api_key, level, request.userIds)
            if removed:
                await write_access_changed(
                    conn, caller.workspace_id, api_key, [level.organization_id]
                )
        if removed:
            self._on_access_changed(api_key)
        return {
            user_id: models.UserResult(
                user_id in removed, user_id, DELETED if user_id in removed else DOES_NOT_EXIST
            )
            for user_id in request.userIds
        }

    async def get(
        self, caller: ApiKeyPrincipal, request: models.GetUsers
    ) -> tuple[list[models.UserOut], str | None]:
        require_key_caller(caller)
        level = level_of(request.organizationId, request.documentId, request.folderId)
        after = ""
        if request.pageToken:
            after = self._pages.decode(
                caller.workspace_id, _PAGE_KIND, request.pageToken, _UserCursor
            ).after_user_id
        await self._require_level(self._pool, caller.api_key, level)
        rows = await storage.members_page(
            self._pool, caller.api_key, level, request.userIds, after, request.pageSize + 1
        )
        more = len(rows) > request.pageSize
        rows = rows[: request.pageSize]
        next_token = (
            self._pages.encode(caller.workspace_id, _PAGE_KIND, _UserCursor(rows[-1].user_id))
            if more
            else None
        )
        return [
            models.UserOut(
                userId=r.user_id,
                name=r.name,
                email=r.email,
                initial=r.initial,
                accessRole=r.access_role,
                photoUrl=r.metadata.get("photoUrl"),
                color=r.metadata.get("color"),
                textColor=r.metadata.get("textColor"),
            )
            for r in rows
        ], next_token

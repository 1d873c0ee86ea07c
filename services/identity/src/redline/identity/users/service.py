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
  otherwise the call is NOT_FOUND. `parentFolderId` places the folder or document it creates (an
  existing one is not moved); see `directory.ensure.Placement`. The other user endpoints answer
  NOT_FOUND for an organization, folder or document that does not exist.
- users/update with `options.all` changes roles on every live grant of the user (in
  `organizationId`, or in every organization without it), with `options.allDocuments` on every
  document grant in the organization; grants in a disabled organization or on a disabled
  document keep their role. A user holding no grant there "does not exist".
- These endpoints manage the API key's users: they need the key's own auth token, and a user
  token gets PERMISSION_DENIED.

Every grant change commits with an `identity.access.changed` event, and drops this process's
cached access decisions of the API key before the call returns.
"""

from __future__ import annotations

import msgspec

from redline.envelope import PageTokens, Reply, paged
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument
from redline.identity import errors
from redline.identity.access_changes import ForgetAccess, write_access_changed
from redline.identity.caller import require_key_caller
from redline.identity.directory.disable_state.service import require_writable
from redline.identity.directory.ensure import (
    Placement,
    ensure_document,
    ensure_folder,
    ensure_organization,
)
from redline.identity.directory.rules import check_unique, folder_parent
from redline.identity.directory.storage import organization_exists
from redline.identity.fields import AccessType
from redline.identity.users import models, reading, storage
from redline.identity.users.profiles import profile_of
from redline.pg import Connection, Pool

_PAGE_KIND = "users"
_DOC_PAGE_KIND = "docusers"

ADDED = "User added."
UPDATED = "User updated."
DELETED = "User removed."
DOES_NOT_EXIST = "User does not exist."
# Results are keyed by user id, so one user may appear once per call.
_REPEATED = "User {!r} appears twice."


class _UserCursor(msgspec.Struct, array_like=True):
    after_user_id: str


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


async def _require_writable_level(
    conn: Connection, caller: ApiKeyPrincipal, level: storage.Level
) -> None:
    """Members are not added to, or changed in, a disabled organization or document (removing
    them stays possible: it only narrows access)."""
    documents = [level.resource_id] if level.resource_type == "document" else []
    await require_writable(conn, caller.api_key, level.organization_id, documents)


class UsersService:
    def __init__(
        self,
        pool: Pool,
        page_tokens: PageTokens,
        default_access_type: AccessType,
        forget_access: ForgetAccess,
    ) -> None:
        self._pool = pool
        self._pages = page_tokens
        self._default_access_type = default_access_type
        self._forget_access = forget_access

    async def _require_level(
        self, conn: Connection | Pool, caller: ApiKeyPrincipal, level: storage.Level
    ) -> None:
        if not await organization_exists(conn, caller.api_key, level.organization_id):
            raise errors.organization_not_found()
        if level.resource_type != "organization" and not await storage.resource_exists(
            conn, caller.api_key, level
        ):
            raise (
                errors.folder_not_found()
                if level.resource_type == "folder"
                else errors.document_not_found()
            )

    async def add(
        self, caller: ApiKeyPrincipal, request: models.AddUsers
    ) -> dict[str, models.UserResult]:
        require_key_caller(caller)
        check_unique((u.userId for u in request.users), "data.users[{}].userId", _REPEATED)
        level = level_of(request.organizationId, request.documentId, request.folderId)
        placement = self._placement(request, level)
        async with self._pool.acquire() as conn, conn.transaction():
            # A missing organization is created whatever `createOrganization` says.
            await ensure_organization(conn, caller, level.organization_id, create=True)
            await _require_writable_level(conn, caller, level)
            if level.resource_type == "folder":
                await ensure_folder(
                    conn,
                    caller,
                    level.organization_id,
                    level.resource_id,
                    create=request.createFolder,
                    default_access_type=self._default_access_type,
                    placement=placement,
                )
            elif level.resource_type == "document":
                await ensure_document(
                    conn,
                    caller,
                    level.organization_id,
                    level.resource_id,
                    create=request.createDocument,
                    placement=placement,
                )
            await storage.upsert_profiles(
                conn, caller.api_key, [profile_of(u) for u in request.users]
            )
            await storage.add_members(
                conn, caller.api_key, level, {u.userId: u.accessRole for u in request.users}
            )
            await write_access_changed(conn, caller, [level.organization_id])
        self._forget_access(caller.api_key)
        return {u.userId: models.UserResult(True, u.userId, ADDED) for u in request.users}

    def _placement(self, request: models.AddUsers, level: storage.Level) -> Placement | None:
        """Where the folder or document this call creates goes: `parentFolderId`, a folder
        created at the root with `createFolder` when missing."""
        if request.parentFolderId is None:
            return None
        if level.resource_type == "organization":
            raise InvalidArgument.field(
                "data.parentFolderId",
                "parentFolderId places the folder or document this call creates: give folderId"
                " or documentId with it.",
            )
        parent = folder_parent(request.parentFolderId)
        if parent is None:
            return None
        return Placement(parent, request.createFolder, self._default_access_type)

    async def update(
        self, caller: ApiKeyPrincipal, request: models.UpdateUsers
    ) -> dict[str, models.UserResult]:
        require_key_caller(caller)
        check_unique((u.userId for u in request.users), "data.users[{}].userId", _REPEATED)
        scope = update_scope(request)
        if scope is not None:
            return await self._update_in_scope(caller, request, scope)
        if request.organizationId is None:
            raise InvalidArgument.field(
                "data.organizationId",
                "organizationId is required unless options.all is true.",
                code="missing_field",
            )
        level = level_of(request.organizationId, request.documentId, request.folderId)
        async with self._pool.acquire() as conn, conn.transaction():
            await self._require_level(conn, caller, level)
            await _require_writable_level(conn, caller, level)
            found = await storage.update_members(
                conn, caller.api_key, level, {u.userId: u.accessRole for u in request.users}
            )
            await storage.upsert_profiles(
                conn, caller.api_key, [profile_of(u) for u in request.users if u.userId in found]
            )
            if found:
                await write_access_changed(conn, caller, [level.organization_id])
        if found:
            self._forget_access(caller.api_key)
        return _update_results(request, found)

    async def _update_in_scope(
        self, caller: ApiKeyPrincipal, request: models.UpdateUsers, scope: storage.Scope
    ) -> dict[str, models.UserResult]:
        """The official SDK's bulk update: roles change on every grant in `scope` but in a
        disabled organization or on a disabled document; profiles of the users found change."""
        async with self._pool.acquire() as conn, conn.transaction():
            if scope.organization_id is not None:
                level = level_of(scope.organization_id, None, None)
                await self._require_level(conn, caller, level)
                await _require_writable_level(conn, caller, level)
            held = await storage.members_in_scope(
                conn, caller.api_key, scope, [u.userId for u in request.users]
            )
            found = {user_id for user_id, _ in held}
            roles: dict[str, str] = {
                u.userId: u.accessRole
                for u in request.users
                if u.userId in found and u.accessRole is not None
            }
            await storage.set_roles_in_scope(conn, caller.api_key, scope, roles)
            await storage.upsert_profiles(
                conn, caller.api_key, [profile_of(u) for u in request.users if u.userId in found]
            )
            await write_access_changed(conn, caller, {org for _, org in held})
        if found:
            self._forget_access(caller.api_key)
        return _update_results(request, found)

    async def delete(
        self, caller: ApiKeyPrincipal, request: models.DeleteUsers
    ) -> dict[str, models.UserResult]:
        require_key_caller(caller)
        check_unique(request.userIds, "data.userIds[{}]", _REPEATED)
        level = level_of(request.organizationId, request.documentId, request.folderId)
        async with self._pool.acquire() as conn, conn.transaction():
            await self._require_level(conn, caller, level)
            removed = await storage.remove_members(conn, caller.api_key, level, request.userIds)
            if removed:
                await write_access_changed(conn, caller, [level.organization_id])
        if removed:
            self._forget_access(caller.api_key)
        return {
            user_id: models.UserResult(
                user_id in removed, user_id, DELETED if user_id in removed else DOES_NOT_EXIST
            )
            for user_id in request.userIds
        }

    async def get(
        self, caller: ApiKeyPrincipal, request: models.GetUsers
    ) -> Reply[models.UserList | models.GroupedUsers]:
        require_key_caller(caller)
        reading.check_all_documents(request)
        level = level_of(request.organizationId, request.documentId, request.folderId)
        if request.allDocuments:
            await self._require_level(self._pool, caller, level)
            return await reading.all_documents_page(self._pool, self._pages, caller, request)
        after = ""
        if request.pageToken:
            after = self._pages.decode(
                caller.workspace_id, _PAGE_KIND, request.pageToken, _UserCursor
            ).after_user_id
        await self._require_level(self._pool, caller, level)
        rows = await storage.members_page(
            self._pool,
            caller.api_key,
            level,
            request.userIds,
            after,
            request.pageSize + 1,
            request.organizationUserGroupIds,
            request.searchKey,
        )
        more = len(rows) > request.pageSize
        rows = rows[: request.pageSize]
        next_token = (
            self._pages.encode(caller.workspace_id, _PAGE_KIND, _UserCursor(rows[-1].user_id))
            if more
            else None
        )
        involved = await reading.involved_documents(
            self._pool, caller, request, [r.user_id for r in rows]
        )
        users = [reading.user_out(r, request, involved) for r in rows]
        # The token also goes out as `pageToken`, where clients of the hosted API look for it.
        return paged(users, next_token, also_as_page_token=True)

    # counts and document-level users ----------------------------------------------------------

    async def count(self, caller: ApiKeyPrincipal, request: models.CountUsers) -> models.UserCount:
        """Members of the organization; with `documentId`, of that document; with
        `allDocuments`, users with access at document level to any of its documents. `userId`
        narrows the count to that user (1 when they are one, else 0)."""
        require_key_caller(caller)
        if request.allDocuments and request.documentId is not None:
            raise InvalidArgument.field(
                "data.allDocuments", "Give either documentId or allDocuments, not both."
            )
        level = level_of(request.organizationId, request.documentId, None)
        await self._require_level(self._pool, caller, level)
        if request.allDocuments:
            resource_type, resource_id = "document", None
        else:
            resource_type, resource_id = level.resource_type, level.resource_id
        count = await storage.count_members(
            self._pool,
            caller.api_key,
            level.organization_id,
            resource_type,
            resource_id,
            request.userId,
        )
        return models.UserCount(count=count)

    async def document_users(
        self, caller: ApiKeyPrincipal, request: models.GetDocUsers
    ) -> Reply[list[models.DocUser]]:
        """Users with access at document level to some document of the organization, by id."""
        require_key_caller(caller)
        if request.includeInvolvedDocuments:
            reading.check_involved_lookup(request.userIds)
        after = ""
        if request.pageToken:
            after = self._pages.decode(
                caller.workspace_id, _DOC_PAGE_KIND, request.pageToken, _UserCursor
            ).after_user_id
        org_id = request.organizationId
        await self._require_level(self._pool, caller, level_of(org_id, None, None))
        rows = await storage.document_users_page(
            self._pool, caller.api_key, org_id, request.userIds, after, request.pageSize + 1
        )
        more = len(rows) > request.pageSize
        rows = rows[: request.pageSize]
        involved = None
        if request.includeInvolvedDocuments:
            involved = await storage.document_grants(
                self._pool, caller.api_key, org_id, [r.user_id for r in rows]
            )
        next_token = (
            self._pages.encode(caller.workspace_id, _DOC_PAGE_KIND, _UserCursor(rows[-1].user_id))
            if more
            else None
        )
        users = [
            reading.doc_user(r, None if involved is None else involved.get(r.user_id, []))
            for r in rows
        ]
        return paged(users, next_token, also_as_page_token=True)


def update_scope(request: models.UpdateUsers) -> storage.Scope | None:
    """The grants `options` reach; None without them (one level, as the request names it).
    `all` covers `allDocuments`."""
    options = request.options
    if options is None or not (options.all or options.allDocuments):
        return None
    if request.documentId is not None or request.folderId is not None:
        raise InvalidArgument.field(
            "data.options",
            "options.all and options.allDocuments reach beyond one level: give no documentId or"
            " folderId with them.",
        )
    if options.all:
        return storage.Scope(request.organizationId, None)
    if request.organizationId is None:
        raise InvalidArgument.field(
            "data.organizationId",
            "organizationId is required unless options.all is true.",
            code="missing_field",
        )
    return storage.Scope(request.organizationId, "document")


def _update_results(request: models.UpdateUsers, found: set[str]) -> dict[str, models.UserResult]:
    return {
        u.userId: models.UserResult(
            u.userId in found, u.userId, UPDATED if u.userId in found else DOES_NOT_EXIST
        )
        for u in request.users
    }

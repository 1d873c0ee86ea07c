"""Rules of permissions and user tokens (/v2/auth/*).

- permissions/add grants one user a role on each resource (organization, folder, document),
  optionally until `expiresAt` (epoch seconds; an expired grant is kept but never counts). Missing
  organizations, folders (as root folders) and documents are created, since a document commonly
  exists in the caller's product before Redline hears of it. The user's profile is created if
  missing. `accessRole` left out keeps the role already granted there (editor for a new grant).
- permissions/remove deletes the user's grants on the resources named; naming one that holds no
  grant is not an error.
- permissions/get answers, per user, the role on the organization (membership) and the effective
  access to each folder and document asked about, decided by the access model. An entry with no
  access carries `errorCode` `permission_denied`; an organization, folder, document or user that
  does not exist carries `does_not_exist`. A folder or document asked about that does not exist
  makes the answer NOT_FOUND with that map as its details, unless the caller asks to skip the
  check (`skipResourceExistenceValidation`), as the reference does.
- generate_token upserts the user's profile and returns a user token (see `user_tokens`). A
  call from a browser page (it carries an `Origin` header) is refused with PERMISSION_DENIED
  unless the page is on one of the key's allowed domains: the allowed domains say where the key
  may be used in a browser. A server's call carries no `Origin` and is not affected (a server
  may be anywhere; its auth token is what admits it).

Adding, removing and token generation need the API key's own auth token. permissions/get also
takes a user token, and then answers only about that token's user (others: `permission_denied`),
counting the token's resources as grants.
"""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec

from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument, NotFound, PermissionDenied
from redline.identity.access_changes import ForgetAccess, write_access_changed
from redline.identity.caller import require_key_caller
from redline.identity.directory.disable_state.service import require_writable
from redline.identity.directory.ensure import ensure_document, ensure_folder, ensure_organization
from redline.identity.directory.storage import organization_exists
from redline.identity.fields import AccessType, Role
from redline.identity.key_settings import storage as config_storage
from redline.identity.key_settings.domains import allows_origin
from redline.identity.permissions import models, storage
from redline.identity.permissions.access_model import (
    AccessFacts,
    Decision,
    FolderLink,
    decide,
    with_token_grants,
)
from redline.identity.permissions.user_tokens import TokenResource, UserTokens
from redline.identity.users import storage as users_storage
from redline.identity.users.profiles import initial_of
from redline.pg import Connection, Pool

ADDED = "Permissions added successfully."
REMOVED = "Permissions removed successfully."

_DEFAULT_ROLE: Role = "editor"


class _Target:
    """A resource of a permissions request, with its organization resolved."""

    __slots__ = ("organization_id", "resource")

    def __init__(self, organization_id: str, resource: models.Resource) -> None:
        self.organization_id = organization_id
        self.resource = resource

    @property
    def key(self) -> tuple[str, str, str]:
        return self.organization_id, self.resource.type, self.resource.id


def _targets(resources: list[models.Resource], path: str) -> list[_Target]:
    """Resolve each resource's organization; a later entry for the same resource wins."""
    found: dict[tuple[str, str, str], _Target] = {}
    for index, resource in enumerate(resources):
        at = f"{path}[{index}].organizationId"
        if resource.type == "organization":
            if resource.organizationId not in (None, resource.id):
                raise InvalidArgument.field(
                    at, "For an organization, organizationId must equal id (or be left out)."
                )
            target = _Target(resource.id, resource)
        elif resource.organizationId is None:
            raise InvalidArgument.field(
                at,
                f"organizationId is required for a resource of type {resource.type}.",
                code="missing_field",
            )
        else:
            target = _Target(resource.organizationId, resource)
        found.pop(target.key, None)
        found[target.key] = target
    return list(found.values())


def _seconds_to_datetime(seconds: int | None) -> datetime | None:
    return None if seconds is None else datetime.fromtimestamp(seconds, UTC)


class _Facts:
    """Everything permissions/get needs about one organization, loaded up front."""

    def __init__(
        self,
        organization_id: str,
        documents: dict[str, storage.DocumentRow],
        folders: dict[str, storage.FolderRow],
    ) -> None:
        self.organization_id = organization_id
        self.documents = documents
        self.folders = folders

    def chain(self, folder_id: str | None) -> list[FolderLink]:
        """The folder, then its ancestors nearest first."""
        folder = self.folders.get(folder_id) if folder_id is not None else None
        if folder is None:
            return []
        links = [FolderLink(folder.folder_id, folder.inherit_from_parent)]
        for ancestor in reversed(folder.ancestors):
            row = self.folders.get(ancestor)
            if row is not None:
                links.append(FolderLink(row.folder_id, row.inherit_from_parent))
        return links

    def document(self, document_id: str, grants: dict[tuple[str, str], Role]) -> AccessFacts:
        row = self.documents[document_id]
        return AccessFacts(
            self.organization_id,
            document_id,
            row.access_type,  # type: ignore[arg-type]
            self.chain(row.folder_id),
            grants,
        )

    def folder(self, folder_id: str, grants: dict[tuple[str, str], Role]) -> AccessFacts:
        # A folder's access is that of a document inside it with no grant or type of its own.
        row = self.folders[folder_id]
        return AccessFacts(
            self.organization_id,
            "",
            row.effective_access_type,  # type: ignore[arg-type]
            self.chain(folder_id),
            grants,
        )


def _deciding_grant(facts: AccessFacts, decision: Decision) -> tuple[str, str] | None:
    if decision.via == "document":
        return "document", facts.document_id
    if decision.via == "organization":
        return "organization", facts.organization_id
    if decision.via == "folder":
        for link in facts.folders:
            if ("folder", link.folder_id) in facts.grants:
                return "folder", link.folder_id
    return None


def _profile_of(user_id: str, props: models.UserProperties) -> users_storage.Profile:
    """The profile a token's user properties give its user."""
    metadata: dict[str, object] = {}
    if props.isAdmin is not None:
        metadata["isAdmin"] = props.isAdmin
    return users_storage.Profile(
        user_id,
        props.name,
        props.email,
        initial_of(props.name) if props.name is not None else None,
        metadata,
    )


def _denied(what: str) -> models.Access:
    return models.Access(
        error=f"The user has no access to this {what}.", errorCode="permission_denied"
    )


def _missing(what: str) -> models.Access:
    return models.Access(error=f"{what} does not exist.", errorCode="does_not_exist")


def _live_grants(
    rows: list[storage.LiveGrant], user_ids: list[str]
) -> tuple[dict[str, dict[tuple[str, str], Role]], dict[tuple[str, str, str], int]]:
    """Each user's live grants by resource, and when those that expire do (user, resource)."""
    grants: dict[str, dict[tuple[str, str], Role]] = {u: {} for u in user_ids}
    expiries: dict[tuple[str, str, str], int] = {}
    for row in rows:
        grants[row.user_id][(row.resource_type, row.resource_id)] = row.access_role  # type: ignore[assignment]
        if row.expires_at is not None:
            expiries[(row.user_id, row.resource_type, row.resource_id)] = int(
                row.expires_at.timestamp()
            )
    return grants, expiries


class _Answer:
    """permissions/get's answer for one user of an organization that exists, from the facts
    loaded up front: the organization, each folder and each document asked about."""

    def __init__(
        self,
        facts: _Facts,
        expiries: dict[tuple[str, str, str], int],
        default_access_type: AccessType,
        folder_ids: list[str],
        document_ids: list[str],
    ) -> None:
        self._facts = facts
        self._expiries = expiries
        self._default_access_type = default_access_type
        self._folder_ids = folder_ids
        self._document_ids = document_ids

    def permissions(
        self, user_id: str, grants: dict[tuple[str, str], Role]
    ) -> models.UserPermissions:
        facts, org = self._facts, self._facts.organization_id
        org_role = grants.get(("organization", org))
        return models.UserPermissions(
            organization={
                org: models.Access(
                    accessRole=org_role,
                    expiresAt=self._expiries.get((user_id, "organization", org)),
                )
                if org_role is not None
                else _denied("organization")
            },
            folders={
                f: self._access(user_id, facts.folder(f, grants), "folder")
                if f in facts.folders
                else _missing("Folder")
                for f in self._folder_ids
            },
            documents={
                d: self._access(user_id, facts.document(d, grants), "document")
                if d in facts.documents
                else _missing("Document")
                for d in self._document_ids
            },
        )

    def without_organization(self) -> models.UserPermissions:
        return models.UserPermissions(
            organization={self._facts.organization_id: _missing("Organization")},
            folders={f: _missing("Folder") for f in self._folder_ids},
            documents={d: _missing("Document") for d in self._document_ids},
        )

    def missing(self) -> list[str]:
        """The folders and documents asked about that do not exist."""
        return [f for f in self._folder_ids if f not in self._facts.folders] + [
            d for d in self._document_ids if d not in self._facts.documents
        ]

    def _access(self, user_id: str, facts_of: AccessFacts, what: str) -> models.Access:
        decision = decide(facts_of, self._default_access_type)
        if decision.role is None:
            return _denied(what)
        deciding = _deciding_grant(facts_of, decision)
        expires = self._expiries.get((user_id, *deciding)) if deciding is not None else None
        return models.Access(
            accessRole=decision.role, accessType=decision.access_type, expiresAt=expires
        )


class PermissionsService:
    def __init__(
        self,
        pool: Pool,
        default_access_type: AccessType,
        user_tokens: UserTokens,
        forget_access: ForgetAccess,
    ) -> None:
        self._pool = pool
        self._default_access_type: AccessType = default_access_type
        self._user_tokens = user_tokens
        self._forget_access = forget_access

    async def add(self, caller: ApiKeyPrincipal, request: models.AddPermissions) -> None:
        require_key_caller(caller)
        targets = _targets(request.permissions.resources, "data.permissions.resources")
        user_id = request.user.userId
        async with self._pool.acquire() as conn, conn.transaction():
            await self._ensure_targets(conn, caller, targets)
            await users_storage.upsert_profiles(
                conn, caller.api_key, [users_storage.Profile(user_id)]
            )
            await storage.upsert_grants(
                conn,
                caller.api_key,
                user_id,
                [
                    storage.GrantRow(
                        t.organization_id,
                        t.resource.type,
                        t.resource.id,
                        t.resource.accessRole,
                        _seconds_to_datetime(t.resource.expiresAt),
                    )
                    for t in targets
                ],
            )
            await write_access_changed(conn, caller, (t.organization_id for t in targets))
        self._forget_access(caller.api_key)

    async def _ensure_targets(
        self, conn: Connection, caller: ApiKeyPrincipal, targets: list[_Target]
    ) -> None:
        """Make sure every resource granted on exists, creating what is missing, and refuse
        grants in a disabled organization or on a disabled document."""
        for org in sorted({t.organization_id for t in targets}):
            await ensure_organization(conn, caller, org, create=True)
            documents = [
                t.resource.id
                for t in targets
                if t.organization_id == org and t.resource.type == "document"
            ]
            await require_writable(conn, caller.api_key, org, documents)
        for target in targets:
            if target.resource.type == "folder":
                await ensure_folder(
                    conn,
                    caller,
                    target.organization_id,
                    target.resource.id,
                    create=True,
                    default_access_type=self._default_access_type,
                )
            elif target.resource.type == "document":
                await ensure_document(
                    conn, caller, target.organization_id, target.resource.id, create=True
                )

    async def remove(self, caller: ApiKeyPrincipal, request: models.RemovePermissions) -> None:
        require_key_caller(caller)
        targets = _targets(request.permissions.resources, "data.permissions.resources")
        async with self._pool.acquire() as conn, conn.transaction():
            removed = await storage.delete_grants(
                conn, caller.api_key, request.userId, [t.key for t in targets]
            )
            if removed:
                await write_access_changed(conn, caller, (t.organization_id for t in targets))
        if removed:
            self._forget_access(caller.api_key)

    async def get(
        self, caller: ApiKeyPrincipal, request: models.GetPermissions
    ) -> dict[str, models.UserPermissions]:
        org = request.organizationId
        user_ids = list(dict.fromkeys(request.userIds))
        document_ids = list(dict.fromkeys(request.documentIds or []))
        folder_ids = list(dict.fromkeys(request.folderIds or []))
        async with self._pool.acquire() as conn:
            org_exists = await organization_exists(conn, caller.api_key, org)
            users = await users_storage.existing_users(conn, caller.api_key, user_ids)
            documents = await storage.documents(conn, caller.api_key, org, document_ids)
            wanted_folders = folder_ids + [
                d.folder_id for d in documents.values() if d.folder_id is not None
            ]
            folders = await storage.folders_with_ancestors(
                conn, caller.api_key, org, wanted_folders
            )
            rows = await storage.live_grants(
                conn,
                caller.api_key,
                org,
                [u for u in user_ids if u in users],
                document_ids,
                list(folders),
            )
        grants, expiries = _live_grants(rows, user_ids)
        if caller.user_id is not None and caller.user_id in grants:
            grants[caller.user_id] = with_token_grants(
                grants[caller.user_id],
                {(t, i): r for t, i, o, r in caller.grants if o == org},
            )
        facts = _Facts(org, documents, folders)
        answer = _Answer(facts, expiries, self._default_access_type, folder_ids, document_ids)
        result: dict[str, models.UserPermissions] = {}
        for user_id in user_ids:
            if caller.user_id is not None and user_id != caller.user_id:
                result[user_id] = models.UserPermissions(
                    error="A user token may only read its own user's permissions.",
                    errorCode="permission_denied",
                )
            elif user_id not in users:
                result[user_id] = models.UserPermissions(
                    error="User does not exist.", errorCode="does_not_exist"
                )
            elif not org_exists:
                result[user_id] = answer.without_organization()
            else:
                result[user_id] = answer.permissions(user_id, grants[user_id])
        if answer.missing() and not request.skipResourceExistenceValidation:
            raise NotFound(
                "Folder or document does not exist",
                details={user: msgspec.to_builtins(entry) for user, entry in result.items()},
            )
        return result

    async def generate_token(
        self, caller: ApiKeyPrincipal, request: models.GenerateToken, origin: str | None = None
    ) -> models.GeneratedToken:
        """`origin`: the request's `Origin` header, None when it carries none."""
        require_key_caller(caller)
        if origin is not None:
            domains = await config_storage.allowed_domains(self._pool, caller.api_key)
            if not allows_origin(domains, origin):
                raise PermissionDenied(
                    "The request's origin is not an allowed domain of this API key."
                )
        resources = request.permissions.resources if request.permissions is not None else []
        targets = _targets(resources, "data.permissions.resources")
        props = request.userProperties or models.UserProperties()
        async with self._pool.acquire() as conn, conn.transaction():
            await users_storage.upsert_profiles(
                conn, caller.api_key, [_profile_of(request.userId, props)]
            )
        token = self._user_tokens.issue(
            workspace_id=caller.workspace_id,
            api_key=caller.api_key,
            user_id=request.userId,
            resources=[
                TokenResource(
                    type=t.resource.type,
                    id=t.resource.id,
                    organizationId=t.organization_id,
                    accessRole=t.resource.accessRole or _DEFAULT_ROLE,
                    expiresAt=t.resource.expiresAt,
                )
                for t in targets
            ],
            name=props.name,
            email=props.email,
            is_admin=props.isAdmin,
            organization_id=props.organizationId,
        )
        return models.GeneratedToken(token=token)

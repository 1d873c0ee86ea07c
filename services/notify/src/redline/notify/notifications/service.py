"""Rules of the notification endpoints, and how a notification reaches users' feeds.

- Everything is scoped by workspace, API key and organization: a notification of another key,
  workspace or organization is, to the caller, not there. A user token reads only its own feed.
- add: one notification for the users named in `notifyUsers`, and with `notifyAll` (the default)
  for every user of the organization. `notificationId` makes adding idempotent (an id the key
  uses in another organization is ALREADY_EXISTS). With `verifyUserPermissions` only named users
  with access to the document receive it, and `notifyAll` is not applied.
- A user receives a notification as their inbox preference says (`preferences.receives`): a
  named user is directly involved; a notifyAll notification involves nobody in particular.
- get: a user's feed (`userId`, each entry with `isRead`) or a document's notifications; keyset
  paging on (timestamp, id), the signed token bound to the organization, order and user.
- update: each notification named and matching the filters gets the fields sent; readByUserIds
  (and Redline's unreadByUserIds) set those users' read state. One outcome per id.
- delete: with `userId` the notifications leave that user's feed only; without, they are gone.
"""

from __future__ import annotations

import uuid
from typing import Any

import msgspec

from redline.envelope import PageTokens, Reply, paged
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import AlreadyExists, InvalidArgument, PermissionDenied
from redline.notify.notifications import models, storage
from redline.notify.notifications.preferences import receives
from redline.pg import Connection, Pool
from redline.proto.events import now_ms
from redline.proto.rpc import EnsureDocument
from redline.runtime.access import AccessClient
from redline.runtime.known_documents import KnownDocuments

_PAGE_KIND = "notify.notifications"

ADDED = "Notification added successfully."
UPDATED = "Notification updated."
NOT_UPDATED = "Failed to update notification."
DELETED = "Notification deleted."
NOT_DELETED = "Failed to delete notification."

# Fields of an update item that replace the notification's own.
CONTENT = tuple(
    f.name for f in msgspec.structs.fields(models.Content) if f.name not in ("metadata",)
)


class _Cursor(msgspec.Struct, array_like=True):
    organization_id: str
    descending: bool
    user_id: str | None
    timestamp: int
    id: str


def own_user(caller: ApiKeyPrincipal, user_id: str | None, path: str) -> str | None:
    """The user a request is about: a user token is only ever about its own user."""
    if caller.user_id is None:
        return user_id
    if user_id is not None and user_id != caller.user_id:
        raise PermissionDenied(f"{path}: a user token reads and sets only its own user's data.")
    return caller.user_id


async def put_in_feeds(
    conn: Connection,
    workspace_id: str,
    record: models.Notification,
    users: list[str],
    *,
    direct: bool,
    notify_all: bool = False,
    location_id: str | None = None,
) -> bool:
    """Store the notification and give it to each user whose preference takes it; False (and
    nothing written) when its id is taken already."""
    inserted = await storage.insert(
        conn, workspace_id, record, notify_all=notify_all, location_id=location_id
    )
    if inserted:
        await give(conn, record, users, direct=direct)
    return inserted


async def takers(
    conn: Connection,
    channel: str,
    record: models.Notification,
    users: list[str],
    *,
    direct: bool,
) -> list[str]:
    """The users whose preference for the channel (inbox, email) takes the notification."""
    if not users:
        return []
    meta = record.metadata
    prefs = await storage.preferences(
        conn, channel, meta.apiKey, meta.organizationId, meta.documentId, users
    )
    return [u for u in users if receives(prefs.get(u, "ALL"), direct=direct)]


async def give(
    conn: Connection, record: models.Notification, users: list[str], *, direct: bool
) -> None:
    """Put the notification in the feeds of the users whose preference takes it."""
    taking = await takers(conn, "inbox", record, users, direct=direct)
    if taking:
        await storage.add_recipients(conn, record, taking)


async def _rename(
    conn: Connection, before: models.Notification, after: models.Notification
) -> None:
    """Users no longer named leave the feed (unless notifyAll keeps them); new ones join it."""
    gone = [u for u in before.notifyUsers if u not in after.notifyUsers]
    new = [u for u in after.notifyUsers if u not in before.notifyUsers]
    if gone:
        await storage.unname(conn, after, gone)
    await give(conn, after, new, direct=True)


def _plain(value: msgspec.Struct | None) -> Any:
    return None if value is None else msgspec.to_builtins(value)


def _location_id(location: dict[str, Any] | None) -> str | None:
    for name in ("id", "locationId"):
        value = (location or {}).get(name)
        if isinstance(value, str | int) and not isinstance(value, bool):
            return str(value)
    return None


def _check_add(request: models.AddNotification) -> None:
    if not request.isNotificationResolverUsed:
        for name in ("displayHeadlineMessageTemplate", "displayBodyMessage"):
            if getattr(request, name) is None:
                raise InvalidArgument.field(
                    f"data.{name}",
                    f"{name} is required unless isNotificationResolverUsed is true.",
                    "missing_field",
                )
    if not request.notifyAll and not request.notifyUsers:
        raise InvalidArgument.field(
            "data.notifyUsers", "notifyUsers is required when notifyAll is false.", "missing_field"
        )


def _optional(value: Any) -> Any:
    return msgspec.UNSET if value is None else value


def added_record(
    caller: ApiKeyPrincipal, request: models.AddNotification, named: list[str], notify_all: bool
) -> models.Notification:
    users = dict.fromkeys(named, True)
    return models.Notification(
        id=request.notificationId or uuid.uuid4().hex,
        notificationSource=request.notificationSource or "custom",
        notificationSourceData=request.notificationSourceData,
        actionUser=_plain(request.actionUser),
        displayHeadlineMessageTemplate=request.displayHeadlineMessageTemplate,
        displayHeadlineMessageTemplateData=request.displayHeadlineMessageTemplateData,
        displayBodyMessage=request.displayBodyMessage,
        metadata=models.NotificationMetadata(
            apiKey=caller.api_key,
            organizationId=request.organizationId,
            documentId=request.documentId,
        ),
        notifyUsers=users,
        notifyUsersByUserId=dict(users),
        timestamp=now_ms(),
        notifyAll=notify_all,
        displayBodyMessageTemplate=_optional(request.displayBodyMessageTemplate),
        displayBodyMessageTemplateData=_optional(request.displayBodyMessageTemplateData),
        location=_optional(request.location),
        context=_optional(_plain(request.context)),
        isNotificationResolverUsed=_optional(request.isNotificationResolverUsed),
    )


def _changed(record: models.Notification, change: models.NotificationChange) -> models.Notification:
    """The record with the content fields the change sends; notifyUsers replaced when sent."""
    updates = {name: getattr(change, name) for name in CONTENT}
    updates = {name: value for name, value in updates.items() if value is not None}
    for name in ("actionUser", "context"):
        if name in updates:
            updates[name] = _plain(updates[name])
    if change.notifyUsers is not None:
        users = dict.fromkeys((u.userId for u in change.notifyUsers), True)
        updates["notifyUsers"], updates["notifyUsersByUserId"] = users, dict(users)
    changed: models.Notification = msgspec.structs.replace(record, **updates)
    return changed


class NotificationService:
    def __init__(
        self,
        pool: Pool,
        documents: KnownDocuments,
        access: AccessClient,
        page_tokens: PageTokens,
        page_byte_budget: int,
    ) -> None:
        self._pool = pool
        self._documents = documents
        self._access = access
        self._tokens = page_tokens
        self._page_byte_budget = page_byte_budget

    async def add(self, caller: ApiKeyPrincipal, request: models.AddNotification) -> models.Added:
        _check_add(request)
        if request.createOrganization or request.createDocument:
            ensure = EnsureDocument(
                apiKey=caller.api_key,
                organizationId=request.organizationId,
                documentId=request.documentId,
                createOrganization=request.createOrganization,
                createDocument=request.createDocument,
            )
            await self._documents.ensure(ensure)
        named = list(dict.fromkeys(u.userId for u in request.notifyUsers or []))
        notify_all = request.notifyAll
        if request.verifyUserPermissions:
            named = [u for u in named if await self._may_read(caller, request, u)]
            notify_all = False
        record = added_record(caller, request, named, notify_all)
        location_id = _location_id(request.location)
        async with self._pool.acquire() as conn, conn.transaction():
            inserted = await put_in_feeds(
                conn,
                caller.workspace_id,
                record,
                named,
                direct=True,
                notify_all=notify_all,
                location_id=location_id,
            )
            if not inserted:
                owner = await storage.organization_of(
                    conn, caller.workspace_id, caller.api_key, record.id
                )
                if owner != request.organizationId:
                    raise AlreadyExists(
                        "data.notificationId: the API key uses this id in another organization."
                    )
        return models.Added(success=True, message=ADDED, notificationId=record.id)

    async def _may_read(
        self, caller: ApiKeyPrincipal, request: models.AddNotification, user_id: str
    ) -> bool:
        decision = await self._access.check(
            caller.api_key, request.organizationId, request.documentId, user_id
        )
        return decision.role is not None

    async def get(
        self, caller: ApiKeyPrincipal, request: models.GetNotifications
    ) -> Reply[list[models.Notification]]:
        """A page; the next page's token goes out as `pageToken` (the reference's name) and as
        `nextPageToken`."""
        user_id = own_user(caller, request.userId, "data.userId")
        if user_id is None and request.documentId is None:
            raise InvalidArgument.field(
                "data.userId", "Give documentId or userId.", "missing_field"
            )
        scope = storage.Scope(
            caller.workspace_id,
            caller.api_key,
            request.organizationId,
            document_id=request.documentId,
            location_id=request.locationId,
            user_id=user_id,
            ids=request.notificationIds or None,
        )
        descending = request.order == "desc"
        after = None
        if request.pageToken is not None:
            after = self._decode_token(caller, request, user_id, request.pageToken)
        size = request.pageSize or models.DEFAULT_PAGE_SIZE
        rows, more = await storage.select_page(
            self._pool, scope, descending, after, size, self._page_byte_budget
        )
        next_token = None
        if more:
            last = rows[-1].record
            cursor = _Cursor(request.organizationId, descending, user_id, last.timestamp, last.id)
            next_token = self._tokens.encode(caller.workspace_id, _PAGE_KIND, cursor)
        records = [
            r.record
            if user_id is None
            else msgspec.structs.replace(r.record, isRead=bool(r.is_read))
            for r in rows
        ]
        return paged(records, next_token, also_as_page_token=True)

    def _decode_token(
        self,
        caller: ApiKeyPrincipal,
        request: models.GetNotifications,
        user_id: str | None,
        token: str,
    ) -> storage.Cursor:
        cursor = self._tokens.decode(caller.workspace_id, _PAGE_KIND, token, _Cursor)
        if (cursor.organization_id, cursor.descending, cursor.user_id) != (
            request.organizationId,
            request.order == "desc",
            user_id,
        ):
            raise InvalidArgument.field(
                "data.pageToken", "The page token belongs to another query."
            )
        return storage.Cursor(cursor.timestamp, cursor.id)

    async def update(
        self, caller: ApiKeyPrincipal, request: models.UpdateNotifications
    ) -> dict[str, models.Outcome]:
        ids = list(dict.fromkeys(c.id for c in request.notifications))
        scope = storage.Scope(
            caller.workspace_id,
            caller.api_key,
            request.organizationId,
            document_id=request.documentId,
            location_id=request.locationId,
            user_id=request.userId,
            ids=ids,
        )
        outcomes: dict[str, models.Outcome] = {}
        async with self._pool.acquire() as conn, conn.transaction():
            found = await storage.select_for_update(conn, scope)
            for change in request.notifications:
                record = found.get(change.id)
                if record is None:
                    outcomes[change.id] = models.Outcome(False, NOT_UPDATED)
                    continue
                found[change.id] = await self._apply(conn, record, change)
                outcomes[change.id] = models.Outcome(True, UPDATED)
        return outcomes

    async def _apply(
        self, conn: Connection, record: models.Notification, change: models.NotificationChange
    ) -> models.Notification:
        updated = _changed(record, change)
        if updated != record:
            await storage.save(conn, updated)
        if change.notifyUsers is not None:
            await _rename(conn, record, updated)
        if change.readByUserIds:
            await storage.set_state(conn, updated, change.readByUserIds, "is_read", True)
        if change.unreadByUserIds:
            await storage.set_state(conn, updated, change.unreadByUserIds, "is_read", False)
        return updated

    async def delete(
        self, caller: ApiKeyPrincipal, request: models.DeleteNotifications
    ) -> dict[str, models.Outcome]:
        ids = list(dict.fromkeys(request.notificationIds or [])) or None
        filters = (request.documentId, request.locationId, request.userId, ids)
        if all(f is None for f in filters):
            raise InvalidArgument.field(
                "data.notificationIds",
                "Give notificationIds, documentId, locationId or userId.",
                "missing_field",
            )
        scope = storage.Scope(
            caller.workspace_id,
            caller.api_key,
            request.organizationId,
            document_id=request.documentId,
            location_id=request.locationId,
            user_id=request.userId,
            ids=ids,
        )
        async with self._pool.acquire() as conn, conn.transaction():
            found = await storage.select_for_update(conn, scope)
            if request.userId is not None:
                for record in found.values():
                    await storage.set_state(conn, record, [request.userId], "hidden", True)
            elif found:
                await storage.delete(conn, caller.api_key, list(found))
        outcomes = {i: models.Outcome(True, DELETED) for i in sorted(found)}
        if ids is None:
            return outcomes
        return {i: outcomes.get(i, models.Outcome(False, NOT_DELETED)) for i in ids}

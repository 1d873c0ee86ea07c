"""Rules of the activity log endpoints.

- Everything is scoped by workspace, API key and organization: a record of another key,
  workspace or organization is, to the caller, not there.
- get: filters are ANDed; an empty list filter counts as absent. Keyset paging on (timestamp, id),
  `desc` newest first; the signed token carries the organization and order, and a token of
  another listing, workspace, organization or order is INVALID_ARGUMENT at `data.pageToken`.
- add: custom records (`featureType` custom), all in one transaction. A record with a given `id`
  that exists already is returned as stored, unchanged (an id the key uses in another
  organization is ALREADY_EXISTS); without an id one is generated. `timestamp` defaults to now.
- update: the fields sent replace the stored ones; an immutable record is FAILED_PRECONDITION,
  and `immutable` may only be turned on.
- delete: one outcome per id, in one transaction; immutable records are kept and say so.
"""

from __future__ import annotations

import uuid
from typing import Any

import msgspec

from redline.envelope import PageTokens, Reply, paged
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    Issue,
    NotFound,
)
from redline.notify.activities import models, storage
from redline.notify.activities.changes import ID_PREFIX
from redline.pg import Pool
from redline.proto.events import now_ms

_PAGE_KIND = "notify.activities"

DELETED = "Activity deleted."
NOT_FOUND = "Activity not found."
IMMUTABLE = "Activity is immutable."

# Records are stored as they are returned; decoding gives back the same keys in the same order.
_ACTIVITY = msgspec.json.Decoder(models.Activity)


class _Cursor(msgspec.Struct, array_like=True):
    organization_id: str
    descending: bool
    timestamp: int
    id: str


def new_activity_id() -> str:
    return ID_PREFIX + uuid.uuid4().hex


def _changes(changes: dict[str, models.Change] | None) -> dict[str, dict[str, Any]]:
    return {name: {"from": c.from_, "to": c.to} for name, c in (changes or {}).items()}


def _user(user: models.User | None) -> dict[str, Any] | None:
    if user is None:
        return None
    plain: dict[str, Any] = msgspec.to_builtins(user)
    return plain


def custom_record(
    caller: ApiKeyPrincipal, request: models.AddActivities, new: models.NewActivity, now: int
) -> models.Activity:
    return models.Activity(
        id=new.id if new.id is not None else new_activity_id(),
        featureType="custom",
        actionType=new.actionType,
        actionUser=_user(new.actionUser),
        timestamp=new.timestamp if new.timestamp is not None else now,
        metadata=models.ActivityMetadata(
            apiKey=caller.api_key,
            organizationId=request.organizationId,
            documentId=request.documentId,
        ),
        targetEntityId=new.targetEntityId,
        targetSubEntityId=new.targetSubEntityId,
        changes=_changes(new.changes),
        entityData=new.entityData,
        immutable=new.immutable,
    )


def _updates(request: models.UpdateActivity) -> dict[str, Any]:
    """The record fields the request replaces; INVALID_ARGUMENT when there are none."""
    sent = {name: getattr(request, name) for name in models.UPDATABLE}
    sent = {name: value for name, value in sent.items() if value is not None}
    if not sent:
        raise InvalidArgument.field(
            "data",
            "Give at least one of " + ", ".join(models.UPDATABLE) + ".",
            "missing_field",
        )
    if sent.get("immutable") is False:
        raise InvalidArgument.field("data.immutable", "immutable can only be turned on.")
    if "actionUser" in sent:
        sent["actionUser"] = _user(request.actionUser)
    if "changes" in sent:
        sent["changes"] = _changes(request.changes)
    return sent


class ActivityService:
    def __init__(self, pool: Pool, page_tokens: PageTokens, default_page_size: int) -> None:
        self._pool = pool
        self._tokens = page_tokens
        self._default_page_size = default_page_size

    async def get(
        self, caller: ApiKeyPrincipal, request: models.GetActivities
    ) -> Reply[list[models.Activity]]:
        """A page of records; the next page's token goes out as `nextPageToken` and as
        `pageToken`, where clients of the hosted API look for it."""
        size = request.pageSize or self._default_page_size
        query = storage.ActivityQuery(
            caller.workspace_id,
            caller.api_key,
            request.organizationId,
            document_id=request.documentId,
            target_entity_id=request.targetEntityId,
            feature_types=list(request.featureTypes or []),
            action_types=request.actionTypes,
            user_id=request.userId,
            ids=request.activityIds,
            descending=request.order == "desc",
            limit=size + 1,
        )
        if request.pageToken is not None:
            query.after = self._decode_token(caller, request, request.pageToken)
        rows = await storage.select_page(self._pool, query)
        next_token = None
        if len(rows) > size:
            rows = rows[:size]
            last = rows[-1]
            cursor = _Cursor(
                request.organizationId, query.descending, last["timestamp"], last["id"]
            )
            next_token = self._tokens.encode(caller.workspace_id, _PAGE_KIND, cursor)
        records = [_ACTIVITY.decode(r["record"]) for r in rows]
        return paged(records, next_token, also_as_page_token=True)

    def _decode_token(
        self, caller: ApiKeyPrincipal, request: models.GetActivities, token: str
    ) -> storage.Cursor:
        cursor = self._tokens.decode(caller.workspace_id, _PAGE_KIND, token, _Cursor)
        if cursor.organization_id != request.organizationId or cursor.descending != (
            request.order == "desc"
        ):
            raise InvalidArgument.field(
                "data.pageToken", "The page token belongs to another query."
            )
        return storage.Cursor(cursor.timestamp, cursor.id)

    async def add(
        self, caller: ApiKeyPrincipal, request: models.AddActivities
    ) -> list[models.Activity]:
        now = now_ms()
        records = [custom_record(caller, request, new, now) for new in request.activities]
        ids = [r.id for r in records]
        async with self._pool.acquire() as conn, conn.transaction():
            await storage.insert(conn, caller.workspace_id, records)
            stored = await storage.by_ids(conn, caller.workspace_id, caller.api_key, ids)
            taken = [
                Issue(
                    "already_exists",
                    f"data.activities[{index}].id",
                    "The API key uses this id in another organization.",
                )
                for index, activity_id in enumerate(ids)
                if stored[activity_id].organization_id != request.organizationId
            ]
            if taken:
                raise AlreadyExists(
                    "; ".join(f"{i.path}: {i.message}" for i in taken),
                    details={"issues": [msgspec.to_builtins(i) for i in taken]},
                )
        return [_ACTIVITY.decode(stored[activity_id].record) for activity_id in ids]

    async def update(
        self, caller: ApiKeyPrincipal, request: models.UpdateActivity
    ) -> models.Activity:
        updates = _updates(request)
        async with self._pool.acquire() as conn, conn.transaction():
            current = await storage.get_for_update(
                conn,
                caller.workspace_id,
                caller.api_key,
                request.organizationId,
                request.activityId,
            )
            if current is None:
                raise NotFound(f"Activity {request.activityId} not found.")
            if current.immutable:
                raise FailedPrecondition(f"Activity {request.activityId} is immutable.")
            updated = msgspec.structs.replace(current, **updates)
            await storage.save(conn, caller.workspace_id, updated)
        return updated

    async def delete(
        self, caller: ApiKeyPrincipal, request: models.DeleteActivities
    ) -> dict[str, models.ItemResult]:
        ids = list(dict.fromkeys(request.activityIds))
        async with self._pool.acquire() as conn, conn.transaction():
            deleted, kept = await storage.delete_mutable(
                conn, caller.workspace_id, caller.api_key, request.organizationId, ids
            )

        def outcome(activity_id: str) -> models.ItemResult:
            if activity_id in deleted:
                return models.ItemResult(True, activity_id, DELETED)
            return models.ItemResult(
                False, activity_id, IMMUTABLE if activity_id in kept else NOT_FOUND
            )

        return {activity_id: outcome(activity_id) for activity_id in ids}

"""Rules of the activity log endpoints.

- Everything is scoped by workspace, API key and organization: a record of another key,
  workspace or organization is, to the caller, not there.
- get: filters are ANDed; an empty list filter counts as absent. Keyset paging on (timestamp, id),
  `desc` newest first; the signed token carries the organization and order, and a token of
  another listing, workspace, organization or order is INVALID_ARGUMENT at `data.pageToken`.
- add: records of the given `featureType` (custom when none is given; a custom one given
  explicitly needs `targetEntityId`), all in one transaction. A record with a given `id` that
  exists already is returned as stored, unchanged (an id the key uses in another organization is
  ALREADY_EXISTS); without an id one is generated. `timestamp` defaults to now.
- update: the fields sent replace the stored ones. One record (`activityId`): an immutable record
  is FAILED_PRECONDITION, and `immutable` may only be turned on. The hosted form (`activities`):
  one outcome per id, in one transaction; unknown and immutable records say so.
- delete: by ids, document and target entity (ANDed); one outcome per id named or record found,
  in one transaction; immutable records are kept and say so.
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
from redline.runtime.access import AccessClient

_PAGE_KIND = "notify.activities"

DELETED = "Activity deleted."
UPDATED = "Activity updated."
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


DISPLAY = tuple(f.name for f in msgspec.structs.fields(models.Display))


def _or_unset(value: Any) -> Any:
    return msgspec.UNSET if value is None else value


def _display(fields: models.Display) -> dict[str, Any]:
    """The display fields given, as the record keeps them."""
    return {name: getattr(fields, name) for name in DISPLAY if getattr(fields, name) is not None}


def _check_targets(request: models.AddActivities) -> None:
    """The hosted reference's rule: a record given featureType custom names its target."""
    for index, new in enumerate(request.activities):
        if new.featureType == "custom" and new.targetEntityId is None:
            raise InvalidArgument.field(
                f"data.activities[{index}].targetEntityId",
                "targetEntityId is required when featureType is custom.",
                "missing_field",
            )


def added_record(
    caller: ApiKeyPrincipal, request: models.AddActivities, new: models.NewActivity, now: int
) -> models.Activity:
    return models.Activity(
        id=new.id if new.id is not None else new_activity_id(),
        featureType=new.featureType or "custom",
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
        isActivityResolverUsed=_or_unset(new.isActivityResolverUsed),
        **_display(new),
    )


def _one_record(request: models.UpdateActivity) -> str | None:
    """The id of the one record Redline's first form names; None for the hosted form."""
    if request.activities:
        for name in ("activityId", *models.UPDATABLE):
            if getattr(request, name) is not None:
                raise InvalidArgument.field(
                    f"data.{name}", "Give activities, or activityId with its fields: not both."
                )
        return None
    if request.activityId is None:
        raise InvalidArgument.field(
            "data.activityId",
            "Give activities, or activityId with the fields to change.",
            "missing_field",
        )
    return request.activityId


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
    def __init__(
        self,
        pool: Pool,
        page_tokens: PageTokens,
        default_page_size: int,
        access: AccessClient,
        page_byte_budget: int,
    ) -> None:
        self._pool = pool
        self._access = access
        self._tokens = page_tokens
        self._default_page_size = default_page_size
        self._page_byte_budget = page_byte_budget

    async def get(
        self, caller: ApiKeyPrincipal, request: models.GetActivities
    ) -> Reply[list[models.Activity]]:
        """A page of records; the next page's token goes out as `nextPageToken` and as
        `pageToken`, where clients of the hosted API look for it."""
        query = storage.ActivityQuery(
            caller.workspace_id,
            caller.api_key,
            request.organizationId,
            size=request.pageSize or self._default_page_size,
            byte_budget=self._page_byte_budget,
            document_id=request.documentId,
            target_entity_id=request.targetEntityId,
            feature_types=list(request.featureTypes or []),
            action_types=request.actionTypes,
            user_id=request.userId,
            ids=request.activityIds,
            descending=request.order == "desc",
        )
        if request.pageToken is not None:
            query.after = self._decode_token(caller, request, request.pageToken)
        rows, more = await storage.select_page(self._pool, query)
        next_token = None
        if more:
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
        _check_targets(request)
        # Nothing is recorded in a disabled organization or document: it is read-only.
        await self._access.require_writable(
            caller.api_key, request.organizationId, request.documentId
        )
        now = now_ms()
        records = [added_record(caller, request, new, now) for new in request.activities]
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
    ) -> models.Activity | dict[str, models.Outcome]:
        activity_id = _one_record(request)
        await self._access.require_writable(caller.api_key, request.organizationId)
        if activity_id is None:
            return await self._update_each(caller, request.organizationId, request.activities or [])
        updates = _updates(request)
        async with self._pool.acquire() as conn, conn.transaction():
            current = await storage.get_for_update(
                conn, caller.workspace_id, caller.api_key, request.organizationId, activity_id
            )
            if current is None:
                raise NotFound(f"Activity {activity_id} not found.")
            if current.immutable:
                raise FailedPrecondition(f"Activity {activity_id} is immutable.")
            updated = msgspec.structs.replace(current, **updates)
            await storage.save(conn, caller.workspace_id, updated)
        return updated

    async def _update_each(
        self, caller: ApiKeyPrincipal, organization_id: str, changes: list[models.ActivityChange]
    ) -> dict[str, models.Outcome]:
        """The hosted form: each record's fields replaced, each outcome under its id."""
        outcomes: dict[str, models.Outcome] = {}
        async with self._pool.acquire() as conn, conn.transaction():
            for change in changes:
                current = await storage.get_for_update(
                    conn, caller.workspace_id, caller.api_key, organization_id, change.id
                )
                if current is None:
                    outcomes[change.id] = models.Outcome(False, NOT_FOUND)
                    continue
                if current.immutable:
                    outcomes[change.id] = models.Outcome(False, IMMUTABLE)
                    continue
                updates = _display(change)
                if change.changes is not None:
                    updates["changes"] = _changes(change.changes)
                if change.entityData is not None:
                    updates["entityData"] = change.entityData
                await storage.save(
                    conn, caller.workspace_id, msgspec.structs.replace(current, **updates)
                )
                outcomes[change.id] = models.Outcome(True, UPDATED)
        return outcomes

    async def delete(
        self, caller: ApiKeyPrincipal, request: models.DeleteActivities
    ) -> dict[str, models.ItemResult]:
        ids = list(dict.fromkeys(request.activityIds or [])) or None
        if ids is None and request.documentId is None and request.targetEntityId is None:
            raise InvalidArgument.field(
                "data.activityIds",
                "Give activityIds, documentId or targetEntityId.",
                "missing_field",
            )
        which = storage.Doomed(
            request.organizationId, ids, request.documentId, request.targetEntityId
        )
        async with self._pool.acquire() as conn, conn.transaction():
            deleted, kept = await storage.delete_mutable(
                conn, caller.workspace_id, caller.api_key, which
            )
        outcomes = {i: models.ItemResult(True, i, DELETED) for i in deleted}
        outcomes.update({i: models.ItemResult(False, i, IMMUTABLE) for i in kept})
        if ids is None:
            return outcomes
        return {i: outcomes.get(i, models.ItemResult(False, i, NOT_FOUND)) for i in ids}

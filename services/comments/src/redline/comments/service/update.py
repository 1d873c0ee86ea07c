"""`/v2/commentannotations/update`: apply `updatedData` and `updateUsers` to every annotation of a
document the filters select, with one event per kind of change.

Status, assignee and priority changes emit their own events; any other change (location, target
element, context, `from`, renamed users, a status or priority edited without a new id) emits
`AnnotationUpdated` naming the keys that changed. Moving to a status of type `terminal` records
who resolved it (`resolved_by`): the update's `from` user, else the user of a user token; moving
to a status that is not terminal clears it.
"""

from __future__ import annotations

import copy
from typing import Any

import msgspec

from redline.comments.models import change as models
from redline.comments.service import row_sync
from redline.comments.service.writer import SCHEMA, Writer
from redline.comments.storage import change as storage
from redline.comments.storage.annotations import AnnotationRow, save
from redline.envelope.errors import InvalidArgument, PermissionDenied
from redline.pg import write_events
from redline.proto.events import AnnotationUpdated, Assigned, Event, PriorityChanged, StatusChanged

UPDATED = "Updated Successfully"
NOT_FOUND = "Annotation not found."


def _plain(value: msgspec.Struct) -> dict[str, Any]:
    plain: dict[str, Any] = msgspec.to_builtins(value)
    return plain


def _with_kept_colors(new: dict[str, Any], old: Any) -> dict[str, Any]:
    """Colors are optional on update: a status or priority keeping its id keeps its colors."""
    if isinstance(old, dict) and old.get("id") == new.get("id"):
        for key in ("color", "lightColor", "svg", "iconUrl"):
            if key not in new and key in old:
                new[key] = old[key]
    return new


def _id(value: Any) -> Any:
    return value.get("id") if isinstance(value, dict) else None


def _user_id(value: Any) -> Any:
    return value.get("userId") if isinstance(value, dict) else None


def _apply(body: dict[str, Any], data: models.UpdatedData) -> None:
    if data.location is not None:
        body["location"] = _plain(data.location)
    if data.targetElement is not None:
        body["targetElement"] = _plain(data.targetElement)
    if data.from_ is not None:
        body["from"] = _plain(data.from_)
    if data.status is not None:
        body["status"] = _with_kept_colors(_plain(data.status), body.get("status"))
    if data.assignedTo is not None:
        body["assignedTo"] = _plain(data.assignedTo)
    if data.context is not None:
        body["context"] = data.context
    if data.priority is not None:
        body["priority"] = _with_kept_colors(_plain(data.priority), body.get("priority"))


def _acting_user(request: models.UpdateAnnotations) -> dict[str, Any] | None:
    for data in reversed(request.updatedData or []):
        if data.from_ is not None:
            return _plain(data.from_)
    return None


class _Change:
    """One annotation's update: the body before, and the events it calls for."""

    def __init__(self, writer: Writer, row: AnnotationRow, actor: dict[str, Any] | None) -> None:
        self.writer = writer
        self.row = row
        self.actor = actor
        self.before = copy.deepcopy(row.body)

    def events(self, renames: dict[str, str]) -> list[Event]:
        """`renames` maps renamed user ids: a renamed assignee is no new assignment."""
        before, after = self.before, self.row.body
        base = self.writer.event_fields(self.row, self.actor)
        base["before"] = before
        events: list[Event] = []
        changed = [k for k in sorted(set(before) | set(after)) if before.get(k) != after.get(k)]
        covered = {"lastUpdated"}
        if _id(before.get("status")) != _id(after.get("status")):
            events.append(
                StatusChanged(**base, oldStatus=before.get("status"), newStatus=after["status"])
            )
            covered.add("status")
        assignee = _user_id(before.get("assignedTo"))
        if renames.get(assignee, assignee) != _user_id(after.get("assignedTo")):
            events.append(
                Assigned(
                    **base,
                    assigned=after.get("assignedTo"),
                    previouslyAssigned=before.get("assignedTo"),
                )
            )
            covered.add("assignedTo")
        if _id(before.get("priority")) != _id(after.get("priority")):
            events.append(
                PriorityChanged(
                    **base, oldPriority=before.get("priority"), newPriority=after["priority"]
                )
            )
            covered.add("priority")
        rest = [k for k in changed if k not in covered]
        if renames:
            rest.append("updateUsers")
        if rest:
            events.append(AnnotationUpdated(**base, changes=rest))
        return events


def _resolution(row: AnnotationRow, before: dict[str, Any], resolver: str | None) -> None:
    was_terminal = isinstance(before.get("status"), dict) and before["status"].get("type") == (
        "terminal"
    )
    if row.status_type != "terminal":
        row.resolved_by = None
    elif not was_terminal or _id(before.get("status")) != row.status_id:
        row.resolved_by = resolver


async def update(writer: Writer, request: models.UpdateAnnotations) -> dict[str, models.ItemResult]:
    if not request.updatedData and not request.updateUsers:
        raise InvalidArgument.field(
            "data.updatedData", "Give updatedData or updateUsers: there is nothing to update."
        )
    if request.updateUsers and writer.user_id is not None:
        # Renaming rewrites other people's records across the document: the server's call.
        raise PermissionDenied("data.updateUsers: renaming users needs the API key's auth token.")
    actor = _acting_user(request)
    writer.acting_as(_user_id(actor), "data.updatedData.from")
    resolver = _user_id(actor) or writer.user_id
    decision = await writer.require_write(request.organizationId, request.documentId)
    which = storage.Selection(
        annotation_ids=request.annotationIds,
        location_ids=request.locationIds,
        creator_ids=request.userIds,
    )
    results: dict[str, models.ItemResult] = {}
    async with writer.pool.acquire() as conn, conn.transaction():
        rows = await storage.select_for_update(
            conn, writer.principal.api_key, request.organizationId, request.documentId, which
        )
        events: list[Event] = []
        for row in rows:
            if not writer.visible(row, decision):
                continue
            change = _Change(writer, row, actor)
            for data in request.updatedData or []:
                _apply(row.body, data)
            renames: dict[str, str] = {}
            resolved_by = row.resolved_by
            for rename in request.updateUsers or []:
                old, new = rename.oldUser, rename.newUser
                if row_sync.rename_user(row.body, old.userId, new.userId, new.name, new.email):
                    renames[old.userId] = new.userId
                if row.resolved_by == old.userId:
                    row.resolved_by = new.userId
            if row.body != change.before:
                row_sync.touch(row)
                _resolution(row, change.before, resolver)
                await save(conn, row)
                events.extend(change.events(renames))
            elif row.resolved_by != resolved_by:
                await save(conn, row)
            results[row.annotation_id] = models.ItemResult(True, row.annotation_id, UPDATED)
        await write_events(conn, SCHEMA, events)
    for annotation_id in request.annotationIds or []:
        if annotation_id not in results:
            results[annotation_id] = models.ItemResult(False, annotation_id, NOT_FOUND)
    return results

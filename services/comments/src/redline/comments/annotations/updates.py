"""What `/v2/commentannotations/update` does to one annotation's body, and the events that says.

Status, assignee and priority changes emit their own events; any other change (location, target
element, context, `from`, renamed users, a status or priority edited without a new id) emits
`AnnotationUpdated` naming the keys that changed. Moving to a status of type `terminal` records
who resolved it (`resolved_by`): the update's `from` user, else the user of a user token; moving
to a status that is not terminal clears it. `rename_user` rewrites one user everywhere a body
holds users.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec
from msgspec import UNSET, UnsetType

from redline.comments.annotations import models
from redline.comments.shared.changes import Changed
from redline.comments.shared.events import event_fields
from redline.comments.shared.models import as_stored, to_body
from redline.envelope.auth import ApiKeyPrincipal
from redline.proto.annotation import (
    Action,
    Annotation,
    Location,
    TargetElement,
    User,
    stored_json,
)
from redline.proto.annotation import Priority as StoredPriority
from redline.proto.annotation import Status as StoredStatus
from redline.proto.events import AnnotationUpdated, Assigned, Event, PriorityChanged, StatusChanged

Colored = TypeVar("Colored", StoredStatus, StoredPriority)


def _with_kept_colors(new: Colored, old: Colored | UnsetType) -> Colored:
    """Colors are optional on update: a status or priority keeping its id keeps its colors."""
    if old is not UNSET and old.id == new.id:
        for key in ("color", "lightColor", "svg", "iconUrl"):
            if key in new.__struct_fields__ and getattr(new, key) is UNSET:
                setattr(new, key, getattr(old, key))
    return new


def _id(value: StoredStatus | StoredPriority | UnsetType) -> str | None:
    return None if value is UNSET else value.id


def _assignee(annotation: Annotation) -> str | None:
    return annotation.assigned_user_id


def apply(body: Annotation, data: models.UpdatedData) -> None:
    """Set, in place, every field `data` gives."""
    if data.location is not None:
        body.location = as_stored(data.location, Location)
    if data.targetElement is not None:
        body.targetElement = as_stored(data.targetElement, TargetElement)
    if data.from_ is not None:
        body.from_ = as_stored(data.from_, User)
    if data.status is not None:
        body.status = _with_kept_colors(as_stored(data.status, StoredStatus), body.status)
    if data.assignedTo is not None:
        body.assignedTo = as_stored(data.assignedTo, User)
    if data.context is not None:
        body.context = data.context
    if data.priority is not None:
        body.priority = _with_kept_colors(as_stored(data.priority, StoredPriority), body.priority)
    if data.actions is not None:
        body.actions = [as_stored(action, Action) for action in data.actions]
    if data.statusUpdatedByUserId is None:
        body.statusUpdatedByUserId = UNSET
    elif data.statusUpdatedByUserId is not UNSET:
        body.statusUpdatedByUserId = data.statusUpdatedByUserId


def named_resolver(request: models.UpdateAnnotations) -> str | UnsetType | None:
    """The resolver the update names (`resolvedByUserId`, the last one given), or UNSET."""
    for data in reversed(request.updates):
        if data.resolvedByUserId is not UNSET:
            return data.resolvedByUserId
    return UNSET


def acting_user(request: models.UpdateAnnotations) -> dict[str, Any] | None:
    """The update's `from` user: the last one its `updatedData` gives."""
    for data in reversed(request.updates):
        if data.from_ is not None:
            return to_body(data.from_)
    return None


def update_events(
    caller: ApiKeyPrincipal,
    changed: Changed,
    actor: dict[str, Any] | None,
    renames: dict[str, str],
) -> list[Event]:
    """The events one annotation's update calls for. `renames` maps renamed user ids: a renamed
    assignee is no new assignment."""
    before, after = changed.before, changed.row.body
    base = event_fields(caller, changed.row, actor)
    base["before"] = before
    events: list[Event] = []
    covered = {"lastUpdated"}
    if _id(before.status) != _id(after.status):
        old = None if before.status is UNSET else before.status
        new = None if after.status is UNSET else after.status
        events.append(StatusChanged(**base, oldStatus=old, newStatus=new))
        covered.add("status")
    assignee = _assignee(before)
    if assignee is not None:
        assignee = renames.get(assignee, assignee)
    if assignee != _assignee(after):
        events.append(
            Assigned(
                **base,
                assigned=None if after.assignedTo is UNSET else after.assignedTo,
                previouslyAssigned=None if before.assignedTo is UNSET else before.assignedTo,
            )
        )
        covered.add("assignedTo")
    if _id(before.priority) != _id(after.priority):
        old_priority = None if before.priority is UNSET else before.priority
        new_priority = None if after.priority is UNSET else after.priority
        events.append(PriorityChanged(**base, oldPriority=old_priority, newPriority=new_priority))
        covered.add("priority")
    rest = [key for key in _changed_keys(before, after) if key not in covered]
    if renames:
        rest.append("updateUsers")
    if rest:
        events.append(AnnotationUpdated(**base, changes=rest))
    return events


def _changed_keys(before: Annotation, after: Annotation) -> list[str]:
    """The keys of the stored JSON whose values differ, in order."""
    old, new = stored_json(before), stored_json(after)
    return [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]


def record_resolution(changed: Changed, resolver: str | None) -> None:
    """Who moved the status to a terminal one; cleared when it is not terminal."""
    row, status = changed.row, changed.before.status
    was_terminal = status is not UNSET and status.type == "terminal"
    if row.status_type != "terminal":
        row.resolved_by = None
    elif not was_terminal or _id(status) != row.status_id:
        row.resolved_by = resolver


def _unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


# Body keys that hold the caller's own data, never users to rename.
_OPAQUE = frozenset({"context", "metadata", "pageInfo", "agent", "customList"})


def rename_user(
    annotation: Annotation, old_id: str, new_id: str, name: str | None, email: str | None
) -> Annotation | None:
    """The annotation with every user object of `old_id` rewritten (author, assignee, comment
    authors and recipients, tagged contacts, reaction users, subscribers) and the `{{old_id}}`
    mentions in comment text; None when nothing changed. Users may be anywhere the caller's
    objects are not, so the stored JSON is walked whole."""
    changed = False

    def rewrite(user: dict[str, Any]) -> None:
        nonlocal changed
        user["userId"] = new_id
        if name is not None:
            user["name"] = name
            if "name_lowercase" in user:
                user["name_lowercase"] = name.lower()
        if email is not None:
            user["email"] = email
            if "email_lowercase" in user:
                user["email_lowercase"] = email.lower()
        changed = True

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if value.get("userId") == old_id:
                rewrite(value)
            for key, inner in value.items():
                if key not in _OPAQUE:
                    walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)

    body = stored_json(annotation)
    walk(body)
    old_mention, new_mention = "{{" + old_id + "}}", "{{" + new_id + "}}"
    for comment in body["comments"]:
        for key in ("commentText", "commentHtml"):
            text = comment.get(key)
            if isinstance(text, str) and old_mention in text:
                comment[key] = text.replace(old_mention, new_mention)
                changed = True
    named = body["visibilityConfig"].get("userIds")
    if isinstance(named, list) and old_id in named:
        body["visibilityConfig"]["userIds"] = _unique([new_id if u == old_id else u for u in named])
        changed = True
    return msgspec.convert(body, Annotation) if changed else None

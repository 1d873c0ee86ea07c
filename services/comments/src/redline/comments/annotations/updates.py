"""What `/v2/commentannotations/update` does to one annotation's body, and the events that says.

Status, assignee and priority changes emit their own events; any other change (location, target
element, context, `from`, renamed users, a status or priority edited without a new id) emits
`AnnotationUpdated` naming the keys that changed. Moving to a status of type `terminal` records
who resolved it (`resolved_by`): the update's `from` user, else the user of a user token; moving
to a status that is not terminal clears it. `rename_user` rewrites one user everywhere a body
holds users.
"""

from __future__ import annotations

from typing import Any

from msgspec import UNSET, UnsetType

from redline.comments.annotations import models
from redline.comments.shared.changes import Changed
from redline.comments.shared.columns import user_id_of
from redline.comments.shared.events import event_fields, stored, stored_or_none
from redline.comments.shared.models import to_body
from redline.envelope.auth import ApiKeyPrincipal
from redline.proto.annotation import Annotation, Priority, Status, User
from redline.proto.events import AnnotationUpdated, Assigned, Event, PriorityChanged, StatusChanged


def _with_kept_colors(new: dict[str, Any], old: Any) -> dict[str, Any]:
    """Colors are optional on update: a status or priority keeping its id keeps its colors."""
    if isinstance(old, dict) and old.get("id") == new.get("id"):
        for key in ("color", "lightColor", "svg", "iconUrl"):
            if key not in new and key in old:
                new[key] = old[key]
    return new


def _id(value: Any) -> Any:
    return value.get("id") if isinstance(value, dict) else None


def apply(body: dict[str, Any], data: models.UpdatedData) -> None:
    """Set, in place, every field `data` gives."""
    if data.location is not None:
        body["location"] = to_body(data.location)
    if data.targetElement is not None:
        body["targetElement"] = to_body(data.targetElement)
    if data.from_ is not None:
        body["from"] = to_body(data.from_)
    if data.status is not None:
        body["status"] = _with_kept_colors(to_body(data.status), body.get("status"))
    if data.assignedTo is not None:
        body["assignedTo"] = to_body(data.assignedTo)
    if data.context is not None:
        body["context"] = data.context
    if data.priority is not None:
        body["priority"] = _with_kept_colors(to_body(data.priority), body.get("priority"))
    if data.actions is not None:
        body["actions"] = [to_body(action) for action in data.actions]
    if data.statusUpdatedByUserId is None:
        body.pop("statusUpdatedByUserId", None)
    elif data.statusUpdatedByUserId is not UNSET:
        body["statusUpdatedByUserId"] = data.statusUpdatedByUserId


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
    base["before"] = stored(before, Annotation)
    events: list[Event] = []
    differ = [k for k in sorted(set(before) | set(after)) if before.get(k) != after.get(k)]
    covered = {"lastUpdated"}
    if _id(before.get("status")) != _id(after.get("status")):
        events.append(
            StatusChanged(
                **base,
                oldStatus=stored_or_none(before.get("status"), Status),
                newStatus=stored(after["status"], Status),
            )
        )
        covered.add("status")
    assignee = user_id_of(before.get("assignedTo"))
    if assignee is not None:
        assignee = renames.get(assignee, assignee)
    if assignee != user_id_of(after.get("assignedTo")):
        events.append(
            Assigned(
                **base,
                assigned=stored_or_none(after.get("assignedTo"), User),
                previouslyAssigned=stored_or_none(before.get("assignedTo"), User),
            )
        )
        covered.add("assignedTo")
    if _id(before.get("priority")) != _id(after.get("priority")):
        events.append(
            PriorityChanged(
                **base,
                oldPriority=stored_or_none(before.get("priority"), Priority),
                newPriority=stored(after["priority"], Priority),
            )
        )
        covered.add("priority")
    rest = [k for k in differ if k not in covered]
    if renames:
        rest.append("updateUsers")
    if rest:
        events.append(AnnotationUpdated(**base, changes=rest))
    return events


def record_resolution(changed: Changed, resolver: str | None) -> None:
    """Who moved the status to a terminal one; cleared when it is not terminal."""
    row, status = changed.row, changed.before.get("status")
    was_terminal = isinstance(status, dict) and status.get("type") == "terminal"
    if row.status_type != "terminal":
        row.resolved_by = None
    elif not was_terminal or _id(status) != row.status_id:
        row.resolved_by = resolver


def _unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


# Body keys that hold the caller's own data, never users to rename.
_OPAQUE = frozenset({"context", "metadata", "pageInfo", "agent", "customList"})


def rename_user(
    body: dict[str, Any], old_id: str, new_id: str, name: str | None, email: str | None
) -> bool:
    """Rewrite every user object of `old_id` in the body (author, assignee, comment authors and
    recipients, tagged contacts, reaction users, subscribers) and the `{{old_id}}` mentions in
    comment text. Returns whether anything changed."""
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

    walk(body)
    old_mention, new_mention = "{{" + old_id + "}}", "{{" + new_id + "}}"
    for comment in body.get("comments") or []:
        for key in ("commentText", "commentHtml"):
            text = comment.get(key)
            if isinstance(text, str) and old_mention in text:
                comment[key] = text.replace(old_mention, new_mention)
                changed = True
    visibility = body.get("visibilityConfig")
    if isinstance(visibility, dict) and isinstance(visibility.get("userIds"), list):
        ids = visibility["userIds"]
        if old_id in ids:
            visibility["userIds"] = _unique([new_id if u == old_id else u for u in ids])
            changed = True
    return changed

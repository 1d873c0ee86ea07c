"""Who a comment tags, one rule for every service: comments writes it on its events, each tagged
organization user group replaced by its members as identity knows them then (`taggedUsers`);
notify reads it from there.

A stored tagged contact is `{"text", "userId", "contact": {"userId", "name", "email"}}`, or names
a group as `"group": {"groupId"}`. The user an entry tags is `{"userId", "name"?, "email"?}`: the
entry's `userId` (else its contact's) with its contact's name and email. Each user counts once,
where first tagged; a group that does not exist, has no members or whose members are not known
tags no one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from redline.proto.events.comments import CommentEvent, CommentsEvent

JsonObject = dict[str, Any]


def group_of(entry: Any) -> str | None:
    """The group a stored tagged entry names, if it names one."""
    if not isinstance(entry, dict):
        return None
    group = entry.get("group")
    value = group.get("groupId") if isinstance(group, dict) else None
    return value if isinstance(value, str) else None


def user_document(user_id: str, name: Any = None, email: Any = None) -> JsonObject:
    """A tagged user: its id, and its name and email where they are known."""
    user: JsonObject = {"userId": user_id}
    if isinstance(name, str) and name:
        user["name"] = name
    if isinstance(email, str) and email:
        user["email"] = email
    return user


def tagged_user(entry: Any) -> JsonObject | None:
    """The user a stored tagged entry tags; None for a group's entry or one without a user.
    Entries of other shapes (a contact without the entry's `userId`, or the user itself in
    place of the entry) are read for the same user."""
    if group_of(entry) is not None or not isinstance(entry, dict):
        return None
    contact = entry.get("contact")
    person = contact if isinstance(contact, dict) else entry
    user_id = entry.get("userId") or person.get("userId")
    if not isinstance(user_id, str) or not user_id:
        return None
    return user_document(user_id, person.get("name"), person.get("email"))


def tagged_by(
    comment: Mapping[str, Any] | None, members: Mapping[str, list[JsonObject]] | None = None
) -> list[JsonObject]:
    """Everyone the stored `comment` tags, each group's entry standing for its `members`."""
    users: dict[str, JsonObject] = {}
    for entry in (comment or {}).get("taggedUserContacts") or []:
        group_id = group_of(entry)
        found: Iterable[JsonObject]
        if group_id is not None:
            found = (members or {}).get(group_id, [])
        else:
            user = tagged_user(entry)
            found = [] if user is None else [user]
        for user in found:
            users.setdefault(user["userId"], user)
    return list(users.values())


def tagged_by_event(event: CommentsEvent) -> list[JsonObject]:
    """Everyone the change tags: the event's `taggedUsers`, which comments writes on annotation
    adds, comment adds and comment updates; else (other changes, or an event written before
    comments wrote them) the users the comment it concerns tags (the root comment, for a change
    of the annotation), groups left out since their members are not known here."""
    if event.taggedUsers is not None:
        users: dict[str, JsonObject] = {}
        for user in event.taggedUsers:
            user_id = user.get("userId") if isinstance(user, dict) else None
            if isinstance(user_id, str) and user_id:
                users.setdefault(user_id, user)
        return list(users.values())
    if isinstance(event, CommentEvent):
        return tagged_by(event.comment)
    comments = event.annotation.get("comments")
    root = comments[0] if isinstance(comments, list) and comments else None
    return tagged_by(root if isinstance(root, dict) else None)

"""Who a comment tags, one rule for every service: comments writes it on its events, each tagged
organization user group replaced by its members as identity knows them then (`taggedUsers`);
notify reads it from there.

A tagged entry (`redline.proto.annotation.TaggedUserContact`) names a user, with its contact's
name and email, or a group (`group`). The user an entry tags is `{"userId", "name"?, "email"?}`:
the entry's `userId` with its contact's name and email. Each user counts once, where first
tagged; a group that does not exist, has no members or whose members are not known tags no one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from msgspec import UNSET

from redline.proto.annotation import Comment, TaggedUserContact
from redline.proto.events.comments import CommentEvent, CommentsEvent

JsonObject = dict[str, Any]


def group_of(entry: TaggedUserContact) -> str | None:
    """The group a tagged entry names, if it names one."""
    return None if entry.group is UNSET else entry.group.groupId


def user_document(user_id: str, name: str | None = None, email: str | None = None) -> JsonObject:
    """A tagged user: its id, and its name and email where they are known."""
    user: JsonObject = {"userId": user_id}
    if name:
        user["name"] = name
    if email:
        user["email"] = email
    return user


def tagged_user(entry: TaggedUserContact) -> JsonObject | None:
    """The user a tagged entry tags; None for a group's entry or one without a user."""
    if group_of(entry) is not None or not entry.userId:
        return None
    contact = entry.contact
    if contact is UNSET:
        return user_document(entry.userId)
    return user_document(
        entry.userId,
        None if contact.name is UNSET else contact.name,
        None if contact.email is UNSET else contact.email,
    )


def tagged_by(
    comment: Comment | None, members: Mapping[str, list[JsonObject]] | None = None
) -> list[JsonObject]:
    """Everyone the `comment` tags, each group's entry standing for its `members`."""
    users: dict[str, JsonObject] = {}
    for entry in [] if comment is None else comment.tagged:
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
            user_id = user.get("userId")
            if isinstance(user_id, str) and user_id:
                users.setdefault(user_id, user)
        return list(users.values())
    if isinstance(event, CommentEvent):
        return tagged_by(event.comment)
    return tagged_by(event.annotation.root)

"""Who a comment tags: the users of its `taggedUserContacts`, with each tagged organization user
group replaced by its members, as identity knows them at write time
(`rpc.identity.usergroups.members`). Comments events carry the list as `taggedUsers`.

A tagged user is `{"userId", "name"?, "email"?}` (from the entry's `contact`; a group member's
from identity's profile). Each user appears once, where first tagged; a group that does not
exist, or has no members, tags no one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from redline.bus import Bus, rpc
from redline.comments.shared.models import ReplyTaggedUserContact, TaggedUserContact
from redline.proto.rpc import UserGroupMembers, UserGroupMembersGet
from redline.proto.subjects import RPC_USER_GROUP_MEMBERS

Document = dict[str, Any]
# Group id -> its members as tagged users.
Members = dict[str, list[Document]]

# Group ids one RPC names (the request's bound).
_GROUPS_PER_CALL = 1000


def group_id_of(entry: Any) -> str | None:
    """The group a stored tagged entry names, if it names one."""
    if not isinstance(entry, dict):
        return None
    group = entry.get("group")
    value = group.get("groupId") if isinstance(group, dict) else None
    return value if isinstance(value, str) else None


def stored_group_ids(comments: Iterable[Document]) -> list[str]:
    """The groups stored comments tag, each once."""
    found = (group_id_of(e) for c in comments for e in c.get("taggedUserContacts") or [])
    return list(dict.fromkeys(g for g in found if g is not None))


class TagsContacts(Protocol):
    """A comment of a request, or the changes of one, naming tagged contacts."""

    @property
    def taggedUserContacts(self) -> Sequence[TaggedUserContact | ReplyTaggedUserContact] | None: ...


def requested_group_ids(comments: Iterable[TagsContacts]) -> list[str]:
    """The groups the comments of a request (or its changes of comments) tag, each once."""
    found = (
        entry.group.groupId
        for comment in comments
        for entry in comment.taggedUserContacts or []
        if entry.group is not None
    )
    return list(dict.fromkeys(found))


async def group_members(
    bus: Bus, api_key: str, organization_id: str, group_ids: list[str]
) -> Members:
    """Identity's answer for the groups; no call when there are none."""
    members: Members = {}
    for start in range(0, len(group_ids), _GROUPS_PER_CALL):
        reply = await rpc.call(
            bus.nc,
            RPC_USER_GROUP_MEMBERS,
            UserGroupMembersGet(
                apiKey=api_key,
                organizationId=organization_id,
                groupIds=group_ids[start : start + _GROUPS_PER_CALL],
            ),
            UserGroupMembers,
        )
        for group_id, users in reply.groups.items():
            members[group_id] = [_user(u.userId, u.name, u.email) for u in users]
    return members


def tagged_users(comment: Document | None, members: Members) -> list[Document]:
    """Everyone the stored comment tags, groups replaced by their `members`."""
    users: dict[str, Document] = {}
    for entry in (comment or {}).get("taggedUserContacts") or []:
        group_id = group_id_of(entry)
        if group_id is not None:
            for user in members.get(group_id, []):
                users.setdefault(user["userId"], user)
            continue
        tagged = _tagged_user(entry)
        if tagged is not None:
            users.setdefault(tagged["userId"], tagged)
    return list(users.values())


def _tagged_user(entry: Any) -> Document | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("userId"), str):
        return None
    contact = entry.get("contact")
    contact = contact if isinstance(contact, dict) else {}
    return _user(entry["userId"], contact.get("name"), contact.get("email"))


def _user(user_id: str, name: Any, email: Any) -> Document:
    user: Document = {"userId": user_id}
    if isinstance(name, str) and name:
        user["name"] = name
    if isinstance(email, str) and email:
        user["email"] = email
    return user

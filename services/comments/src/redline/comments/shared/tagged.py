"""Who a comment tags, as comments events carry it (`taggedUsers`): the rule is
`redline.proto.tagging`'s; here, the groups a write tags and their members, asked of identity at
write time (`rpc.identity.usergroups.members`), a member as identity's profile has it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from redline.bus import Bus, rpc
from redline.comments.shared.models import ReplyTaggedUserContact, TaggedUserContact
from redline.proto.annotation import Comment
from redline.proto.rpc import UserGroupMembers, UserGroupMembersGet
from redline.proto.subjects import RPC_USER_GROUP_MEMBERS
from redline.proto.tagging import group_of, tagged_by, user_document

JsonObject = dict[str, Any]
# Group id -> its members as tagged users.
Members = dict[str, list[JsonObject]]

# Group ids one RPC names (the request's bound).
_GROUPS_PER_CALL = 1000


def stored_group_ids(comments: Iterable[Comment]) -> list[str]:
    """The groups stored comments tag, each once."""
    found = (group_of(e) for c in comments for e in c.tagged)
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
            members[group_id] = [user_document(u.userId, u.name, u.email) for u in users]
    return members


def tagged_users(comment: Comment | None, members: Members) -> list[JsonObject]:
    """Everyone the stored comment tags, groups replaced by their `members`."""
    return tagged_by(comment, members)

"""Who a comment tags, as comments events carry it (`taggedUsers`): the rule is
`redline.proto.tagging`'s; here, the groups a write tags and their members, asked of identity at
write time (`rpc.identity.usergroups.members`), a member as identity's profile has it.

Identity's answer for a group is remembered (`GroupMembers`), so that writes tagging the same
group do not each ask again: until identity announces that members of the key's groups changed
(`identity.usergroup.members_changed`), that a member left an organization or changed profile
(`identity.access.changed`), that an organization went, or that the key was revoked, and for a
few seconds at most, which bounds what an announcement missed (or an organization grant that
expired meanwhile) can leave stale.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from redline.bus import Bus, rpc
from redline.comments.shared.models import ReplyTaggedUserContact, TaggedUserContact
from redline.proto.annotation import Comment
from redline.proto.events import (
    AccessChanged,
    KeyRevoked,
    OrganizationDeleted,
    UserGroupMembersChanged,
)
from redline.proto.rpc import GroupMember, UserGroupMembers, UserGroupMembersGet
from redline.proto.subjects import (
    ACCESS_CHANGED,
    KEY_REVOKED,
    RPC_USER_GROUP_MEMBERS,
    USER_GROUP_MEMBERS_CHANGED,
)
from redline.proto.tagging import group_of, tagged_by, user_document
from redline.runtime.announcements import DroppedOnAnnouncements
from redline.runtime.cache import TtlCache

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


# How long an answer stands without an announcement: while NATS is down none is heard.
MEMBERS_TTL_S = 10.0
# Groups remembered at most, and the largest group remembered: together they bound the memory
# (a group with more members is asked for every time).
REMEMBERED_GROUPS = 2048
REMEMBERED_GROUP_SIZE = 200
# What drops the member lists of an API key.
_CHANGES = (UserGroupMembersChanged, AccessChanged, OrganizationDeleted, KeyRevoked)
_CHANGE_SUBJECTS = (
    USER_GROUP_MEMBERS_CHANGED,
    ACCESS_CHANGED,
    "evt.identity.organization.deleted",
    KEY_REVOKED,
)

_Group = tuple[str, str, str]  # API key, organization, group


class GroupMembers:
    """Identity's answers for tagged groups, remembered (see the module's docstring)."""

    def __init__(
        self,
        bus: Bus,
        ttl_s: float = MEMBERS_TTL_S,
        max_groups: int = REMEMBERED_GROUPS,
        max_group_size: int = REMEMBERED_GROUP_SIZE,
    ) -> None:
        self._bus = bus
        self._known: TtlCache[_Group, tuple[GroupMember, ...]] = TtlCache(ttl_s, max_groups)
        self._max_group_size = max_group_size
        self._forgetting = DroppedOnAnnouncements(
            bus, _CHANGE_SUBJECTS, _CHANGES, self._known, lambda group: group[0]
        )

    async def start(self) -> None:
        await self._forgetting.start()

    async def stop(self) -> None:
        await self._forgetting.stop()

    async def of(self, api_key: str, organization_id: str, group_ids: list[str]) -> Members:
        """The groups' members as tagged users (a group with none, or that does not exist, is
        absent); asks identity only for the groups not remembered, none when there are none."""
        found: dict[str, tuple[GroupMember, ...]] = {}
        missing: list[str] = []
        for group_id in group_ids:
            known = self._known.get((api_key, organization_id, group_id))
            if known is None:
                missing.append(group_id)
            else:
                found[group_id] = known
        if missing:
            epoch = self._known.epoch
            asked = await self._ask(api_key, organization_id, missing)
            for group_id in missing:
                users = tuple(asked.get(group_id, ()))
                found[group_id] = users
                if len(users) <= self._max_group_size:
                    # Not kept when a change was heard meanwhile: the answer may predate it.
                    self._known.put((api_key, organization_id, group_id), users, since=epoch)
        return {
            group_id: [user_document(u.userId, u.name, u.email) for u in users]
            for group_id, users in found.items()
            if users
        }

    async def _ask(
        self, api_key: str, organization_id: str, group_ids: list[str]
    ) -> dict[str, list[GroupMember]]:
        groups: dict[str, list[GroupMember]] = {}
        for start in range(0, len(group_ids), _GROUPS_PER_CALL):
            reply = await rpc.call(
                self._bus.nc,
                RPC_USER_GROUP_MEMBERS,
                UserGroupMembersGet(
                    apiKey=api_key,
                    organizationId=organization_id,
                    groupIds=group_ids[start : start + _GROUPS_PER_CALL],
                ),
                UserGroupMembers,
            )
            groups |= reply.groups
        return groups


def tagged_users(comment: Comment | None, members: Members) -> list[JsonObject]:
    """Everyone the stored comment tags, groups replaced by their `members`."""
    return tagged_by(comment, members)

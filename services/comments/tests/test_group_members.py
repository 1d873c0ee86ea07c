"""Writes tagging a group identity answered for a moment ago ask no more; a change of the key's
groups, access or organizations heard from identity makes the next write ask again, and a
group too large to remember is asked for every time."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from redline.bus import Bus, rpc
from redline.comments.shared.tagged import GroupMembers
from redline.proto.events import (
    AccessChanged,
    Event,
    KeyRevoked,
    OrganizationDeleted,
    UserGroupMembersChanged,
    encode_event,
)
from redline.proto.rpc import GroupMember, UserGroupMembers, UserGroupMembersGet
from redline.proto.subjects import RPC_USER_GROUP_MEMBERS


class Identity:
    """Answers `rpc.identity.usergroups.members` from `groups`, counting the groups asked for."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.groups: dict[str, list[GroupMember]] = {
            "eng": [GroupMember(userId="ana", name="Ana"), GroupMember(userId="ben")],
            "big": [GroupMember(userId=f"u{i}") for i in range(5)],
        }

    async def answer(self, request: UserGroupMembersGet) -> UserGroupMembers:
        self.asked += request.groupIds
        return UserGroupMembers({g: self.groups[g] for g in request.groupIds if self.groups.get(g)})


@pytest.fixture
async def bus(nats_url: str) -> AsyncIterator[Bus]:
    connected = await Bus.connect(nats_url, name="test-group-members")
    yield connected
    await connected.close()


@pytest.fixture
async def identity(bus: Bus) -> AsyncIterator[Identity]:
    found = Identity()
    served = await rpc.serve(bus.nc, RPC_USER_GROUP_MEMBERS, UserGroupMembersGet, found.answer)
    yield found
    await served.unsubscribe()


@pytest.fixture
async def members(bus: Bus) -> AsyncIterator[GroupMembers]:
    remembered = GroupMembers(bus, max_group_size=3)
    await remembered.start()
    yield remembered
    await remembered.stop()


async def announce(bus: Bus, event: Event) -> None:
    await bus.nc.publish(event.subject, encode_event(event))
    await bus.nc.flush()
    await asyncio.sleep(0.1)


async def test_a_group_asked_for_a_moment_ago_is_not_asked_for_again(
    identity: Identity, members: GroupMembers
) -> None:
    for _ in range(3):
        found = await members.of("key1", "org1", ["eng", "nobody"])
    assert found == {"eng": [{"userId": "ana", "name": "Ana"}, {"userId": "ben"}]}
    # One question for both groups, the one with no members included; another key asks anew.
    assert identity.asked == ["eng", "nobody"]
    await members.of("key2", "org1", ["eng"])
    assert identity.asked == ["eng", "nobody", "eng"]


@pytest.mark.parametrize(
    "change",
    [
        UserGroupMembersChanged(workspaceId="ws", apiKey="key1", organizationId="org1"),
        AccessChanged(workspaceId="ws", apiKey="key1", organizationId="org1"),
        OrganizationDeleted(workspaceId="ws", apiKey="key1", organizationId="org1"),
        KeyRevoked(workspaceId="ws", credential="apiKey", apiKey="key1"),
    ],
)
async def test_a_change_heard_from_identity_makes_the_next_write_ask_again(
    bus: Bus, identity: Identity, members: GroupMembers, change: Event
) -> None:
    await members.of("key1", "org1", ["eng"])
    await members.of("key2", "org1", ["eng"])
    identity.groups["eng"] = [GroupMember(userId="ana", name="Ana")]

    await announce(bus, change)

    assert await members.of("key1", "org1", ["eng"]) == {"eng": [{"userId": "ana", "name": "Ana"}]}
    # Another key's answer stands.
    assert len((await members.of("key2", "org1", ["eng"]))["eng"]) == 2
    assert identity.asked == ["eng", "eng", "eng"]


async def test_a_group_too_large_to_remember_is_asked_for_every_time(
    identity: Identity, members: GroupMembers
) -> None:
    for _ in range(2):
        assert len((await members.of("key1", "org1", ["big"]))["big"]) == 5
    assert identity.asked == ["big", "big"]

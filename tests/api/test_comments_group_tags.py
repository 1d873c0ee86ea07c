"""A tagged contact naming an organization user group: how comments take it, what they refuse,
and the `taggedUsers` their events carry (the group replaced by its members at write time)."""

from __future__ import annotations

from typing import Any

import pytest

from redline.proto.events.comments import (
    AnnotationAdded,
    CommentAdded,
    CommentUpdated,
    ReactionAdded,
)
from redline.testing.api import ApiClient, Workspace, assert_failure, issue_paths
from tests.api.comments_add_support import add, add_comments, annotation, comment, events

ENGINEERING = {"groupId": "eng", "groupName": "Engineering"}
GROUP_ENTRY = {"userId": "eng", "text": "@Engineering", "group": ENGINEERING}
ANA = {"userId": "ana", "name": "Ana", "email": "ana@example.com"}
UPDATE = "/v2/commentannotations/comments/update"


async def with_group(api: ApiClient, ws: Workspace) -> None:
    """acme's users ana and ben, and its group eng holding both."""
    users = [ANA, {"userId": "ben"}]
    added = await api.post(
        "/v2/users/add", {"organizationId": "acme", "users": users}, headers=ws.key_headers
    )
    assert added.status == 200, added.body
    group = {"organizationId": "acme", "organizationUserGroups": [ENGINEERING]}
    made = await api.post("/v2/organizations/usergroups/add", group, headers=ws.key_headers)
    assert made.status == 200, made.body
    members = {
        "organizationId": "acme",
        "organizationUserGroupId": "eng",
        "userIds": ["ana", "ben"],
    }
    joined = await api.post(
        "/v2/organizations/usergroups/users/add", members, headers=ws.key_headers
    )
    assert joined.status == 200, joined.body


async def test_events_carry_the_tagged_users_with_groups_expanded(
    api: ApiClient, nats_url: str, database_url: str
) -> None:
    ws = await api.create_workspace("grouptags@example.com")
    await with_group(api, ws)
    tagged = [
        {"userId": "ben", "contact": {"userId": "ben", "name": "Ben"}},
        GROUP_ENTRY,
        {"userId": "zed", "contact": {"userId": "zed"}},
    ]

    added = await add(
        api, ws, annotation(comment(text="{{eng}}", taggedUserContacts=tagged), annotationId="g1")
    )
    assert added.status == 200, added.body
    (root_id,) = added.data["g1"]["commentIds"]
    replied = await add_comments(
        api, ws, "g1", comment("ana", "cc {{eng}}", taggedUserContacts=[GROUP_ENTRY])
    )
    assert replied.status == 200, replied.body
    (reply_id,) = replied.data
    where = {"organizationId": "acme", "documentId": "d1", "annotationId": "g1"}
    updated = await api.post(
        UPDATE,
        {**where, "commentId": root_id, "taggedUserContacts": [GROUP_ENTRY], "commentText": "x"},
        headers=ws.key_headers,
    )
    assert updated.status == 200, updated.body
    reaction = {**where, "commentId": reply_id, "icon": "heart", "user": {"userId": "ana"}}
    reacted = await api.post(
        "/v2/commentannotations/reactions/add", reaction, headers=ws.key_headers
    )
    assert reacted.status == 200, reacted.body

    written = await events(database_url, nats_url, ws)
    assert [type(e) for e in written] == [
        AnnotationAdded,
        CommentAdded,
        CommentUpdated,
        ReactionAdded,
    ]
    # A user tagged both by name and through a group appears once, as first tagged.
    ben = {"userId": "ben", "name": "Ben"}
    assert written[0].taggedUsers == [ben, ANA, {"userId": "zed"}]
    assert written[1].taggedUsers == [ANA, {"userId": "ben"}]
    assert written[2].taggedUsers == [ANA, {"userId": "ben"}]
    # Events that tag no one anew do not compute it.
    assert written[3].taggedUsers is None


@pytest.mark.parametrize(
    ("entry", "suffix"),
    [
        ({"userId": "eng", "text": "@eng"}, "contact"),
        ({"userId": "eng", "text": "@eng", "group": {"groupName": "E"}}, "group.groupId"),
        ({"userId": "eng", "text": "@eng", "group": {"groupId": 5}}, "group.groupId"),
        ({"userId": "eng", "text": "@eng", "group": {"groupId": "eng", "x": 1}}, "group.x"),
        ({"userId": "eng", "text": "@eng", "group": "eng"}, "group"),
    ],
)
async def test_an_entry_needs_a_contact_or_a_well_formed_group(
    api: ApiClient, entry: dict[str, Any], suffix: str
) -> None:
    ws = await api.create_workspace("grouptagchecks@example.com")
    made = await add(api, ws, annotation(annotationId="g1"))
    assert made.status == 200, made.body
    tagged = comment(taggedUserContacts=[entry])
    where = {"organizationId": "acme", "documentId": "d1", "annotationId": "g1"}

    for response, path in [
        (
            await add(api, ws, annotation(tagged)),
            "data.commentAnnotations[0].commentData[0].taggedUserContacts[0]",
        ),
        (await add_comments(api, ws, "g1", tagged), "data.commentData[0].taggedUserContacts[0]"),
        (
            await api.post(
                UPDATE,
                {**where, "commentId": 1, "taggedUserContacts": [entry]},
                headers=ws.key_headers,
            ),
            "data.taggedUserContacts[0]",
        ),
        (
            await api.post(
                UPDATE,
                {**where, "commentIds": [1], "updatedData": {"taggedUserContacts": [entry]}},
                headers=ws.key_headers,
            ),
            "data.updatedData.taggedUserContacts[0]",
        ),
    ]:
        error = assert_failure(response, 400, "INVALID_ARGUMENT")
        assert issue_paths(error) == [f"{path}.{suffix}"], error


async def test_the_next_write_after_a_change_of_members_or_profile_sees_it(
    api: ApiClient, nats_url: str, database_url: str
) -> None:
    """A write right after a member left the group, or a member's profile changed, tags the
    group as it is now: nothing remembered from an earlier write stands in its way."""
    ws = await api.create_workspace("groupchanges@example.com")
    await with_group(api, ws)
    added = await add(
        api, ws, annotation(comment(taggedUserContacts=[GROUP_ENTRY]), annotationId="g1")
    )
    assert added.status == 200, added.body
    left = await api.post(
        "/v2/organizations/usergroups/users/delete",
        {"organizationId": "acme", "organizationUserGroupId": "eng", "userIds": ["ben"]},
        headers=ws.key_headers,
    )
    assert left.status == 200, left.body
    renamed = await api.post(
        "/v2/users/update",
        {"organizationId": "acme", "users": [{**ANA, "name": "Ana B"}]},
        headers=ws.key_headers,
    )
    assert renamed.status == 200, renamed.body

    replied = await add_comments(
        api, ws, "g1", comment("ana", "cc {{eng}}", taggedUserContacts=[GROUP_ENTRY])
    )
    assert replied.status == 200, replied.body

    latest = (await events(database_url, nats_url, ws))[-1]
    assert isinstance(latest, CommentAdded)
    assert latest.taggedUsers == [{**ANA, "name": "Ana B"}]

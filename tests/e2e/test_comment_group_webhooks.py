"""A comment tags an organization user group → the processed webhook names every member of the
group, as the group was when the comment was written."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, Workspace
from redline.testing.receiver import WebhookReceiver
from tests.e2e.webhook_flows import add_annotations, comment, enable_webhooks, notified, ok

ORG_DOC = {"organizationId": "acme", "documentId": "d1"}
ANA = {"userId": "ana", "name": "Ana Lima", "email": "ana@example.com"}
BEN = {"userId": "ben", "name": "Ben Ode", "email": "ben@example.com"}
CY = {"userId": "cy"}  # no profile fields: a member is named by id alone
ZED = {"userId": "zed", "name": "Zed"}
ENGINEERING = {"groupId": "eng", "groupName": "Engineering"}
GROUP_ENTRY = {"userId": "eng", "text": "@Engineering", "group": ENGINEERING}


async def group_of(api: ApiClient, ws: Workspace, members: list[str]) -> None:
    """Organization acme with ana, ben, cy and zed; the group eng holds `members`."""
    users = [ANA, BEN, CY, ZED]
    await ok(api, ws, "/v2/users/add", {"organizationId": "acme", "users": users})
    groups = {"organizationId": "acme", "organizationUserGroups": [ENGINEERING]}
    await ok(api, ws, "/v2/organizations/usergroups/add", groups)
    where = {"organizationId": "acme", "organizationUserGroupId": "eng"}
    added = await ok(
        api, ws, "/v2/organizations/usergroups/users/add", {**where, "userIds": members}
    )
    assert all(outcome["success"] for outcome in added.values()), added


def processed_by_type(receiver: WebhookReceiver) -> dict[str, dict[str, Any]]:
    return {r.json()["eventType"]: r.json() for r in receiver.delivered("/processed")}


async def test_a_tagged_group_names_its_members_in_the_processed_webhook(
    api: ApiClient, receiver: WebhookReceiver
) -> None:
    ws = await api.create_workspace("groupmentions@example.com")
    await enable_webhooks(api, ws, receiver)
    await group_of(api, ws, ["ana", "ben", "cy"])

    # The thread's first comment tags the group and, beside it, a user who is not in it.
    tagged = [GROUP_ENTRY, {"userId": "zed", "contact": ZED}]
    root = comment("ana", "{{eng}} and {{zed}}: please review", taggedUserContacts=tagged)
    (a1,) = await add_annotations(api, ws, notified(root, annotationId="a1"))
    # A reply through the comments endpoint tags the group alone (a group needs no contact).
    reply = comment("zed", "Over to {{eng}}", taggedUserContacts=[GROUP_ENTRY])
    (reply_id,) = await ok(
        api,
        ws,
        "/v2/commentannotations/comments/add",
        {**ORG_DOC, "annotationId": a1, "commentData": [reply]},
    )
    await receiver.wait_for(2, path="/processed")
    processed = processed_by_type(receiver)

    assert processed["comment_annotation.add"]["toContactsTagged"] == [ANA, BEN, CY, ZED]
    assert processed["comment.add"]["toContactsTagged"] == [ANA, BEN, CY]
    # The comment as stored keeps the group entry as it was given.
    raw = {r.json()["eventType"]: r.json() for r in receiver.delivered("/raw")}
    assert raw["comment.add"]["targetComment"]["taggedUserContacts"] == [GROUP_ENTRY]

    # Ben leaves the group: a later change to the reply names the members of that moment.
    where = {"organizationId": "acme", "organizationUserGroupId": "eng"}
    await ok(api, ws, "/v2/organizations/usergroups/users/delete", {**where, "userIds": ["ben"]})
    await ok(
        api,
        ws,
        "/v2/commentannotations/comments/update",
        {**ORG_DOC, "annotationId": a1, "commentId": reply_id, "commentText": "Over to {{eng}}!"},
    )
    await receiver.wait_for(3, path="/processed")
    assert processed_by_type(receiver)["comment.update"]["toContactsTagged"] == [ANA, CY]


async def test_a_group_of_another_api_key_tags_no_one(
    api: ApiClient, receiver: WebhookReceiver
) -> None:
    owner = await api.create_workspace("groupowner@example.com")
    await group_of(api, owner, ["ana", "ben"])
    other = await api.create_workspace("groupother@example.com")
    await enable_webhooks(api, other, receiver)

    root = comment("ana", "{{eng}}?", taggedUserContacts=[GROUP_ENTRY])
    await add_annotations(api, other, notified(root, annotationId="a1"))

    await receiver.wait_for(1, path="/processed")
    assert processed_by_type(receiver)["comment_annotation.add"]["toContactsTagged"] == []

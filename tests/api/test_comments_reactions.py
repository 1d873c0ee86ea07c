"""Reactions: one reaction annotation per icon with every reacting user, ids kept in step,
the last user's removal removing it, events, tenancy and user tokens."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, Workspace, assert_failure
from tests.api.comments_changes import (
    events,
    insert,
    row,
    stored,
    user_headers,
)

ADD = "/v2/commentannotations/reactions/add"
DELETE = "/v2/commentannotations/reactions/delete"


def reaction(user_id: str, icon: str = "heart", comment_id: int = 2) -> dict[str, Any]:
    return {
        "organizationId": "acme",
        "documentId": "d1",
        "annotationId": "a1",
        "commentId": comment_id,
        "icon": icon,
        "user": {"userId": user_id, "name": user_id.title()},
    }


async def post(api: ApiClient, ws: Workspace, path: str, data: dict[str, Any]) -> Any:
    return await api.post(path, data, headers=ws.key_headers)


async def test_same_icon_by_several_users_is_one_reaction(
    api: ApiClient, database_url: str, nats_url: str
) -> None:
    ws = await api.create_workspace("react@example.com")
    base = row(ws, "a1", location="v1", replies=("bob",))
    base.body["context"] = {"k": "v"}
    await insert(database_url, [base])

    first = await post(api, ws, ADD, reaction("carol"))
    assert first.status == 200, first.body
    made = first.data
    assert len(made["annotationId"]) == 20
    assert made["type"] == "reaction"
    assert made["icon"] == "heart"
    assert made["commentAnnotationId"] == "a1"
    assert made["location"] == {"id": "v1"}
    assert made["locationId"] == "v1"
    assert made["context"] == {"k": "v"}
    assert isinstance(made["lastUpdated"], int)
    assert made["fromUsers"] == [
        {"lastUpdated": made["lastUpdated"], "from": {"userId": "carol", "name": "Carol"}}
    ]

    second = await post(api, ws, ADD, reaction("dave"))
    assert second.data["annotationId"] == made["annotationId"]
    assert [u["from"]["userId"] for u in second.data["fromUsers"]] == ["carol", "dave"]
    # Reacting twice is no change at all.
    again = await post(api, ws, ADD, reaction("dave"))
    assert again.data == second.data
    other = await post(api, ws, ADD, reaction("carol", icon="thumbsup"))
    assert other.data["annotationId"] != made["annotationId"]

    kept = await stored(database_url, ws, "a1")
    assert kept is not None
    comment = kept["body"]["comments"][1]
    assert comment["reactionAnnotationIds"] == [made["annotationId"], other.data["annotationId"]]
    assert [r["icon"] for r in comment["reactionAnnotations"]] == ["heart", "thumbsup"]
    assert kept["body"]["comments"][0]["reactionAnnotations"] == []
    assert kept["last_updated"] == kept["body"]["lastUpdated"] > 1_700_000_000_000
    emitted = await events(database_url, nats_url, ws)
    assert [e["type"] for e in emitted] == ["comments.comment.reaction_add"] * 3
    assert emitted[0]["reaction"]["annotationId"] == made["annotationId"]
    assert emitted[0]["commentId"] == 2
    assert emitted[0]["actionUser"]["userId"] == "carol"


async def test_removing_the_last_user_removes_the_reaction(
    api: ApiClient, database_url: str, nats_url: str
) -> None:
    ws = await api.create_workspace("unreact@example.com")
    await insert(database_url, [row(ws, "a1", replies=("bob",))])
    made = (await post(api, ws, ADD, reaction("carol"))).data
    await post(api, ws, ADD, reaction("dave"))

    one_left = await post(api, ws, DELETE, reaction("carol"))
    assert one_left.status == 200, one_left.body
    assert [u["from"]["userId"] for u in one_left.data["fromUsers"]] == ["dave"]
    still = await stored(database_url, ws, "a1")
    assert still is not None
    assert still["body"]["comments"][1]["reactionAnnotationIds"] == [made["annotationId"]]

    gone = await post(api, ws, DELETE, reaction("dave"))
    assert gone.status == 200, gone.body
    assert gone.data["fromUsers"] == []
    after = await stored(database_url, ws, "a1")
    assert after is not None
    assert after["body"]["comments"][1]["reactionAnnotationIds"] == []
    assert after["body"]["comments"][1]["reactionAnnotations"] == []
    kinds = [e["type"] for e in await events(database_url, nats_url, ws)]
    assert kinds[-2:] == ["comments.comment.reaction_delete"] * 2

    missing = await post(api, ws, DELETE, reaction("dave"))
    assert_failure(missing, 404, "NOT_FOUND")


async def test_unknown_annotation_or_comment_is_not_found(
    api: ApiClient, database_url: str
) -> None:
    ws = await api.create_workspace("missing@example.com")
    await insert(database_url, [row(ws, "a1")])

    assert_failure(await post(api, ws, ADD, reaction("carol", comment_id=7)), 404, "NOT_FOUND")
    assert_failure(
        await post(api, ws, ADD, {**reaction("carol"), "annotationId": "zz"}), 404, "NOT_FOUND"
    )
    bad = await post(api, ws, ADD, {**reaction("carol"), "icon": ""})
    assert_failure(bad, 400, "INVALID_ARGUMENT")


async def test_another_workspace_cannot_react(
    api: ApiClient, database_url: str, nats_url: str
) -> None:
    owner = await api.create_workspace("a@example.com")
    intruder = await api.create_workspace("b@example.com")
    await insert(database_url, [row(owner, "a1", replies=("bob",))])

    assert_failure(await post(api, intruder, ADD, reaction("carol")), 404, "NOT_FOUND")
    for side in (owner, intruder):
        assert await events(database_url, nats_url, side) == []


async def test_user_tokens_react_as_themselves_with_the_editor_role(
    api: ApiClient, database_url: str
) -> None:
    ws = await api.create_workspace("tokens@example.com")
    await insert(database_url, [row(ws, "a1", replies=("bob",))])
    editor = await user_headers(api, ws, "ed", "editor")
    viewer = await user_headers(api, ws, "vi", "viewer")

    denied = await api.post(ADD, reaction("vi"), headers=viewer)
    assert_failure(denied, 403, "PERMISSION_DENIED")
    posing = await api.post(ADD, reaction("someone"), headers=editor)
    assert_failure(posing, 403, "PERMISSION_DENIED")
    allowed = await api.post(ADD, reaction("ed"), headers=editor)
    assert allowed.status == 200, allowed.body
    removed = await api.post(DELETE, reaction("ed"), headers=editor)
    assert removed.status == 200, removed.body

"""Resolving suggestions: accept and reject from pending only, resolved_by, events, errors,
tenancy and user tokens."""

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

RESOLVE = "/v2/commentannotations/suggestions/resolve"


def resolution(action: str, user_id: str = "carol", **extra: Any) -> dict[str, Any]:
    return {
        "organizationId": "acme",
        "documentId": "d1",
        "annotationId": "s1",
        "action": action,
        "user": {"userId": user_id},
        **extra,
    }


async def resolve(api: ApiClient, ws: Workspace, data: dict[str, Any]) -> Any:
    return await api.post(RESOLVE, data, headers=ws.key_headers)


async def test_accepting_a_pending_suggestion(
    api: ApiClient, database_url: str, nats_url: str
) -> None:
    ws = await api.create_workspace("accept@example.com")
    await insert(database_url, [row(ws, "s1", suggestion="pending")])

    accepted = await resolve(api, ws, resolution("accept", reason="Good catch"))

    assert accepted.status == 200, accepted.body
    assert accepted.data["annotationId"] == "s1"
    assert accepted.data["suggestion"] == {"status": "accepted"}
    kept = await stored(database_url, ws, "s1")
    assert kept is not None
    assert kept["suggestion_status"] == "accepted"
    assert kept["resolved_by"] == "carol"
    assert kept["body"]["lastUpdated"] == kept["last_updated"] > 1_700_000_000_000
    emitted = await events(database_url, nats_url, ws)
    assert [e["type"] for e in emitted] == ["comments.comment_annotation.suggestion_accept"]
    assert emitted[0]["reason"] == "Good catch"
    assert emitted[0]["actionUser"] == {"userId": "carol"}
    assert emitted[0]["before"]["suggestion"] == {"status": "pending"}


async def test_rejecting_and_resolving_twice(
    api: ApiClient, database_url: str, nats_url: str
) -> None:
    ws = await api.create_workspace("reject@example.com")
    await insert(database_url, [row(ws, "s1", suggestion="pending")])

    rejected = await resolve(api, ws, resolution("reject"))
    assert rejected.status == 200, rejected.body
    assert rejected.data["suggestion"]["status"] == "rejected"

    twice = await resolve(api, ws, resolution("accept", user_id="dave"))
    assert_failure(twice, 400, "FAILED_PRECONDITION")
    kept = await stored(database_url, ws, "s1")
    assert kept is not None
    assert (kept["suggestion_status"], kept["resolved_by"]) == ("rejected", "carol")
    assert [e["type"] for e in await events(database_url, nats_url, ws)] == [
        "comments.comment_annotation.suggestion_reject"
    ]


async def test_only_suggestions_can_be_resolved(api: ApiClient, database_url: str) -> None:
    ws = await api.create_workspace("comment@example.com")
    await insert(database_url, [row(ws, "s1")])

    assert_failure(await resolve(api, ws, resolution("accept")), 400, "FAILED_PRECONDITION")
    missing = await resolve(api, ws, {**resolution("accept"), "annotationId": "nope"})
    assert_failure(missing, 404, "NOT_FOUND")
    bad = await resolve(api, ws, resolution("maybe"))
    assert_failure(bad, 400, "INVALID_ARGUMENT")


async def test_another_workspace_cannot_resolve(api: ApiClient, database_url: str) -> None:
    owner = await api.create_workspace("a@example.com")
    intruder = await api.create_workspace("b@example.com")
    await insert(database_url, [row(owner, "s1", suggestion="pending")])

    assert_failure(await resolve(api, intruder, resolution("accept")), 404, "NOT_FOUND")
    kept = await stored(database_url, owner, "s1")
    assert kept is not None
    assert kept["suggestion_status"] == "pending"


async def test_user_tokens_resolve_as_themselves_with_the_editor_role(
    api: ApiClient, database_url: str
) -> None:
    ws = await api.create_workspace("tokens@example.com")
    await insert(database_url, [row(ws, "s1", suggestion="pending")])
    editor = await user_headers(api, ws, "ed", "editor")
    viewer = await user_headers(api, ws, "vi", "viewer")

    denied = await api.post(RESOLVE, resolution("accept", "vi"), headers=viewer)
    assert_failure(denied, 403, "PERMISSION_DENIED")
    posing = await api.post(RESOLVE, resolution("accept", "carol"), headers=editor)
    assert_failure(posing, 403, "PERMISSION_DENIED")
    allowed = await api.post(RESOLVE, resolution("accept", "ed"), headers=editor)
    assert allowed.status == 200, allowed.body
    kept = await stored(database_url, ws, "s1")
    assert kept is not None
    assert kept["resolved_by"] == "ed"

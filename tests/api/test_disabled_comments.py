"""A disabled document, or a document of a disabled organization, is read-only for comments: every
write family is refused with FAILED_PRECONDITION and changes nothing, reads go on, and enabling
it again restores the writes."""

from __future__ import annotations

from typing import Any

import pytest

from redline.testing.api import ApiClient, Workspace, assert_failure
from tests.api.comments_changes import events, insert, row, stored, user_headers
from tests.api.disable_support import (
    disable_doc,
    disable_org,
    set_docs_disabled,
    set_orgs_disabled,
    until_accepted,
)
from tests.api.documents_support import add_docs

DOC = {"organizationId": "acme", "documentId": "d1"}
STATUS = {"id": "done", "name": "Done", "type": "terminal"}
COMMENT = {"from": {"userId": "alice"}, "commentText": "Hello"}

# Every write of comments, one request each, in an order that succeeds once it is enabled.
WRITES: list[tuple[str, str, dict[str, Any]]] = [
    (
        "annotation add",
        "/v2/commentannotations/add",
        {**DOC, "commentAnnotations": [{"annotationId": "a2", "commentData": [COMMENT]}]},
    ),
    (
        "comment add",
        "/v2/commentannotations/comments/add",
        {**DOC, "annotationId": "a1", "commentData": [COMMENT]},
    ),
    (
        "annotation update",
        "/v2/commentannotations/update",
        {**DOC, "annotationIds": ["a1"], "updatedData": [{"context": {"k": 1}}]},
    ),
    (
        "status",
        "/v2/commentannotations/update",
        {**DOC, "annotationIds": ["a1"], "updatedData": [{"status": STATUS}]},
    ),
    (
        "assign",
        "/v2/commentannotations/update",
        {**DOC, "annotationIds": ["a1"], "updatedData": [{"assignedTo": {"userId": "dave"}}]},
    ),
    (
        "comment update",
        "/v2/commentannotations/comments/update",
        {**DOC, "annotationId": "a1", "commentId": 2, "commentText": "edited"},
    ),
    (
        "reaction add",
        "/v2/commentannotations/reactions/add",
        {**DOC, "annotationId": "a1", "commentId": 2, "icon": "heart", "user": {"userId": "c"}},
    ),
    (
        "reaction delete",
        "/v2/commentannotations/reactions/delete",
        {**DOC, "annotationId": "a1", "commentId": 2, "icon": "heart", "user": {"userId": "c"}},
    ),
    (
        "suggestion resolve",
        "/v2/commentannotations/suggestions/resolve",
        {**DOC, "annotationId": "s1", "action": "accept", "user": {"userId": "carol"}},
    ),
    (
        "comment delete",
        "/v2/commentannotations/comments/delete",
        {**DOC, "annotationId": "a1", "commentIds": [2]},
    ),
    ("annotation delete", "/v2/commentannotations/delete", {**DOC, "annotationIds": ["a1"]}),
]


async def _seeded(api: ApiClient, database_url: str) -> Workspace:
    ws = await api.create_workspace()
    added = await add_docs(api, ws, "d1", "d2")
    assert added.status == 200, added.body
    await insert(
        database_url,
        [row(ws, "a1", replies=("bob",)), row(ws, "s1", number=2, suggestion="pending")],
    )
    return ws


async def _bodies(database_url: str, ws: Workspace) -> dict[str, Any]:
    return {a: await stored(database_url, ws, a) for a in ("a1", "a2", "s1")}


@pytest.mark.parametrize("level", ["document", "organization"])
async def test_every_comment_write_is_refused_and_changes_nothing(
    api: ApiClient, database_url: str, nats_url: str, level: str
) -> None:
    ws = await _seeded(api, database_url)
    before = await _bodies(database_url, ws)
    if level == "document":
        await disable_doc(api, ws, "d1")
    else:
        await disable_org(api, ws)

    for name, path, body in WRITES:
        refused = await api.post(path, body, headers=ws.key_headers)
        error = assert_failure(refused, 400, "FAILED_PRECONDITION")
        assert error["details"]["reason"] == f"{level}-disabled", name

    assert await _bodies(database_url, ws) == before
    assert await events(database_url, nats_url, ws) == []


async def test_reads_go_on_while_disabled(api: ApiClient, database_url: str) -> None:
    ws = await _seeded(api, database_url)
    await disable_doc(api, ws, "d1")

    got = await api.post("/v2/commentannotations/get", DOC, headers=ws.key_headers)
    counted = await api.post(
        "/v2/commentannotations/count/get",
        {"organizationId": "acme", "documentIds": ["d1"], "userId": "alice"},
        headers=ws.key_headers,
    )

    assert got.status == 200, got.body
    assert {a["annotationId"] for a in got.data} == {"a1", "s1"}
    assert counted.status == 200, counted.body


async def test_another_document_of_the_organization_stays_writable(
    api: ApiClient, database_url: str
) -> None:
    ws = await _seeded(api, database_url)
    await disable_doc(api, ws, "d1")

    added = await api.post(
        "/v2/commentannotations/add",
        {
            "organizationId": "acme",
            "documentId": "d2",
            "commentAnnotations": [{"commentData": [COMMENT]}],
        },
        headers=ws.key_headers,
    )

    assert added.status == 200, added.body


async def test_a_user_token_editor_is_refused_as_disabled_not_as_unauthorised(
    api: ApiClient, database_url: str
) -> None:
    ws = await _seeded(api, database_url)
    editor = await user_headers(api, ws, "ed", "editor")
    await disable_doc(api, ws, "d1")

    refused = await api.post(
        "/v2/commentannotations/update",
        {**DOC, "updatedData": [{"context": {"k": 1}}]},
        headers=editor,
    )

    assert_failure(refused, 400, "FAILED_PRECONDITION")


async def test_enabling_again_restores_every_write(api: ApiClient, database_url: str) -> None:
    ws = await _seeded(api, database_url)
    await disable_doc(api, ws, "d1")
    await disable_org(api, ws)
    refused = await api.post(WRITES[0][1], WRITES[0][2], headers=ws.key_headers)
    assert_failure(refused, 400, "FAILED_PRECONDITION")

    enabled = await set_docs_disabled(api, ws, "d1", disabled=False)
    assert enabled.status == 200, enabled.body
    still = await api.post(WRITES[0][1], WRITES[0][2], headers=ws.key_headers)
    assert_failure(still, 400, "FAILED_PRECONDITION")  # the organization is still disabled
    assert (await set_orgs_disabled(api, ws, "acme", disabled=False)).status == 200

    first = await until_accepted(api, ws, WRITES[0][1], WRITES[0][2])
    assert first.status == 200, first.body
    for name, path, body in WRITES[1:]:
        done = await api.post(path, body, headers=ws.key_headers)
        assert done.status == 200, (name, done.body)
    assert await stored(database_url, ws, "a1") is None  # the last write deleted it

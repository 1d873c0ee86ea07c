"""Who may add: verifyUserPermissions on authors, user tokens adding as their own user, and
another workspace or an unseen annotation refused."""

from __future__ import annotations

import asyncpg

from redline.testing.api import ApiClient, Workspace, assert_failure, issue_paths
from tests.api.comments_add_support import (
    add,
    add_comments,
    annotation,
    comment,
    stored,
)


async def make_private(api: ApiClient, ws: Workspace) -> None:
    """Public documents let anyone in: only members may reach an organizationPrivate one."""
    updated = await api.post(
        "/v2/organizations/documents/access/update",
        {"organizationId": "acme", "documentIds": ["d1"], "accessType": "organizationPrivate"},
        headers=ws.key_headers,
    )
    assert updated.status == 200, updated.body


async def test_verify_user_permissions_checks_every_author_before_anything_is_written(
    api: ApiClient, db: asyncpg.Connection
) -> None:
    ws = await api.create_workspace("verify@example.com")
    await add(api, ws)  # creates acme/d1
    await make_private(api, ws)
    members = await api.post(
        "/v2/users/add",
        {"organizationId": "acme", "users": [{"userId": "member", "accessRole": "viewer"}]},
        headers=ws.key_headers,
    )
    assert members.status == 200, members.body

    checked = await add(
        api,
        ws,
        annotation(comment("member"), comment("stranger"), annotationId="ok"),
        annotation(comment("stranger"), annotationId="no"),
        verifyUserPermissions=True,
    )

    # Checked before anything is written: one author without access rejects the whole request.
    error = assert_failure(checked, 403, "PERMISSION_DENIED")
    assert issue_paths(error) == [
        "data.commentAnnotations[0].commentData[1].from.userId",
        "data.commentAnnotations[1].commentData[0].from.userId",
    ]
    written = await db.fetchval(
        "SELECT count(*) FROM comments.annotation WHERE api_key = $1"
        " AND annotation_id IN ('ok', 'no')",
        ws.api_key,
    )
    assert written == 0
    admitted = await add(
        api,
        ws,
        annotation(comment("member"), annotationId="ok"),
        verifyUserPermissions=True,
    )
    assert admitted.status == 200, admitted.body
    assert (await stored(db, ws, "ok"))["creator_user_id"] == "member"
    unchecked = await add(api, ws, annotation(comment("stranger")))
    assert unchecked.status == 200, unchecked.body


async def test_comment_add_verifies_every_author(api: ApiClient) -> None:
    ws = await api.create_workspace("reply-verify@example.com")
    await add(api, ws, annotation(annotationId="r1"))
    await make_private(api, ws)
    await api.post(
        "/v2/users/add",
        {"organizationId": "acme", "users": [{"userId": "member"}]},
        headers=ws.key_headers,
    )
    refused = await add_comments(
        api, ws, "r1", comment("member"), comment("stranger"), verifyUserPermissions=True
    )
    assert issue_paths(assert_failure(refused, 403, "PERMISSION_DENIED")) == [
        "data.commentData[1].from.userId"
    ]
    allowed = await add_comments(api, ws, "r1", comment("member"), verifyUserPermissions=True)
    assert allowed.status == 200, allowed.body


async def user_token(api: ApiClient, ws: Workspace, user_id: str) -> dict[str, str]:
    made = await api.post("/v2/auth/generate_token", {"userId": user_id}, headers=ws.key_headers)
    assert made.status == 200, made.body
    return {"x-redline-api-key": ws.api_key, "x-redline-auth-token": made.data["token"]}


async def test_user_tokens_add_as_their_own_editor_user(api: ApiClient) -> None:
    ws = await api.create_workspace("tokens@example.com")
    await add(api, ws, annotation(annotationId="r1"))
    grants = await api.post(
        "/v2/users/add",
        {
            "organizationId": "acme",
            "users": [
                {"userId": "ed", "accessRole": "editor"},
                {"userId": "vi", "accessRole": "viewer"},
            ],
        },
        headers=ws.key_headers,
    )
    assert grants.status == 200, grants.body
    editor, viewer = await user_token(api, ws, "ed"), await user_token(api, ws, "vi")

    own = await add(api, ws, annotation(comment("ed")), headers=editor)
    assert own.status == 200, own.body
    reply = await add_comments(api, ws, "r1", comment("ed"), headers=editor)
    assert reply.status == 200, reply.body

    as_other = await add(api, ws, annotation(comment("alice")), headers=editor)
    assert issue_paths(assert_failure(as_other, 403, "PERMISSION_DENIED")) == [
        "data.commentAnnotations[0].commentData[0].from.userId"
    ]
    assert_failure(
        await add(api, ws, annotation(comment("vi")), headers=viewer), 403, "PERMISSION_DENIED"
    )
    assert_failure(
        await add_comments(api, ws, "r1", comment("vi"), headers=viewer), 403, "PERMISSION_DENIED"
    )


async def test_user_token_cannot_reply_to_a_restricted_annotation_it_cannot_see(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("restricted@example.com")
    await add(
        api,
        ws,
        annotation(annotationId="secret", visibility={"type": "restricted", "userIds": ["ok"]}),
    )
    await api.post(
        "/v2/users/add",
        {"organizationId": "acme", "users": [{"userId": "ed"}, {"userId": "ok"}]},
        headers=ws.key_headers,
    )
    hidden = await add_comments(
        api, ws, "secret", comment("ed"), headers=await user_token(api, ws, "ed")
    )
    assert_failure(hidden, 404, "NOT_FOUND")
    seen = await add_comments(
        api, ws, "secret", comment("ok"), headers=await user_token(api, ws, "ok")
    )
    assert seen.status == 200, seen.body


async def test_another_workspace_cannot_reply_to_an_annotation(
    api: ApiClient, db: asyncpg.Connection
) -> None:
    a = await api.create_workspace("tenant-a@example.com")
    b = await api.create_workspace("tenant-b@example.com")
    await add(api, a, annotation(annotationId="mine"))

    other = await add_comments(
        api, b, "mine", comment(), createOrganization=True, createDocument=True
    )
    assert_failure(other, 404, "NOT_FOUND")
    # B may use the same id for its own annotation; A's stays untouched.
    assert (await add(api, b, annotation(annotationId="mine"))).status == 200
    assert len((await stored(db, a, "mine"))["body"]["comments"]) == 1


async def test_a_creator_replies_to_their_own_organization_private_annotation(
    api: ApiClient,
) -> None:
    """Whoever reaches a public document only because it is public does not see its
    organizationPrivate annotations, except the ones they created: they can reply to those as
    they can change and delete them (one visibility rule for add, change and read)."""
    ws = await api.create_workspace("own-private@example.com")
    mine = annotation(
        comment("pat"), annotationId="mine", visibility={"type": "organizationPrivate"}
    )
    theirs = annotation(
        comment("alice"), annotationId="theirs", visibility={"type": "organizationPrivate"}
    )
    assert (await add(api, ws, mine, theirs)).status == 200
    pat = await user_token(api, ws, "pat")
    replied = await add_comments(api, ws, "mine", comment("pat"), headers=pat)
    assert replied.status == 200, replied.body
    hidden = await add_comments(api, ws, "theirs", comment("pat"), headers=pat)
    assert_failure(hidden, 404, "NOT_FOUND")


async def test_the_object_forms_of_the_create_flags_name_what_they_create(api: ApiClient) -> None:
    """The hosted product's request collection sends `createOrganization` / `createDocument` as
    objects: what is missing is created with those names; the author's `userName`/`userEmail`
    are kept as `name`/`email`, and a comment's own `metadata` as sent."""
    ws = await api.create_workspace("named-create@example.com")
    author = {"userId": "ana", "userName": "Ana", "userEmail": "ana@example.com"}
    added = await add(
        api,
        ws,
        annotation(comment("ana", metadata={"ticket": "T-1"}) | {"from": author}),
        organizationId="named-org",
        documentId="named-doc",
        createOrganization={"organizationName": "Named Org", "organizationType": "team"},
        createDocument={"documentName": "Named Doc", "documentType": "page"},
    )
    assert added.status == 200, added.body

    organizations = await api.post(
        "/v2/organizations/get", {"organizationIds": ["named-org"]}, headers=ws.key_headers
    )
    assert organizations.data[0]["organizationName"] == "Named Org"
    documents = await api.post(
        "/v2/organizations/documents/get",
        {"organizationId": "named-org", "documentIds": ["named-doc"]},
        headers=ws.key_headers,
    )
    assert documents.data[0]["documentName"] == "Named Doc"
    threads = await api.post(
        "/v2/commentannotations/get",
        {"organizationId": "named-org", "documentId": "named-doc"},
        headers=ws.key_headers,
    )
    first = threads.data[0]["comments"][0]
    assert first["from"] == {"userId": "ana", "name": "Ana", "email": "ana@example.com"}
    assert first["metadata"] == {"ticket": "T-1"}


async def test_an_object_create_flag_still_refuses_unknown_fields(api: ApiClient) -> None:
    ws = await api.create_workspace("named-create-bad@example.com")
    refused = await add(api, ws, annotation(), createOrganization={"organizationTitle": "x"})
    error = assert_failure(refused, 400, "INVALID_ARGUMENT")
    assert "data.createOrganization" in error["message"]

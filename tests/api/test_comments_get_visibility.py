"""What a user token sees through the read endpoints: documents it has a role on, and in them
public annotations, organizationPrivate ones unless it reaches the document only because it is
public, restricted ones it wrote, is named in or is assigned."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, Response, Workspace
from tests.api.comments_rows import insert, row

GET = "/v2/commentannotations/get"
COMMENTS = "/v1/commentannotations/comments/get"


def as_user(ws: Workspace, token: str) -> dict[str, str]:
    return {"x-redline-api-key": ws.api_key, "x-redline-auth-token": token}


async def token_for(api: ApiClient, ws: Workspace, user_id: str) -> str:
    response = await api.post(
        "/v2/auth/generate_token", {"userId": user_id}, headers=ws.key_headers
    )
    assert response.status == 200, response.body
    token: str = response.data["token"]
    return token


async def grant(api: ApiClient, ws: Workspace, user_id: str, resource: dict[str, Any]) -> None:
    response = await api.post(
        "/v2/auth/permissions/add",
        {"user": {"userId": user_id}, "permissions": {"resources": [resource]}},
        headers=ws.key_headers,
    )
    assert response.status == 200, response.body


async def setting(api: ApiClient, database_url: str) -> Workspace:
    """Documents pub (public), priv (organizationPrivate), sec (restricted) in acme. Users: mia
    is a member of acme, vic a viewer of sec, olga has no grant at all."""
    ws = await api.create_workspace("visibility@example.com")
    added = await api.post(
        "/v2/organizations/documents/add",
        {
            "organizationId": "acme",
            "createOrganization": True,
            "documents": [{"documentId": d} for d in ("pub", "priv", "sec")],
        },
        headers=ws.key_headers,
    )
    assert added.status == 200, added.body
    for document, access in (("priv", "organizationPrivate"), ("sec", "restricted")):
        changed = await api.post(
            "/v2/organizations/documents/access/update",
            {"organizationId": "acme", "documentIds": [document], "accessType": access},
            headers=ws.key_headers,
        )
        assert changed.status == 200, changed.body
    await grant(api, ws, "mia", {"type": "organization", "id": "acme"})
    await grant(
        api,
        ws,
        "vic",
        {"type": "document", "id": "sec", "organizationId": "acme", "accessRole": "viewer"},
    )
    t = 1_700_000_000_000
    await insert(
        database_url,
        [
            row(ws, "p-public", doc="pub", at=t + 6),
            row(ws, "p-org", doc="pub", at=t + 5, visibility="organizationPrivate"),
            row(ws, "p-named", doc="pub", at=t + 4, visibility="restricted", visible_to=("mia",)),
            row(ws, "p-assigned", doc="pub", at=t + 3, visibility="restricted", assignee="olga"),
            row(ws, "p-own", doc="pub", at=t + 2, visibility="restricted", author="vic"),
            row(ws, "q-public", doc="priv", at=t + 1),
            row(ws, "s-public", doc="sec", at=t),
        ],
    )
    return ws


def ids(response: Response) -> list[str | None]:
    assert response.status == 200, response.body
    return [None if a is None else a["annotationId"] for a in response.data]


async def test_each_user_sees_what_they_may(api: ApiClient, database_url: str) -> None:
    ws = await setting(api, database_url)
    seen = {}
    for user_id in ("mia", "vic", "olga"):
        token = await token_for(api, ws, user_id)
        seen[user_id] = ids(
            await api.post(GET, {"organizationId": "acme"}, headers=as_user(ws, token))
        )

    assert seen["mia"] == ["p-public", "p-org", "p-named", "q-public"]
    assert seen["vic"] == ["p-public", "p-own", "s-public"]
    assert seen["olga"] == ["p-public", "p-assigned"]
    everything = ids(await api.post(GET, {"organizationId": "acme"}, headers=ws.key_headers))
    assert len(everything) == 7


async def test_a_restricted_document_is_hidden_from_members(
    api: ApiClient, database_url: str
) -> None:
    ws = await setting(api, database_url)
    mia = as_user(ws, await token_for(api, ws, "mia"))
    vic = as_user(ws, await token_for(api, ws, "vic"))

    by_document = await api.post(GET, {"organizationId": "acme", "documentId": "sec"}, headers=mia)
    by_id = await api.post(
        GET, {"organizationId": "acme", "annotationIds": ["s-public", "q-public"]}, headers=mia
    )
    viewer = await api.post(GET, {"organizationId": "acme", "documentId": "sec"}, headers=vic)
    comments = {
        "organizationId": "acme",
        "documentId": "sec",
        "annotationId": "s-public",
    }
    denied = await api.post(COMMENTS, comments, headers=mia)
    allowed = await api.post(COMMENTS, comments, headers=vic)

    assert ids(by_document) == []
    assert ids(by_id) == [None, "q-public"]
    assert ids(viewer) == ["s-public"]
    assert denied.status == 403
    assert denied.error["status"] == "PERMISSION_DENIED"
    assert allowed.status == 200
    assert [c["commentId"] for c in allowed.data] == [1]


async def test_comments_follow_annotation_visibility(api: ApiClient, database_url: str) -> None:
    ws = await setting(api, database_url)
    olga = as_user(ws, await token_for(api, ws, "olga"))

    async def comments(annotation_id: str) -> Response:
        return await api.post(
            COMMENTS,
            {
                "organizationId": "acme",
                "documentId": "pub",
                "annotationId": annotation_id,
                "commentIds": [1],
            },
            headers=olga,
        )

    assert (await comments("p-org")).data == [None]
    assert (await comments("p-named")).data == [None]
    assert [c["commentId"] for c in (await comments("p-assigned")).data] == [1]


async def test_a_user_token_pages_through_what_it_may_see(
    api: ApiClient, database_url: str
) -> None:
    ws = await setting(api, database_url)
    mia = as_user(ws, await token_for(api, ws, "mia"))
    seen: list[str | None] = []
    token: str | None = None
    while True:
        extra = {} if token is None else {"pageToken": token}
        page = await api.post(GET, {"organizationId": "acme", "pageSize": 3, **extra}, headers=mia)
        seen += ids(page)
        token = page.result.get("nextPageToken")
        if token is None:
            break

    assert seen == ["p-public", "p-org", "p-named", "q-public"]

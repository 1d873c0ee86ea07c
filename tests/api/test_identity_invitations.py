"""Invitations: validation, the relay required to invite, answers through invite/respond and
through the mailed link (once, before it expires), the lists and the pending count, tenancy."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg

from redline.testing.api import (
    ApiClient,
    Response,
    StartApi,
    Workspace,
    assert_failure,
    issue_paths,
)
from redline.testing.mail import Mailbox
from tests.api.mail_support import api_with_relay, link_in, open_link

ORG = "acme"


async def call(api: ApiClient, ws: Workspace, path: str, data: dict[str, Any]) -> Response:
    return await api.post(path, data, headers=ws.key_headers)


async def invite(api: ApiClient, ws: Workspace, email: str, **fields: Any) -> dict[str, Any]:
    data = {"email": email, "organizationId": ORG, "type": "org_user", **fields}
    response = await call(api, ws, "/v2/users/invite/add", data)
    assert response.status == 200, response.body
    assert response.result["message"] == "User invited successfully."
    invitation: dict[str, Any] = response.data
    return invitation


async def invitations(api: ApiClient, ws: Workspace, **filters: Any) -> list[dict[str, Any]]:
    response = await call(api, ws, "/v2/users/invite/get", {"organizationId": ORG, **filters})
    assert response.status == 200, response.body
    listed: list[dict[str, Any]] = response.data
    return listed


async def pending(api: ApiClient, ws: Workspace, invite_type: str = "org_user") -> int:
    response = await call(
        api, ws, "/v2/users/invite/pending/count", {"organizationId": ORG, "type": invite_type}
    )
    assert response.status == 200, response.body
    count: int = response.data["count"]
    return count


async def members(api: ApiClient, ws: Workspace, **level: str) -> list[str]:
    response = await call(api, ws, "/v2/users/get", {"organizationId": ORG, **level})
    assert response.status == 200, response.body
    return [user["userId"] for user in response.data]


async def user_token(api: ApiClient, ws: Workspace, user_id: str) -> str:
    response = await call(api, ws, "/v2/auth/generate_token", {"userId": user_id})
    assert response.status == 200, response.body
    token: str = response.data["token"]
    return token


# validation and the relay ------------------------------------------------------------------------


async def test_invite_add_validates_its_request(api: ApiClient) -> None:
    ws = await api.create_workspace("invite-bad@example.com")
    base = {"email": "ada@example.com", "organizationId": ORG}
    path = "/v2/users/invite/add"

    cases = {
        "data.documentId": {**base, "type": "doc_user"},
        "data.folderId": {**base, "type": "org_user", "folderId": "f1"},
        "data.type": {**base, "type": "team_user"},
        "data.email": {**base, "type": "org_user", "email": "ada"},
        "data.organizationId": {"email": "ada@example.com", "type": "org_user"},
        "data.invitedBy.role": {**base, "type": "org_user", "invitedBy": {"role": "x"}},
    }
    for field, data in cases.items():
        error = assert_failure(await call(api, ws, path, data), 400, "INVALID_ARGUMENT")
        assert issue_paths(error) == [field], (field, error)


async def test_without_a_relay_an_invitation_names_the_setting_and_writes_nothing(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("invite-norelay@example.com")

    response = await call(
        api,
        ws,
        "/v2/users/invite/add",
        {"email": "ada@example.com", "organizationId": ORG, "type": "org_user"},
    )

    error = assert_failure(response, 400, "FAILED_PRECONDITION")
    assert "REDLINE_SMTP_URL" in error["message"]
    assert await invitations(api, ws) == []
    orgs = await call(api, ws, "/v2/organizations/get", {"organizationIds": [ORG]})
    assert orgs.data == [], orgs.body


async def test_respond_validates_its_request(api: ApiClient) -> None:
    ws = await api.create_workspace("respond-bad@example.com")
    base = {"email": "ada@example.com", "organizationId": ORG, "type": "org_user"}
    path = "/v2/users/invite/respond"

    pending_answer = await call(api, ws, path, {**base, "status": "PENDING"})
    unknown = await call(api, ws, path, {**base, "status": "REJECTED"})
    no_user = await call(api, ws, path, {**base, "status": "ACCEPTED", "authToken": "x"})

    assert issue_paths(assert_failure(pending_answer, 400, "INVALID_ARGUMENT")) == ["data.status"]
    assert assert_failure(unknown, 404, "NOT_FOUND")["message"] == "Invitation not found."
    assert issue_paths(assert_failure(no_user, 400, "INVALID_ARGUMENT")) == ["data.user"]


# with a relay -------------------------------------------------------------------------------------


async def sent_invitation(
    api: ApiClient, mailbox: Mailbox, ws: Workspace, email: str, count: int = 1, **fields: Any
) -> tuple[dict[str, Any], str]:
    invitation = await invite(api, ws, email, **fields)
    mail = await mailbox.wait_for(count)
    return invitation, link_in(mail[-1])


async def test_an_invitation_is_mailed_listed_and_counted(start_api: StartApi) -> None:
    async with api_with_relay(start_api) as (api, mailbox):
        ws = await api.create_workspace("inviter@example.com")
        await call(
            api,
            ws,
            "/v2/workspace/emailconfig/update",
            {"emailServiceConfig": {"fromCompany": "Acme", "fromEmail": "team@acme.dev"}},
        )
        invitation = await invite(
            api,
            ws,
            "Ada@Example.com",
            organizationName="Acme Inc",
            invitedBy={"email": "grace@acme.dev", "userId": "grace", "clientUserId": "grace"},
        )
        [mail] = await mailbox.wait_for(1)
        listed = await invitations(api, ws)
        of_user = await call(
            api,
            ws,
            "/v2/users/invitations/get",
            {"organizationId": ORG, "email": "ada@example.com", "status": "PENDING"},
        )
        count = await pending(api, ws)

    assert invitation["email"] == "ada@example.com"
    assert invitation["status"] == "PENDING"
    assert invitation["organizationName"] == "Acme Inc"
    assert invitation["invitedBy"]["userId"] == "grace"
    assert invitation["expiresAt"] > invitation["createdAt"]
    assert mail.recipients == ["ada@example.com"]
    assert mail.message["Subject"] == "grace@acme.dev invited you to Acme Inc"
    # Framed as the workspace's words; team@acme.dev is not an address it proved it reads.
    assert mail.message["From"].addresses[0].display_name == "Acme via Redline"
    assert mail.message["Reply-To"] is None
    assert link_in(mail).startswith("https://redline.example.com/v2/users/invite/accept?token=")
    assert listed == [invitation]
    assert of_user.data == [invitation]
    assert count == 1


async def test_accepting_by_respond_needs_the_invitees_token_and_makes_a_member(
    start_api: StartApi,
) -> None:
    async with api_with_relay(start_api) as (api, mailbox):
        ws = await api.create_workspace("respond-ok@example.com")
        await sent_invitation(api, mailbox, ws, "ada@example.com", documentId="d1", type="doc_user")
        base = {
            "email": "ada@example.com",
            "organizationId": ORG,
            "type": "doc_user",
            "documentId": "d1",
            "status": "ACCEPTED",
            # Fields of the hosted product's user object beyond the profile are accepted.
            "user": {"userId": "ada", "name": "Ada Lovelace", "clientUserName": "Ada"},
        }
        path = "/v2/users/invite/respond"
        someone_else = await call(
            api, ws, path, {**base, "authToken": await user_token(api, ws, "bob")}
        )
        forged = await call(api, ws, path, {**base, "authToken": "eyJhbGciOi.forged.token"})
        accepted = await call(
            api, ws, path, {**base, "authToken": await user_token(api, ws, "ada")}
        )
        again = await call(api, ws, path, {**base, "status": "WITHDRAWN"})
        doc_members = await members(api, ws, documentId="d1")
        count = await pending(api, ws, "doc_user")

    assert_failure(someone_else, 403, "PERMISSION_DENIED")
    assert_failure(forged, 403, "PERMISSION_DENIED")
    assert accepted.status == 200, accepted.body
    assert accepted.data["status"] == "ACCEPTED"
    assert accepted.data["userId"] == "ada"
    assert accepted.data["documentId"] == "d1"
    assert assert_failure(again, 400, "FAILED_PRECONDITION")["message"] == (
        "The invitation is already ACCEPTED."
    )
    assert doc_members == ["ada"]
    assert count == 0


async def test_a_rejected_invitation_link_no_longer_works(start_api: StartApi) -> None:
    async with api_with_relay(start_api) as (api, mailbox):
        ws = await api.create_workspace("reject@example.com")
        _, link = await sent_invitation(api, mailbox, ws, "ada@example.com")
        rejected = await call(
            api,
            ws,
            "/v2/users/invite/respond",
            {
                "email": "ada@example.com",
                "organizationId": ORG,
                "type": "org_user",
                "status": "REJECTED",
            },
        )
        opened = await open_link(api, link)
        used = await open_link(api, link, method="POST")
        org_members = await members(api, ws)

    assert rejected.data["status"] == "REJECTED"
    assert opened.status == 410
    assert used.status == 410
    assert org_members == []


async def test_the_mailed_link_accepts_once(start_api: StartApi) -> None:
    async with api_with_relay(start_api) as (api, mailbox):
        ws = await api.create_workspace("link@example.com")
        await call(
            api,
            ws,
            "/v2/users/add",
            {
                "organizationId": "elsewhere",
                "users": [{"userId": "ada-1", "email": "ADA@example.com"}],
            },
        )
        _, link = await sent_invitation(
            api, mailbox, ws, "ada@example.com", type="folder_user", folderId="f1"
        )
        opened = await open_link(api, link)
        accepted = await open_link(api, link, method="POST")
        again = await open_link(api, link, method="POST")
        folder_members = await members(api, ws, folderId="f1")
        listed = await invitations(api, ws)

    assert opened.status == 200
    assert '<form method="post">' in opened.text
    assert accepted.status == 200
    assert "Invitation accepted" in accepted.text
    assert again.status == 410
    # The API key's one user with the invited address is the one who joins.
    assert folder_members == ["ada-1"]
    assert [(i["status"], i["userId"]) for i in listed] == [("ACCEPTED", "ada-1")]


async def test_an_expired_link_does_nothing_and_inviting_again_sends_a_new_one(
    start_api: StartApi, db: asyncpg.Connection
) -> None:
    async with api_with_relay(start_api) as (api, mailbox):
        ws = await api.create_workspace("expiry@example.com")
        _, old_link = await sent_invitation(api, mailbox, ws, "ada@example.com")
        await db.execute(
            "UPDATE identity.invitation SET token_expires_at = now() - interval '1 second'"
        )
        expired_page = await open_link(api, old_link)
        expired_use = await open_link(api, old_link, method="POST")
        still_pending = await pending(api, ws)
        _, new_link = await sent_invitation(api, mailbox, ws, "ada@example.com", count=2)
        old_again = await open_link(api, old_link, method="POST")
        accepted = await open_link(api, new_link, method="POST")
        org_members = await members(api, ws)

    assert expired_page.status == 410
    assert "expired" in expired_page.text
    assert expired_use.status == 410
    assert still_pending == 1
    assert new_link != old_link
    assert old_again.status == 404
    assert accepted.status == 200
    # No user of the key had the address: the address is the new user's id.
    assert org_members == ["ada@example.com"]


async def test_lists_come_a_page_at_a_time_and_filter(start_api: StartApi) -> None:
    async with api_with_relay(start_api) as (api, mailbox):
        ws = await api.create_workspace("pages@example.com")
        for n in range(3):
            await invite(api, ws, f"user{n}@example.com")
        await invite(api, ws, "user0@example.com", type="doc_user", documentId="d1")
        first = await call(api, ws, "/v2/users/invite/get", {"organizationId": ORG, "pageSize": 2})
        rest = await call(
            api,
            ws,
            "/v2/users/invite/get",
            {
                "organizationId": ORG,
                "pageSize": 2,
                "pageToken": first.body["result"]["nextPageToken"],
            },
        )
        docs = await call(
            api,
            ws,
            "/v2/users/invitations/get",
            {"organizationId": ORG, "email": "user0@example.com", "type": "doc_user"},
        )
        await mailbox.wait_for(4)

    assert [i["email"] for i in first.data] == ["user0@example.com", "user1@example.com"]
    assert [i["email"] for i in rest.data] == ["user2@example.com", "user0@example.com"]
    assert "nextPageToken" not in rest.body["result"]
    assert [(i["type"], i["documentId"]) for i in docs.data] == [("doc_user", "d1")]


async def test_invitations_stay_in_their_workspace(start_api: StartApi) -> None:
    async with api_with_relay(start_api) as (api, mailbox):
        ws = await api.create_workspace("mine@example.com")
        other = await api.create_workspace("theirs@example.com")
        _, link = await sent_invitation(api, mailbox, ws, "ada@example.com")
        theirs = await invitations(api, other)
        their_count = await pending(api, other)
        answered = await call(
            api,
            other,
            "/v2/users/invite/respond",
            {
                "email": "ada@example.com",
                "organizationId": ORG,
                "type": "org_user",
                "status": "WITHDRAWN",
            },
        )
        mine = await invitations(api, ws)

    assert theirs == []
    assert their_count == 0
    assert_failure(answered, 404, "NOT_FOUND")
    assert [i["status"] for i in mine] == ["PENDING"]
    assert link


async def test_invitations_to_a_document_follow_its_migration(start_api: StartApi) -> None:
    async with api_with_relay(start_api) as (api, mailbox):
        ws = await api.create_workspace("migrate-invite@example.com")
        await invite(api, ws, "ada@example.com", type="doc_user", documentId="old-doc")
        started = await call(
            api,
            ws,
            "/v2/organizations/documents/migrate",
            {"organizationId": ORG, "documentId": "old-doc", "newDocumentId": "new-doc"},
        )
        assert started.status == 200, started.body
        status = {"organizationId": ORG, "migrationId": started.data["migrationId"]}
        for _ in range(200):
            done = await call(api, ws, "/v2/organizations/documents/migrate/status", status)
            if done.data["status"] == "completed":
                break
            await asyncio.sleep(0.05)
        listed = await invitations(api, ws)
        await mailbox.wait_for(1)

    assert done.data["status"] == "completed", done.body
    assert [(i["type"], i["documentId"]) for i in listed] == [("doc_user", "new-doc")]

"""The mail an invitation sends through the operator's relay: bounded by the workspace's mail
quota (429 RESOURCE_EXHAUSTED past it, nothing written), and framed as the workspace's words
(`<name> via Redline`, a line saying the workspace wrote it, a Reply-To only to the workspace
owner's verified address)."""

from __future__ import annotations

from redline.testing.api import ApiClient, Response, StartApi, Workspace, assert_failure
from tests.api.mail_support import api_with_relay, link_in, open_link, with_settings

ORG = "acme"
WRITTEN_BY = "a workspace on Redline, and sent on its behalf; Redline did not write it."


async def invite(api: ApiClient, ws: Workspace, email: str) -> Response:
    data = {"email": email, "organizationId": ORG, "type": "org_user"}
    return await api.post("/v2/users/invite/add", data, headers=ws.key_headers)


async def email_config(api: ApiClient, ws: Workspace, **config: str) -> None:
    response = await api.post(
        "/v2/workspace/emailconfig/update",
        {"emailServiceConfig": config},
        headers=ws.key_headers,
    )
    assert response.status == 200, response.body


async def test_invitations_past_the_hourly_quota_are_refused_and_write_nothing(
    start_api: StartApi,
) -> None:
    async with api_with_relay(with_settings(start_api, mail_recipients_per_hour=2)) as (
        api,
        mailbox,
    ):
        ws = await api.create_workspace("quota-owner@example.com")
        neighbour = await api.create_workspace("neighbour-owner@example.com")
        first = await invite(api, ws, "ada@example.com")
        second = await invite(api, ws, "bob@example.com")
        third = await invite(api, ws, "eve@example.com")
        elsewhere = await invite(api, neighbour, "eve@example.com")
        await mailbox.wait_for(3)
        listed = await api.post(
            "/v2/users/invite/get", {"organizationId": ORG}, headers=ws.key_headers
        )

    assert first.status == second.status == 200
    error = assert_failure(third, 429, "RESOURCE_EXHAUSTED")
    assert "at most 2 recipients an hour" in error["message"]
    assert 1 <= int(third.headers["Retry-After"]) <= 3600
    assert elsewhere.status == 200, elsewhere.body
    assert sorted(r for m in mailbox.mail for r in m.recipients) == [
        "ada@example.com",
        "bob@example.com",
        "eve@example.com",
    ]
    assert sorted(i["email"] for i in listed.data) == ["ada@example.com", "bob@example.com"]


async def test_the_daily_quota_counts_the_last_24_hours(start_api: StartApi) -> None:
    async with api_with_relay(
        with_settings(start_api, mail_recipients_per_hour=10, mail_recipients_per_day=1)
    ) as (api, mailbox):
        ws = await api.create_workspace("daily-owner@example.com")
        first = await invite(api, ws, "ada@example.com")
        second = await invite(api, ws, "bob@example.com")
        await mailbox.wait_for(1)

    assert first.status == 200
    error = assert_failure(second, 429, "RESOURCE_EXHAUSTED")
    assert "at most 1 recipients a day" in error["message"]
    assert len(mailbox.mail) == 1


async def test_an_invitation_refused_by_the_relay_gives_its_quota_back(
    start_api: StartApi,
) -> None:
    async with api_with_relay(with_settings(start_api, mail_recipients_per_hour=1)) as (
        api,
        mailbox,
    ):
        mailbox.refused.add("gone@example.com")
        ws = await api.create_workspace("refused-owner@example.com")
        refused = await invite(api, ws, "gone@example.com")
        accepted = await invite(api, ws, "ada@example.com")
        await mailbox.wait_for(1)

    assert_failure(refused, 400, "INVALID_ARGUMENT")
    assert accepted.status == 200, accepted.body


async def test_the_invitation_is_framed_as_the_workspaces_words(start_api: StartApi) -> None:
    async with api_with_relay(start_api) as (api, mailbox):
        named = await api.create_workspace("framed-owner@example.com")
        await email_config(api, named, fromCompany="Acme Support", fromEmail="help@acme.dev")
        unnamed = await api.create_workspace("plain-owner@example.com")
        await invite(api, named, "ada@example.com")
        await invite(api, unnamed, "bob@example.com")
        by_name, by_workspace = await mailbox.wait_for(2)

    assert by_name.message["From"].addresses[0].display_name == "Acme Support via Redline"
    assert by_name.message["From"].addresses[0].addr_spec == "mail@redline.test"
    # help@acme.dev is not an address the workspace proved it reads: no Reply-To.
    assert by_name.message["Reply-To"] is None
    text = by_name.message.get_body(("plain",)).get_content()
    assert f"This message was written by Acme Support, {WRITTEN_BY}" in text
    workspace_name = by_workspace.message["From"].addresses[0].display_name
    assert workspace_name.endswith(" via Redline")
    assert workspace_name != "Redline via Redline"
    assert WRITTEN_BY in by_workspace.message.get_body(("plain",)).get_content()


async def test_replies_go_to_the_owners_address_once_a_login_link_verified_it(
    start_api: StartApi,
) -> None:
    async with api_with_relay(start_api) as (api, mailbox):
        ws = await api.create_workspace("verified-owner@example.com")
        await email_config(api, ws, fromCompany="Acme", fromEmail="Verified-Owner@example.com")
        await invite(api, ws, "ada@example.com")
        await api.post(
            "/v2/workspace/email/send-login-link",
            {"email": "verified-owner@example.com", "continueUrl": "http://localhost:3000/"},
        )
        before, login = await mailbox.wait_for(2)
        used = await open_link(api, link_in(login), method="POST")
        await invite(api, ws, "bob@example.com")
        after = (await mailbox.wait_for(3))[-1]

    assert used.status == 303
    assert before.message["Reply-To"] is None
    assert after.message["Reply-To"] == "verified-owner@example.com"
    # Redline's own mail (the login link) is not framed as a workspace's.
    assert login.message["From"].addresses[0].display_name == "Redline"
    assert WRITTEN_BY not in login.message.get_body(("plain",)).get_content()

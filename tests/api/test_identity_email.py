"""Email configuration (per API key), owner email status and login links: validation, defaults,
mail through a real SMTP server, and links that work once and expire."""

from __future__ import annotations

from typing import Any

import asyncpg

from redline.testing.api import ApiClient, StartApi, Workspace, assert_failure, issue_paths
from tests.api.config_support import STANDARD_TRIGGERS
from tests.api.mail_support import api_with_relay, link_in, open_link, token_of

DEFAULT_EMAIL_CONFIG = {
    "useEmailService": False,
    "emailServiceConfig": {
        "type": "default",
        "apiKey": "",
        "fromEmail": "",
        "fromCompany": "",
        "commentTemplateId": "",
        "tagTemplateId": "",
    },
}
SEEDED_EMAIL_TRIGGERS = dict.fromkeys(STANDARD_TRIGGERS | {"huddle.created", "huddle.joined"}, True)
CONTINUE = "http://localhost:3000/after-login"


async def config(api: ApiClient, ws: Workspace, path: str, data: Any = None) -> Any:
    response = await api.post(path, data, headers=ws.key_headers)
    assert response.status == 200, response.body
    return response.data


# email configuration -----------------------------------------------------------------------------


async def test_email_config_of_a_new_key_is_the_default(api: ApiClient) -> None:
    ws = await api.create_workspace("email-default@example.com")

    response = await api.post("/v2/workspace/emailconfig/get", headers=ws.key_headers)

    assert response.status == 200
    assert response.result["message"] == "Email configuration retrieved successfully."
    assert response.data == DEFAULT_EMAIL_CONFIG


async def test_first_enable_seeds_triggers_and_the_request_goes_over_them(api: ApiClient) -> None:
    ws = await api.create_workspace("email-seed@example.com")
    sent = {
        "type": "sendgrid",
        "apiKey": "SG.xxxxxxxxxx",
        "fromEmail": "noreply@example.com",
        "fromCompany": "Example Corp",
    }

    response = await api.post(
        "/v2/workspace/emailconfig/update",
        {"useEmailService": True, "emailServiceConfig": sent},
        headers=ws.key_headers,
    )

    assert response.result["message"] == "Email configuration updated successfully."
    expected = {
        "useEmailService": True,
        "emailServiceConfig": {
            **DEFAULT_EMAIL_CONFIG["emailServiceConfig"],
            **sent,
            "triggers": SEEDED_EMAIL_TRIGGERS,
        },
    }
    assert response.data == expected
    assert await config(api, ws, "/v2/workspace/emailconfig/get") == expected


async def test_type_custom_enables_and_later_updates_merge(api: ApiClient) -> None:
    ws = await api.create_workspace("email-custom@example.com")
    path = "/v2/workspace/emailconfig/update"

    named = await config(api, ws, path, {"emailServiceConfig": {"fromCompany": "Acme"}})
    enabled = await config(api, ws, path, {"emailServiceConfig": {"type": "custom"}})
    tuned = await config(
        api, ws, path, {"emailServiceConfig": {"triggers": {"comment.add": False}}}
    )

    assert named["useEmailService"] is False
    assert "triggers" not in named["emailServiceConfig"]
    assert enabled["useEmailService"] is True
    assert enabled["emailServiceConfig"]["type"] == "custom"
    assert enabled["emailServiceConfig"]["fromCompany"] == "Acme"
    assert enabled["emailServiceConfig"]["triggers"] == SEEDED_EMAIL_TRIGGERS
    assert tuned["emailServiceConfig"]["triggers"] == {
        **SEEDED_EMAIL_TRIGGERS,
        "comment.add": False,
    }


async def test_email_config_update_validates_its_request(api: ApiClient) -> None:
    ws = await api.create_workspace("email-bad@example.com")
    path = "/v2/workspace/emailconfig/update"

    empty = await api.post(path, {}, headers=ws.key_headers)
    bad_type = await api.post(path, {"emailServiceConfig": {"type": "ses"}}, headers=ws.key_headers)
    bad_from = await api.post(
        path, {"emailServiceConfig": {"fromEmail": "not an address"}}, headers=ws.key_headers
    )
    unknown = await api.post(path, {"emailServiceConfig": {"colour": 1}}, headers=ws.key_headers)

    assert issue_paths(assert_failure(empty, 400, "INVALID_ARGUMENT")) == ["data"]
    assert issue_paths(assert_failure(bad_type, 400, "INVALID_ARGUMENT")) == [
        "data.emailServiceConfig.type"
    ]
    assert issue_paths(assert_failure(bad_from, 400, "INVALID_ARGUMENT")) == [
        "data.emailServiceConfig.fromEmail"
    ]
    assert_failure(unknown, 400, "INVALID_ARGUMENT")
    assert await config(api, ws, "/v2/workspace/emailconfig/get") == DEFAULT_EMAIL_CONFIG


async def test_email_config_belongs_to_one_api_key(api: ApiClient) -> None:
    ws = await api.create_workspace("email-mine@example.com")
    other = await api.create_workspace("email-theirs@example.com")

    await config(api, ws, "/v2/workspace/emailconfig/update", {"useEmailService": True})

    assert await config(api, other, "/v2/workspace/emailconfig/get") == DEFAULT_EMAIL_CONFIG


# owner email status ------------------------------------------------------------------------------


async def test_email_status_needs_no_credentials_and_knows_only_owners(api: ApiClient) -> None:
    await api.create_workspace("Status-Owner@example.com")

    owner = await api.post("/v2/workspace/email/status", {"ownerEmail": "status-owner@example.com"})
    stranger = await api.post("/v2/workspace/email/status", {"ownerEmail": "nobody@example.com"})
    malformed = await api.post("/v2/workspace/email/status", {"ownerEmail": "nobody"})
    missing = await api.post("/v2/workspace/email/status", {})

    assert owner.status == 200
    assert owner.result["message"] == "Email not yet verified"
    assert owner.data == {"verified": False}
    assert assert_failure(stranger, 404, "NOT_FOUND")["message"] == "User not found"
    assert issue_paths(assert_failure(malformed, 400, "INVALID_ARGUMENT")) == ["data.ownerEmail"]
    assert issue_paths(assert_failure(missing, 400, "INVALID_ARGUMENT")) == ["data.ownerEmail"]


# login links -------------------------------------------------------------------------------------


async def test_send_login_link_checks_the_continue_url(api: ApiClient) -> None:
    path = "/v2/workspace/email/send-login-link"

    invalid = await api.post(path, {"email": "a@example.com", "continueUrl": "not a url"})
    elsewhere = await api.post(
        path, {"email": "a@example.com", "continueUrl": "https://evil.example.net/"}
    )
    no_email = await api.post(path, {"continueUrl": CONTINUE})

    assert assert_failure(invalid, 400, "INVALID_ARGUMENT")["message"] == (
        "Invalid url for continueUrl"
    )
    assert assert_failure(elsewhere, 400, "INVALID_ARGUMENT")["message"] == (
        "The continueUrl domain is not allowed."
    )
    assert issue_paths(invalid.error) == ["data.continueUrl"]
    assert issue_paths(assert_failure(no_email, 400, "INVALID_ARGUMENT")) == ["data.email"]


async def test_without_a_relay_sending_a_login_link_names_the_setting(api: ApiClient) -> None:
    await api.create_workspace("no-relay@example.com")

    response = await api.post(
        "/v2/workspace/email/send-login-link",
        {"email": "no-relay@example.com", "continueUrl": CONTINUE},
    )

    error = assert_failure(response, 400, "FAILED_PRECONDITION")
    assert "REDLINE_SMTP_URL" in error["message"]


async def test_a_login_link_verifies_the_owner_once_and_leads_on(start_api: StartApi) -> None:
    async with api_with_relay(start_api) as (api, mailbox):
        await api.create_workspace("login-owner@example.com")

        sent = await api.post(
            "/v2/workspace/email/send-login-link",
            {"email": "Login-Owner@example.com", "continueUrl": CONTINUE},
        )
        [mail] = await mailbox.wait_for(1)
        link = link_in(mail)
        opened = await open_link(api, link)
        used = await open_link(api, link, method="POST")
        again = await open_link(api, link, method="POST")
        reopened = await open_link(api, link)
        status = await api.post(
            "/v2/workspace/email/status", {"ownerEmail": "login-owner@example.com"}
        )

    assert sent.status == 200
    assert sent.result["message"] == "Login link sent successfully"
    assert sent.data is None
    assert mail.recipients == ["login-owner@example.com"]
    assert link.startswith("https://redline.example.com/v2/workspace/email/login?token=")
    assert opened.status == 200
    assert '<form method="post">' in opened.text
    assert used.status == 303
    assert used.headers["Location"] == CONTINUE
    assert again.status == 410
    assert "already used" in again.text
    assert reopened.status == 410
    assert status.data == {"verified": True}
    assert status.result["message"] == "Email verified and workspace reactivated"


async def test_an_expired_login_link_does_nothing(
    start_api: StartApi, db: asyncpg.Connection
) -> None:
    async with api_with_relay(start_api) as (api, mailbox):
        await api.create_workspace("expired-owner@example.com")
        await api.post(
            "/v2/workspace/email/send-login-link",
            {"email": "expired-owner@example.com", "continueUrl": CONTINUE},
        )
        [mail] = await mailbox.wait_for(1)
        await db.execute("UPDATE identity.login_link SET expires_at = now() - interval '1 second'")
        opened = await open_link(api, link_in(mail))
        used = await open_link(api, link_in(mail), method="POST")
        status = await api.post(
            "/v2/workspace/email/status", {"ownerEmail": "expired-owner@example.com"}
        )

    assert opened.status == 410
    assert "expired" in opened.text
    assert used.status == 410
    assert status.data == {"verified": False}


async def test_a_link_with_an_unknown_token_is_not_valid(start_api: StartApi) -> None:
    async with api_with_relay(start_api) as (api, mailbox):
        await api.create_workspace("guess-owner@example.com")
        await api.post(
            "/v2/workspace/email/send-login-link",
            {"email": "guess-owner@example.com", "continueUrl": CONTINUE},
        )
        [mail] = await mailbox.wait_for(1)
        guessed = link_in(mail).replace(token_of(link_in(mail)), "A" * 43)
        opened = await open_link(api, guessed)
        used = await open_link(api, guessed, method="POST")
        status = await api.post(
            "/v2/workspace/email/status", {"ownerEmail": "guess-owner@example.com"}
        )

    assert opened.status == 404
    assert used.status == 404
    assert status.data == {"verified": False}


async def test_an_address_that_owns_no_workspace_gets_no_mail(start_api: StartApi) -> None:
    async with api_with_relay(start_api) as (api, mailbox):
        owner = await api.create_workspace("real-owner@example.com")
        stranger = await api.post(
            "/v2/workspace/email/send-login-link",
            {"email": "stranger@example.com", "continueUrl": CONTINUE},
        )
        # A mail that does go out afterwards is the only one the server got.
        await api.post(
            "/v2/workspace/email/send-login-link",
            {"email": "real-owner@example.com", "continueUrl": CONTINUE},
        )
        mail = await mailbox.wait_for(1)

    assert owner.id
    assert stranger.status == 200
    assert [m.recipients for m in mail] == [["real-owner@example.com"]]

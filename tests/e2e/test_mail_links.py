"""Mail end to end: the system configured by REDLINE_SMTP_URL sends through a real SMTP server on
this machine; the links in the mail, followed as a browser follows them (no credentials), sign an
owner in and accept an invitation. Without the setting, the sending calls say it is missing."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from pytest_aiohttp import AiohttpClient

from redline.cli.system import create_system_app
from redline.local.processes import free_port
from redline.testing.api import ApiClient, Workspace, assert_failure
from redline.testing.mail import HOST, Mail, Mailbox, smtp_server

ORG = "acme"


class Mailed:
    """The system, the SMTP server it sends through, and the address its links point at."""

    def __init__(self, api: ApiClient, mailbox: Mailbox, public_url: str) -> None:
        self.api = api
        self.mailbox = mailbox
        self.public_url = public_url

    def link_in(self, mail: Mail) -> str:
        body = mail.message.get_body(("plain",))
        assert body is not None
        [link] = re.findall(re.escape(self.public_url) + r"/\S+", body.get_content())
        return str(link)


@pytest.fixture
async def mailed(
    runtime_overrides: dict[str, Any], aiohttp_client: AiohttpClient
) -> AsyncIterator[Mailed]:
    port = free_port(HOST)
    public_url = f"http://{HOST}:{port}"
    with smtp_server() as (mailbox, smtp_port):
        environ = {
            "REDLINE_SMTP_URL": f"smtp://{HOST}:{smtp_port}?security=none",
            "REDLINE_SMTP_FROM": "Redline <mail@redline.test>",
            "REDLINE_PUBLIC_URL": public_url,
        }
        app, _ = create_system_app(environ, **runtime_overrides)
        client = await aiohttp_client(app, server_kwargs={"port": port})
        yield Mailed(ApiClient(client.session, str(client.make_url(""))), mailbox, public_url)


async def follow(link: str) -> tuple[str, aiohttp.ClientResponse, str]:
    """Open the link in a fresh browser session, then press the page's one button; the page's
    text, and the answer to the button with its text."""
    async with aiohttp.ClientSession() as browser:
        async with browser.get(link) as opened:
            assert opened.status == 200, await opened.text()
            page = await opened.text()
        assert '<form method="post">' in page
        # A form without an action posts back to the page's own address, query string included.
        async with browser.post(link, allow_redirects=False) as pressed:
            return page, pressed, await pressed.text()


async def test_a_login_link_arrives_and_signs_the_owner_in(mailed: Mailed) -> None:
    api = mailed.api
    await api.create_workspace("owner@acme.dev")
    continue_url = "http://localhost:3000/welcome"

    sent = await api.post(
        "/v2/workspace/email/send-login-link",
        {"email": "owner@acme.dev", "continueUrl": continue_url},
    )
    [mail] = await mailed.mailbox.wait_for(1)
    link = mailed.link_in(mail)
    _, pressed, _ = await follow(link)
    status = await api.post("/v2/workspace/email/status", {"ownerEmail": "owner@acme.dev"})

    assert sent.status == 200, sent.body
    assert mail.recipients == ["owner@acme.dev"]
    assert mail.message["Subject"] == "Your Redline login link"
    assert link.startswith(f"{mailed.public_url}/v2/workspace/email/login?token=")
    assert pressed.status == 303
    assert pressed.headers["Location"] == continue_url
    assert status.data == {"verified": True}


async def ask(api: ApiClient, ws: Workspace, path: str, data: dict[str, Any]) -> Any:
    response = await api.post(path, data, headers=ws.key_headers)
    assert response.status == 200, response.body
    return response.data


async def test_an_invitation_link_accepts_the_invitation(mailed: Mailed) -> None:
    api = mailed.api
    ws = await api.create_workspace("inviter@acme.dev")
    invitation = {"email": "ada@example.com", "organizationId": ORG, "type": "org_user"}

    invited = await ask(api, ws, "/v2/users/invite/add", {**invitation, "organizationName": "Acme"})
    [mail] = await mailed.mailbox.wait_for(1)
    pending_before = await ask(
        api, ws, "/v2/users/invite/pending/count", {"organizationId": ORG, "type": "org_user"}
    )
    _, pressed, text = await follow(mailed.link_in(mail))
    of_user = await ask(
        api, ws, "/v2/users/invitations/get", {"organizationId": ORG, "email": "ada@example.com"}
    )
    pending_after = await ask(
        api, ws, "/v2/users/invite/pending/count", {"organizationId": ORG, "type": "org_user"}
    )
    users = await ask(api, ws, "/v2/users/get", {"organizationId": ORG})

    assert invited["status"] == "PENDING"
    assert mail.recipients == ["ada@example.com"]
    assert mail.message["Subject"] == "You are invited to Acme"
    assert pending_before == {"count": 1}
    assert pressed.status == 200
    assert "Invitation accepted" in text
    assert [(i["invitationId"], i["status"]) for i in of_user] == [
        (invited["invitationId"], "ACCEPTED")
    ]
    assert pending_after == {"count": 0}
    assert [(u["userId"], u["email"], u["accessRole"]) for u in users] == [
        ("ada@example.com", "ada@example.com", "editor")
    ]


async def test_without_a_relay_the_sending_calls_name_the_setting(api: ApiClient) -> None:
    ws = await api.create_workspace("owner@acme.dev")

    login = await api.post(
        "/v2/workspace/email/send-login-link",
        {"email": "owner@acme.dev", "continueUrl": "http://localhost/"},
    )
    invite = await api.post(
        "/v2/users/invite/add",
        {"email": "ada@example.com", "organizationId": ORG, "type": "org_user"},
        headers=ws.key_headers,
    )

    for response in (login, invite):
        error = assert_failure(response, 400, "FAILED_PRECONDITION")
        assert "REDLINE_SMTP_URL" in error["message"]

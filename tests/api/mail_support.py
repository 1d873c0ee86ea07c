"""Shared by the mail API tests: the system with a real SMTP server as its relay, the link a mail
carries, and calls of the page it opens."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

import msgspec

from redline.testing.api import ApiClient, StartApi
from redline.testing.mail import HOST, Mail, Mailbox, smtp_server

PUBLIC_URL = "https://redline.example.com"
_LINK = re.compile(re.escape(PUBLIC_URL) + r"/\S+")


class Page(msgspec.Struct):
    status: int
    text: str
    headers: dict[str, str]


@asynccontextmanager
async def api_with_relay(start_api: StartApi) -> AsyncIterator[tuple[ApiClient, Mailbox]]:
    """The system sending mail through a real SMTP server on this machine."""
    with smtp_server() as (mailbox, port):
        api = await start_api(
            smtp_url=f"smtp://{HOST}:{port}?security=none",
            smtp_from="Redline <mail@redline.test>",
            public_url=PUBLIC_URL,
        )
        yield api, mailbox


def with_settings(start_api: StartApi, **settings: Any) -> StartApi:
    """`start_api` with `settings` changed as well, for `api_with_relay`."""

    async def start(**changes: Any) -> ApiClient:
        return await start_api(**changes, **settings)

    return start


def link_in(mail: Mail) -> str:
    """The one link a mail carries."""
    body = mail.message.get_body(("plain",))
    assert body is not None
    [link] = _LINK.findall(body.get_content())
    return str(link)


def token_of(link: str) -> str:
    return urlsplit(link).query.removeprefix("token=")


async def open_link(api: ApiClient, link: str, *, method: str = "GET") -> Page:
    """GET (open) or POST (press the page's button) the link's path on the system under test."""
    parts = urlsplit(link)
    url = f"{api.base_url}{parts.path}?{parts.query}"
    async with api.session.request(method, url, allow_redirects=False) as response:
        return Page(response.status, await response.text(), dict(response.headers))

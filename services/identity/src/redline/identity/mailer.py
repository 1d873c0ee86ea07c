"""Identity's mail: the operator's SMTP relay (or its absence), the links mail carries, and the
pages those links open.

A link holds a token of 256 random bits; only its SHA-256 digest is stored (`tokens.digest`).
Following a link opens a page with one button, and only pressing it (a POST) uses the token:
mail scanners and link previews fetch links with GET, and must not use up a single-use token.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from urllib.parse import urlencode

from aiohttp import web

from redline.envelope.errors import FailedPrecondition, InvalidArgument, Unavailable
from redline.envelope.raw_routes import Content, Parameter, RawHandler, RawRoute
from redline.mail import SETTING, MailFailed, MailSender


def no_relay() -> FailedPrecondition:
    return FailedPrecondition(
        f"No SMTP relay is configured: the operator sets {SETTING} to send mail."
    )


@dataclass(frozen=True)
class Sender:
    """Whom a message is sent for: the workspace whose words it carries (its mail says so, see
    `redline.mail.tenant`), and where replies go. None: Redline's own message."""

    name: str | None = None
    reply_to: str | None = None


class Mailer:
    def __init__(self, sender: MailSender | None, public_url: str) -> None:
        self._sender = sender
        self._public_url = public_url.rstrip("/")

    def require_relay(self) -> None:
        """FAILED_PRECONDITION naming the setting when no relay is configured: checked before
        anything is written, so a call that cannot send changes nothing."""
        if self._sender is None:
            raise no_relay()

    def link(self, path: str, token: str) -> str:
        return f"{self._public_url}{path}?{urlencode({'token': token})}"

    async def send(
        self, to: str, subject: str, body: str, sender: Sender = Sender(), *, field: str
    ) -> None:
        """Send one plain-text message to `to`; the API error a caller should see when the relay
        did not take it (`field` names the request's address field)."""
        if self._sender is None:
            raise no_relay()
        try:
            sent = await self._sender.send(
                [to], subject, body, for_workspace=sender.name, reply_to=sender.reply_to
            )
        except MailFailed as exc:
            if exc.retryable:
                raise Unavailable(f"The mail could not be sent: {exc.message}.") from exc
            raise FailedPrecondition(f"The mail could not be sent: {exc.message}.") from exc
        if not sent.delivered:
            refused = "; ".join(sent.refused.values())
            raise InvalidArgument.field(field, f"The mail server refused the address: {refused}")

    async def close(self) -> None:
        if self._sender is not None:
            await self._sender.close()


# pages -----------------------------------------------------------------------------------------

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>{title}</title>
<style>body{{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem}}
button{{font-size:1rem;padding:.5rem 1.2rem}}</style></head>
<body><h1>{title}</h1><p>{text}</p>{form}</body></html>
"""


def page(title: str, text: str, *, status: int = 200, button: str | None = None) -> web.Response:
    """A small HTML page; with `button`, a form that posts back to the same address (the
    token in the query string comes along)."""
    form = ""
    if button:
        form = f'<form method="post"><button type="submit">{html.escape(button)}</button></form>'
    return web.Response(
        text=_PAGE.format(title=html.escape(title), text=html.escape(text), form=form),
        status=status,
        content_type="text/html",
        headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"},
    )


def presented_token(request: web.Request) -> str:
    """The token in the link's query string ('' when there is none)."""
    return request.query.get("token", "")[:256]


# Why a link no longer works, as the page it opens says it.
_DEAD_LINKS = {
    "unknown": (404, "This link is not valid", "Check that the whole link was copied."),
    "used": (410, "This link was already used", "Each link works once."),
    "expired": (410, "This link has expired", "Ask for a new one."),
}


def dead_link(reason: str) -> web.Response:
    """The page of a link that does not work: `unknown`, `used` or `expired`."""
    status, title, text = _DEAD_LINKS[reason]
    return page(title, text, status=status)


_PAGE_ANSWERS = {
    status: Content("text/html") for status in (200, *(s for s, _, _ in _DEAD_LINKS.values()))
}


def link_routes(
    path: str, opened: RawHandler, used: RawHandler, *, what: str, used_answer: int, tag: str
) -> list[RawRoute]:
    """The two routes of a mailed link: GET opens its page, POST (its button) uses the token.
    Using it answers `used_answer`: a page, or a redirect (303, no body) to where it leads."""
    token = (Parameter("token", "query", required=False, description=f"The {what} link's token"),)
    used_answers = {
        **_PAGE_ANSWERS,
        used_answer: Content("text/html" if used_answer == 200 else ""),
    }
    return [
        RawRoute(
            "GET", path, opened, f"The page a {what} link opens", _PAGE_ANSWERS, token, tags=(tag,)
        ),
        RawRoute(
            "POST",
            path,
            used,
            f"Use a {what} link (its page's button)",
            used_answers,
            token,
            tags=(tag,),
        ),
    ]

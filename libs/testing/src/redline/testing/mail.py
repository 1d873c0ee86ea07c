"""A real SMTP server for tests: it records every message and refuses the recipients a test
names; it can also offer (and refuse) a login."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, Session

from redline.local.processes import free_port

HOST = "127.0.0.1"

__all__ = ["Mail", "Mailbox", "smtp_server"]


@dataclass(frozen=True)
class Mail:
    sender: str
    recipients: list[str]
    message: EmailMessage


class Mailbox:
    """An SMTP handler: refuses `refused` recipients with 550, keeps every message."""

    def __init__(self, refused: set[str]) -> None:
        self.refused = refused
        self.mail: list[Mail] = []
        # EHLO greetings: one per connection a client opened.
        self.greetings = 0

    async def handle_EHLO(
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        hostname: str,
        responses: list[str],
    ) -> list[str]:
        self.greetings += 1
        session.host_name = hostname
        return responses

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        if address in self.refused:
            return "550 5.1.1 mailbox unavailable"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def wait_for(self, count: int, timeout_s: float = 10.0) -> list[Mail]:
        """The messages once `count` have arrived. The server runs in a thread of its own with
        its own event loop, so this looks rather than waits on an event."""
        async with asyncio.timeout(timeout_s):
            while len(self.mail) < count:  # noqa: ASYNC110 (another thread's loop appends)
                await asyncio.sleep(0.02)
        return list(self.mail)

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        content = envelope.original_content or b""
        message = message_from_bytes(content, policy=policy.default)
        assert isinstance(message, EmailMessage)
        assert isinstance(envelope.mail_from, str)
        self.mail.append(Mail(envelope.mail_from, list(envelope.rcpt_tos), message))
        return "250 Message accepted"


def _refuse_login(*args: Any) -> AuthResult:
    return AuthResult(success=False, handled=False)


class _ClosingController(Controller):
    """aiosmtpd's controller stops its loop with the clients' connections still open, so their
    sockets are only found unclosed when the garbage collector reaches them, in whatever test
    runs then. This one closes every connection it accepted before it stops."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._sessions: list[SMTP] = []

    def factory(self) -> SMTP:
        session = SMTP(self.handler, **self.SMTP_kwargs)
        self._sessions.append(session)
        return session

    async def _close_sessions(self) -> None:
        for session in self._sessions:
            if session.transport is not None:
                session.transport.close()
        # A transport closes its socket on the loop's next turn.
        await asyncio.sleep(0)
        await asyncio.sleep(0)

    def stop(self, no_assert: bool = False) -> None:
        if self._thread is not None:
            asyncio.run_coroutine_threadsafe(self._close_sessions(), self.loop).result(timeout=10)
        super().stop(no_assert)


@contextmanager
def smtp_server(
    refused: AbstractSet[str] = frozenset(), *, login: bool = False, port: int | None = None
) -> Iterator[tuple[Mailbox, int]]:
    """A real SMTP server on 127.0.0.1 (on `port`, or a free one); with `login`, one that offers
    (and refuses) a login."""
    mailbox = Mailbox(set(refused))
    port = port or free_port(HOST)
    options: dict[str, Any] = {}
    if login:
        # Offered in clear so the test needs no certificate; a client with credentials uses it.
        options = {"authenticator": _refuse_login, "auth_require_tls": False}
    controller = _ClosingController(mailbox, hostname=HOST, port=port, **options)
    controller.start()
    try:
        yield mailbox, port
    finally:
        controller.stop()

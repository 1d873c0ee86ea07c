"""Sending email through the SMTP server the operator configured: one client per server, shared
by every feature that sends mail (workflow notifications, login links, invitations).

One message goes to all recipients. Recipients the server refuses are reported, not raised: a
message that reached at least one of them was delivered. Error messages never quote the server's
address or the credentials (they reach API callers, who do not run the server).

Connections are kept open between messages (a few at once), since connecting and greeting the
server costs more than a message; one the server closed meanwhile is opened again. Messages are
built with the email library's compat32 policy: its header registry (the default policy) parses
every header it is given, which cost more than sending.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.header
import email.utils
from collections.abc import Sequence
from email.header import Header
from email.mime.text import MIMEText
from typing import Literal

import aiosmtplib
import msgspec

from redline.mail import tenant

Security = Literal["none", "starttls", "tls"]

# A server's own words are kept short in an error: enough to tell "mailbox full" from
# "relaying denied".
_REPLY_SHOWN = 200


class MailFailed(Exception):
    """The server took the message for nobody, for a reason other than refusing each recipient:
    `code` names the reason (`smtp-unavailable`, `smtp-auth-failed`, ...), `message` says it
    without the server's address or credentials, and `retryable` says whether another attempt
    may succeed (the server lost on the way, or a 4xx reply)."""

    def __init__(self, code: str, message: str, *, retryable: bool) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retryable = retryable


class MailDelivery(msgspec.Struct, frozen=True, kw_only=True):
    """Who got the message, who the server refused with its reply (`550 5.1.1 ...`), and the
    subject as sent."""

    delivered: list[str]
    refused: dict[str, str]
    subject: str


class MailSender:
    """An SMTP client for one server.

    `security`: `tls` connects with TLS from the start (usually port 465), `starttls` upgrades a
    plain connection and refuses a server that cannot (usually port 587), `none` sends in clear
    (a relay on a trusted network). `username` and `password` log in when given. `ca_file` adds
    trusted certificate authorities (a server with a private CA). `timeout_s` bounds each step
    of the conversation.
    """

    def __init__(
        self,
        *,
        host: str,
        port: int,
        from_address: str,
        username: str | None = None,
        password: str | None = None,
        security: Security = "starttls",
        timeout_s: float = 30.0,
        ca_file: str | None = None,
        connections: int = 4,
    ) -> None:
        if timeout_s <= 0:
            raise ValueError(f"timeout_s must be positive, not {timeout_s}")
        if not email.utils.parseaddr(from_address)[1]:
            raise ValueError(f"from_address {from_address!r} is not an email address")
        self._host = host
        self._port = port
        self._from_address = from_address
        self._username = username
        self._password = password
        self._security = security
        self._timeout_s = timeout_s
        self._ca_file = ca_file
        self._sender = email.utils.parseaddr(from_address)[1]
        self._domain = self._sender.rpartition("@")[2] or "localhost"
        # Open connections not in use, and how many may be in use at once.
        self._idle: list[aiosmtplib.SMTP] = []
        self._slots = asyncio.Semaphore(connections)

    def __repr__(self) -> str:  # without the password
        return f"MailSender(port={self._port}, security={self._security!r})"

    async def send(
        self,
        recipients: Sequence[str],
        subject: str,
        body: str,
        *,
        html: bool = False,
        for_workspace: str | None = None,
        reply_to: str | None = None,
    ) -> MailDelivery:
        """Send one message with `body` as text/plain (text/html with `html`); raise
        MailFailed when the server took it for nobody for a reason other than refusing
        each recipient.

        `for_workspace` names the workspace whose words the message carries (see
        `redline.mail.tenant`): the display name of the configured from address becomes
        `<workspace> via Redline` (the address itself stays: relays and receivers' DMARC checks
        accept only the operator's domain) and the text ends saying the workspace wrote it.
        `reply_to` is where replies go: only an address the caller knows the workspace controls.
        """
        if for_workspace:
            body = tenant.with_written_by(body, for_workspace, as_html=html)
        message = self._message(recipients, subject, body, html=html)
        if for_workspace:
            address = email.utils.parseaddr(self._from_address)[1]
            message.replace_header("From", _named(tenant.display_name(for_workspace), address))
        if reply_to:
            message["Reply-To"] = reply_to
        async with self._slots:
            try:
                refused = await self._deliver(message, recipients)
            except aiosmtplib.SMTPRecipientsRefused as exc:
                every = {e.recipient: _reply(e.code, e.message) for e in exc.recipients}
                return MailDelivery(delivered=[], refused=every, subject=self._subject(message))
            except (aiosmtplib.SMTPException, OSError) as exc:
                raise _failure(exc) from exc
        shown = {address: _reply(reply.code, reply.message) for address, reply in refused.items()}
        delivered = [address for address in recipients if address not in refused]
        return MailDelivery(delivered=delivered, refused=shown, subject=self._subject(message))

    async def close(self) -> None:
        idle, self._idle = self._idle, []
        for client in idle:
            with contextlib.suppress(aiosmtplib.SMTPException, OSError):
                await client.quit()

    async def _deliver(
        self, message: MIMEText, recipients: Sequence[str]
    ) -> dict[str, aiosmtplib.SMTPResponse]:
        """Send on a kept connection (a new one if none is open, or if the server closed the kept
        one since); the connection is kept again only after a clean send."""
        client = self._idle.pop() if self._idle else None
        if client is not None and not client.is_connected:
            client = None
        try:
            if client is None:
                client = await self._connect()
            try:
                refused, _ = await client.send_message(
                    message, sender=self._sender, recipients=list(recipients)
                )
            except aiosmtplib.SMTPServerDisconnected:
                # Closed by the server while idle: once more, on a connection of its own.
                client = await self._connect()
                refused, _ = await client.send_message(
                    message, sender=self._sender, recipients=list(recipients)
                )
        except BaseException:
            if client is not None:
                client.close()
            raise
        self._idle.append(client)
        return refused

    async def _connect(self) -> aiosmtplib.SMTP:
        client = aiosmtplib.SMTP(
            hostname=self._host,
            port=self._port,
            username=self._username,
            password=self._password,
            use_tls=self._security == "tls",
            start_tls=self._security == "starttls",
            timeout=self._timeout_s,
            cert_bundle=self._ca_file,
            # Named here: the default asks the resolver for this host's name on every connect.
            local_hostname=self._domain,
        )
        await client.connect()
        return client

    @staticmethod
    def _subject(message: MIMEText) -> str:
        return str(email.header.make_header(email.header.decode_header(message["Subject"])))

    def _message(
        self, recipients: Sequence[str], subject: str, body: str, *, html: bool
    ) -> MIMEText:
        message = MIMEText(body, "html" if html else "plain", "utf-8")
        message["From"] = self._from_address
        message["To"] = ", ".join(recipients)
        # A rendered subject may hold line breaks from the trigger payload; in a header they would
        # end it. Non-ASCII text is encoded as RFC 2047 words.
        message["Subject"] = Header(" ".join(subject.split()), "utf-8").encode()
        message["Date"] = email.utils.formatdate(usegmt=True)
        message["Message-ID"] = email.utils.make_msgid(domain=self._domain)
        # Tells mail servers and auto-responders that no person sent this (RFC 3834).
        message["Auto-Submitted"] = "auto-generated"
        return message


def _named(name: str, address: str) -> str:
    """`"name" <address>` with the name on one line and RFC 2047-encoded when not ASCII."""
    return email.utils.formataddr((" ".join(name.split()), address), charset="utf-8")


def _reply(code: int, text: str) -> str:
    return f"{code} {text}"[:_REPLY_SHOWN]


def _failure(exc: aiosmtplib.SMTPException | OSError) -> MailFailed:
    """What a failed conversation means for the sender. The operator's settings (credentials, the
    sender address, a server without STARTTLS) need a person, so those are terminal unless the
    server said the problem is temporary (4xx); losing the server on the way is retryable."""
    if isinstance(exc, aiosmtplib.SMTPAuthenticationError):
        return _by_reply(exc, "smtp-auth-failed", "the mail server refused the login")
    if isinstance(exc, aiosmtplib.SMTPSenderRefused):
        return _by_reply(exc, "smtp-sender-refused", "the mail server refused the from address")
    if isinstance(exc, aiosmtplib.SMTPNotSupported):
        return MailFailed(
            "smtp-not-supported",
            f"the mail server does not support what the settings ask for: {exc.message}",
            retryable=False,
        )
    if isinstance(exc, aiosmtplib.SMTPResponseException):
        return MailFailed(
            "smtp-rejected",
            f"the mail server rejected the message: {_reply(exc.code, exc.message)}",
            retryable=True,
        )
    if isinstance(exc, TimeoutError):
        return MailFailed(
            "smtp-unavailable", "the mail server did not answer in time", retryable=True
        )
    return MailFailed(
        "smtp-unavailable", "the connection to the mail server failed", retryable=True
    )


def _by_reply(exc: aiosmtplib.SMTPResponseException, code: str, said: str) -> MailFailed:
    return MailFailed(
        code, f"{said}: {_reply(exc.code, exc.message)}", retryable=400 <= exc.code < 500
    )

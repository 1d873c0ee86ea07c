"""Sending a notification email through the SMTP server the operator configured.

One message goes to all recipients. Recipients the server refuses are reported, not raised: a
message that reached at least one of them was delivered. Error messages never quote the server's
address or the credentials (step errors are shown to API callers, who do not run the server).
"""

from __future__ import annotations

import email.utils
from collections.abc import Sequence
from datetime import UTC, datetime
from email.message import EmailMessage
from typing import Literal

import aiosmtplib
import msgspec

from redline.workflow.engine.nodes.outcome import DeliveryFailed

Security = Literal["none", "starttls", "tls"]

# A server's own words are kept short in a step error: enough to tell "mailbox full" from
# "relaying denied".
_REPLY_SHOWN = 200


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

    def __repr__(self) -> str:  # without the password
        return f"MailSender(port={self._port}, security={self._security!r})"

    async def send(
        self, recipients: Sequence[str], subject: str, body: str, *, html: bool = False
    ) -> MailDelivery:
        """Send one message with `body` as text/plain (text/html with `html`); raise
        DeliveryFailed when the server took it for nobody for a reason other than refusing
        each recipient."""
        message = self._message(recipients, subject, body, html=html)
        try:
            refused, _ = await aiosmtplib.send(
                message,
                sender=email.utils.parseaddr(self._from_address)[1],
                recipients=list(recipients),
                hostname=self._host,
                port=self._port,
                username=self._username,
                password=self._password,
                use_tls=self._security == "tls",
                start_tls=self._security == "starttls",
                timeout=self._timeout_s,
                cert_bundle=self._ca_file,
            )
        except aiosmtplib.SMTPRecipientsRefused as exc:
            every = {error.recipient: _reply(error.code, error.message) for error in exc.recipients}
            return MailDelivery(delivered=[], refused=every, subject=str(message["Subject"]))
        except (aiosmtplib.SMTPException, OSError) as exc:
            raise _failure(exc) from exc
        shown = {address: _reply(reply.code, reply.message) for address, reply in refused.items()}
        delivered = [address for address in recipients if address not in refused]
        return MailDelivery(delivered=delivered, refused=shown, subject=str(message["Subject"]))

    def _message(
        self, recipients: Sequence[str], subject: str, body: str, *, html: bool
    ) -> EmailMessage:
        message = EmailMessage()
        message["From"] = self._from_address
        message["To"] = ", ".join(recipients)
        # A rendered subject may hold line breaks from the trigger payload; in a header they would
        # end it (and the email library refuses them).
        message["Subject"] = " ".join(subject.split())
        message["Date"] = email.utils.format_datetime(datetime.now(UTC))
        domain = email.utils.parseaddr(self._from_address)[1].rpartition("@")[2] or None
        message["Message-ID"] = email.utils.make_msgid(domain=domain)
        # Tells mail servers and auto-responders that no person sent this (RFC 3834).
        message["Auto-Submitted"] = "auto-generated"
        message.set_content(body, subtype="html" if html else "plain")
        return message


def _reply(code: int, text: str) -> str:
    return f"{code} {text}"[:_REPLY_SHOWN]


def _failure(exc: aiosmtplib.SMTPException | OSError) -> DeliveryFailed:
    """What a failed conversation means for the step. The operator's settings (credentials, the
    sender address, a server without STARTTLS) need a person, so those are terminal unless the
    server said the problem is temporary (4xx); losing the server on the way is retryable."""
    if isinstance(exc, aiosmtplib.SMTPAuthenticationError):
        return _by_reply(exc, "smtp-auth-failed", "the mail server refused the login")
    if isinstance(exc, aiosmtplib.SMTPSenderRefused):
        return _by_reply(exc, "smtp-sender-refused", "the mail server refused the from address")
    if isinstance(exc, aiosmtplib.SMTPNotSupported):
        return DeliveryFailed(
            "smtp-not-supported",
            f"the mail server does not support what the settings ask for: {exc.message}",
            retryable=False,
        )
    if isinstance(exc, aiosmtplib.SMTPResponseException):
        return DeliveryFailed(
            "smtp-rejected",
            f"the mail server rejected the message: {_reply(exc.code, exc.message)}",
            retryable=True,
        )
    if isinstance(exc, TimeoutError):
        return DeliveryFailed(
            "smtp-unavailable", "the mail server did not answer in time", retryable=True
        )
    return DeliveryFailed(
        "smtp-unavailable", "the connection to the mail server failed", retryable=True
    )


def _by_reply(exc: aiosmtplib.SMTPResponseException, code: str, said: str) -> DeliveryFailed:
    return DeliveryFailed(
        code, f"{said}: {_reply(exc.code, exc.message)}", retryable=400 <= exc.code < 500
    )

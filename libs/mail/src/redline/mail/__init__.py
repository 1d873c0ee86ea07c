"""Sending email through the operator's SMTP relay: a client that keeps connections open, and the
relay named by one URL setting."""

from redline.mail.relay import SETTING, SmtpRelay, parse_smtp_url, sender_for
from redline.mail.sender import MailDelivery, MailFailed, MailSender, Security

__all__ = [
    "SETTING",
    "MailDelivery",
    "MailFailed",
    "MailSender",
    "Security",
    "SmtpRelay",
    "parse_smtp_url",
    "sender_for",
]

"""Requests and answers of /v2/workspace/email/status and /v2/workspace/email/send-login-link."""

from __future__ import annotations

import msgspec

from redline.identity.fields import Email, Request, Url


class EmailStatusRequest(Request):
    ownerEmail: Email


class EmailStatus(msgspec.Struct):
    verified: bool


class SendLoginLink(Request):
    email: Email
    continueUrl: Url

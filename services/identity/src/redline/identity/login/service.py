"""Login links of workspace owners.

- send-login-link mails a link to the owner of a workspace: the address must own one (any case);
  for an address that owns none the call answers the same and sends nothing, so it tells a
  stranger nothing that the address would not.
- `continueUrl` must be an http(s) URL whose host is one of `login_continue_hosts`.
- The link opens a page on this service; pressing its button uses the link (once, before its
  expiry): the address counts as verified from then on, and the browser goes on to continueUrl.
- email/status answers whether an owner address is verified; NOT_FOUND for an address that owns
  no workspace.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from redline.envelope import Reply
from redline.envelope.errors import InvalidArgument, Issue, NotFound
from redline.identity import tokens
from redline.identity.login import models, storage
from redline.identity.mailer import Mailer
from redline.pg import Pool

LOGIN_PATH = "/v2/workspace/email/login"

VERIFIED = "Email verified and workspace reactivated"
NOT_VERIFIED = "Email not yet verified"


def check_continue_url(url: str, allowed_hosts: frozenset[str]) -> None:
    try:
        parts = urlsplit(url)
        scheme, host = parts.scheme, parts.hostname
        _ = parts.port  # raises for a port that is not one
    except ValueError:  # a malformed port or IPv6 literal
        scheme, host = "", None
    if scheme not in ("http", "https") or not host:
        raise _bad_continue_url("Invalid url for continueUrl")
    if host.lower() not in allowed_hosts:
        raise _bad_continue_url("The continueUrl domain is not allowed.")


def _bad_continue_url(message: str) -> InvalidArgument:
    """Worded as the hosted product words it, with the field named in the details."""
    issue = Issue(code="invalid_value", path="data.continueUrl", message=message)
    return InvalidArgument.from_issues([issue], message=message)


class LoginService:
    def __init__(
        self, pool: Pool, mailer: Mailer, *, ttl_s: int, continue_hosts: list[str]
    ) -> None:
        self._pool = pool
        self._mailer = mailer
        self._ttl_s = ttl_s
        self._continue_hosts = frozenset(h.lower() for h in continue_hosts)

    async def status(self, request: models.EmailStatusRequest) -> Reply[models.EmailStatus]:
        email = request.ownerEmail.lower()
        if not await storage.owner_exists(self._pool, email):
            raise NotFound("User not found")
        verified = await storage.is_verified(self._pool, email)
        return Reply(models.EmailStatus(verified), VERIFIED if verified else NOT_VERIFIED)

    async def send_link(self, request: models.SendLoginLink) -> None:
        check_continue_url(request.continueUrl, self._continue_hosts)
        self._mailer.require_relay()
        email = request.email.lower()
        if not await storage.owner_exists(self._pool, email):
            return
        token = tokens.new_token()
        minutes = max(1, self._ttl_s // 60)
        body = (
            f"Follow this link to sign in to Redline as {email}:\n\n"
            f"{self._mailer.link(LOGIN_PATH, token)}\n\n"
            f"It works once, within {minutes} minutes. If you did not ask for it, ignore this"
            " message: nobody can sign in without it.\n"
        )
        async with self._pool.acquire() as conn, conn.transaction():
            await storage.insert_link(
                conn, tokens.digest(token), email, request.continueUrl, self._ttl_s
            )
            # Sent before the commit: a mail that could not be sent leaves no link behind.
            await self._mailer.send(email, "Your Redline login link", body, field="data.email")

    async def link_problem(self, token: str) -> str | None:
        """Why the link of `token` does not work (`unknown`, `used`, `expired`), or None."""
        link = await storage.find_link(self._pool, tokens.digest(token))
        if link is None:
            return "unknown"
        if link.used_at is not None:
            return "used"
        return "expired" if link.expired else None

    async def use_link(self, token: str) -> str | None:
        """Use the link: the continueUrl to go on to, or None when it does not work (any more)."""
        async with self._pool.acquire() as conn, conn.transaction():
            link = await storage.use_link(conn, tokens.digest(token))
            if link is None:
                return None
            await storage.mark_verified(conn, link.email)
        return link.continue_url

"""Invitations: an address invited to an organization (`org_user`), a folder (`folder_user`) or a
document (`doc_user`) of an API key, by mail.

- invite/add needs a relay (FAILED_PRECONDITION naming REDLINE_SMTP_URL before anything is
  written) and room in the workspace's mail quota (RESOURCE_EXHAUSTED, nothing written),
  creates a missing organization (as users/add does), and mails a link that works once, for
  `invitation_ttl_s`, framed as the words of the workspace that sent it. Inviting the same
  address to the same place again makes the invitation pending once more with a new link; the
  old link stops working.
- Accepting (invite/respond with ACCEPTED, or the link's page) makes the invitee a member where
  the invitation says, creating a missing folder or document, keeping a role the member already
  has there (editor for a new member). Through invite/respond the invitee is `user`, and
  `authToken` must be a live user token of that user from /v2/auth/generate_token; through the
  link it is the API key's one user with the invited address, else a new user whose id is the
  address.
- An invitation is answered once: answering one that is not pending is FAILED_PRECONDITION.
"""

from __future__ import annotations

import msgspec

from redline.envelope import PageTokens, Reply, paged
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Unauthenticated,
)
from redline.identity import tokens
from redline.identity.access_changes import ForgetAccess
from redline.identity.caller import caller_named, require_key_caller
from redline.identity.directory.ensure import ensure_organization
from redline.identity.fields import AccessType
from redline.identity.invitations import models, storage
from redline.identity.invitations.membership import Invitee, add_member, level_of_invite, out
from redline.identity.key_settings import storage as config_storage
from redline.identity.mailer import Mailer, Sender
from redline.identity.permissions.user_tokens import UserTokens
from redline.identity.users.profiles import profile_of
from redline.identity.workspace.storage import key_for_user_tokens
from redline.pg import Connection, Pool
from redline.runtime.mail_quota import MailQuota

ACCEPT_PATH = "/v2/users/invite/accept"
_PAGE_KIND = "invitations"


class _Cursor(msgspec.Struct, array_like=True):
    after_seq: int


class InvitationService:
    def __init__(
        self,
        pool: Pool,
        mailer: Mailer,
        page_tokens: PageTokens,
        user_tokens: UserTokens,
        forget_access: ForgetAccess,
        *,
        ttl_s: int,
        default_access_type: AccessType,
        quota: MailQuota,
    ) -> None:
        self._pool = pool
        self._mailer = mailer
        self._quota = quota
        self._pages = page_tokens
        self._user_tokens = user_tokens
        self._forget_access = forget_access
        self._ttl_s = ttl_s
        self._default_access_type = default_access_type

    async def add(self, caller: ApiKeyPrincipal, request: models.AddInvite) -> models.Invitation:
        require_key_caller(caller)
        level = level_of_invite(
            request.type, request.organizationId, request.documentId, request.folderId
        )
        self._mailer.require_relay()
        token = tokens.new_token()
        email = request.email.lower()
        new = storage.NewInvitation(
            id=tokens.new_id(),
            api_key=caller.api_key,
            organization_id=request.organizationId,
            invite_type=request.type,
            resource_id=level.resource_id,
            email=email,
            organization_name=request.organizationName,
            resource_name=request.documentName or request.folderName,
            invited_by=msgspec.to_builtins(request.invitedBy) if request.invitedBy else None,
        )
        async with (
            self._quota.sending(caller.workspace_id, 1),
            self._pool.acquire() as conn,
            conn.transaction(),
        ):
            await ensure_organization(conn, caller, request.organizationId, create=True)
            row = await storage.upsert_invitation(conn, new, tokens.digest(token), self._ttl_s)
            subject, body = self._message(row, token)
            # Sent before the commit: a mail that could not be sent leaves no invitation.
            await self._mailer.send(
                email, subject, body, await _sender(conn, caller.api_key), field="data.email"
            )
        return out(row)

    async def respond(
        self, caller: ApiKeyPrincipal, request: models.RespondInvite
    ) -> models.Invitation:
        require_key_caller(caller)
        level = level_of_invite(
            request.type, request.organizationId, request.documentId, request.folderId
        )
        invitee = None
        if request.status == "ACCEPTED":
            invitee = await self._invitee(caller, request)
        async with self._pool.acquire() as conn, conn.transaction():
            row = await storage.lock_named(
                conn,
                caller.api_key,
                request.organizationId,
                request.type,
                level.resource_id,
                request.email.lower(),
            )
            if row is None:
                raise NotFound("Invitation not found.")
            if row.status != "PENDING":
                raise FailedPrecondition(f"The invitation is already {row.status}.")
            if invitee is None:
                row = await storage.answer(conn, row.id, request.status, None)
            else:
                row = await self._accept(conn, caller, row, invitee)
        if invitee is not None:
            self._forget_access(caller.api_key)
        return out(row)

    async def invited(
        self, caller: ApiKeyPrincipal, request: models.GetInvitedUsers
    ) -> Reply[list[models.Invitation]]:
        require_key_caller(caller)
        status = "PENDING" if request.isPendingUsersOnly else None
        return await self._page(
            caller, request.organizationId, request.email, status, None, request
        )

    async def of_user(
        self, caller: ApiKeyPrincipal, request: models.GetUserInvitations
    ) -> Reply[list[models.Invitation]]:
        require_key_caller(caller)
        return await self._page(
            caller, request.organizationId, request.email, request.status, request.type, request
        )

    async def pending_count(
        self, caller: ApiKeyPrincipal, request: models.PendingCountRequest
    ) -> models.PendingCount:
        require_key_caller(caller)
        count = await storage.pending_count(
            self._pool, caller.api_key, request.organizationId, request.type
        )
        return models.PendingCount(count)

    # the link ---------------------------------------------------------------------------------

    async def link_problem(self, token: str) -> str | None:
        """Why the link of `token` does not work (`unknown`, `used`, `expired`), or None. A link
        is used once the invitation is answered, whichever way."""
        row = await storage.by_token(self._pool, tokens.digest(token))
        if row is None:
            return "unknown"
        if row.status != "PENDING":
            return "used"
        return "expired" if row.expired else None

    async def accept_by_link(self, token: str) -> models.Invitation | None:
        """Accept the invitation of `token`; None when the link does not work (any more)."""
        async with self._pool.acquire() as conn, conn.transaction():
            row = await storage.by_token(conn, tokens.digest(token), lock=True)
            if row is None or row.expired or row.status != "PENDING":
                return None
            caller = await caller_named(conn, row.api_key)
            user_id = await storage.user_with_email(conn, row.api_key, row.email) or row.email
            row = await self._accept(conn, caller, row, Invitee(user_id, None))
        self._forget_access(caller.api_key)
        return out(row)

    # ------------------------------------------------------------------------------------------

    async def _accept(
        self,
        conn: Connection,
        caller: ApiKeyPrincipal,
        row: storage.InvitationRow,
        invitee: Invitee,
    ) -> storage.InvitationRow:
        await add_member(conn, caller, row, invitee, self._default_access_type)
        return await storage.answer(conn, row.id, "ACCEPTED", invitee.user_id)

    async def _invitee(self, caller: ApiKeyPrincipal, request: models.RespondInvite) -> Invitee:
        if request.user is None:
            raise InvalidArgument.field(
                "data.user", "Accepting needs the invited user.", code="missing_field"
            )
        if request.authToken is None:
            raise InvalidArgument.field(
                "data.authToken", "Accepting needs the invited user's token.", code="missing_field"
            )
        found = await key_for_user_tokens(self._pool, caller.api_key)
        try:
            claims = self._user_tokens.verify(
                request.authToken,
                workspace_id=caller.workspace_id,
                api_key=caller.api_key,
                not_before=found[1] if found else None,
            )
        except Unauthenticated:
            claims = None
        if claims is None or claims.sub != request.user.userId:
            raise PermissionDenied(
                "authToken must be a live user token of the invited user (user.userId) from"
                " /v2/auth/generate_token."
            )
        return Invitee(request.user.userId, profile_of(request.user))

    async def _page(
        self,
        caller: ApiKeyPrincipal,
        organization_id: str,
        email: str | None,
        status: str | None,
        invite_type: str | None,
        request: models.GetInvitedUsers | models.GetUserInvitations,
    ) -> Reply[list[models.Invitation]]:
        after = 0
        if request.pageToken:
            after = self._pages.decode(
                caller.workspace_id, _PAGE_KIND, request.pageToken, _Cursor
            ).after_seq
        rows = await storage.page(
            self._pool,
            caller.api_key,
            organization_id,
            email=email.lower() if email else None,
            status=status,
            invite_type=invite_type,
            after_seq=after,
            limit=request.pageSize + 1,
        )
        more = len(rows) > request.pageSize
        rows = rows[: request.pageSize]
        token = (
            self._pages.encode(caller.workspace_id, _PAGE_KIND, _Cursor(rows[-1].seq))
            if more
            else None
        )
        return paged([out(r) for r in rows], token, also_as_page_token=True)

    def _message(self, row: storage.InvitationRow, token: str) -> tuple[str, str]:
        place = row.organization_name or row.organization_id
        if row.invite_type != "org_user":
            kind = "document" if row.invite_type == "doc_user" else "folder"
            place = f"the {kind} {row.resource_name or row.resource_id} in {place}"
        inviter = (row.invited_by or {}).get("name") or (row.invited_by or {}).get("email")
        subject = f"{inviter} invited you to {place}" if inviter else f"You are invited to {place}"
        days = max(1, self._ttl_s // 86400)
        body = (
            f"{subject}.\n\nFollow this link to accept the invitation:\n\n"
            f"{self._mailer.link(ACCEPT_PATH, token)}\n\n"
            f"It works once, within {days} day{'s' if days > 1 else ''}.\n"
        )
        return subject, body


async def _sender(conn: Connection, api_key: str) -> Sender:
    """Who the invitation is sent for: the key's email config `fromCompany`, else the
    workspace's name (the mail is framed as that workspace's words). Replies go to `fromEmail`
    only when it is the workspace owner's address and a login link proved the owner reads it:
    any other address the tenant names is one Redline cannot vouch for, so the mail goes without
    a Reply-To."""
    config = (await config_storage.read_config(conn, api_key)).email or {}
    settings = config.get("emailServiceConfig") or {}
    workspace = await storage.workspace_sender(conn, api_key)
    reply_to = str(settings.get("fromEmail") or "").strip().lower()
    return Sender(
        settings.get("fromCompany") or workspace.name or None,
        reply_to if reply_to and reply_to == workspace.verified_owner_email else None,
    )

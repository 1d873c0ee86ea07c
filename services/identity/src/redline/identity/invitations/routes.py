"""The URL map of invitations: /v2/users/invite/add|respond|get|pending/count and
/v2/users/invitations/get, and the page an invitation's link opens."""

from __future__ import annotations

from aiohttp import web

from redline.envelope import AuthLevel, Endpoint
from redline.envelope.raw_routes import add_raw_routes
from redline.identity.app_keys import INVITATIONS
from redline.identity.invitations.service import ACCEPT_PATH, InvitationService
from redline.identity.mailer import dead_link, link_routes, page, presented_token


async def open_invitation_link(request: web.Request) -> web.StreamResponse:
    problem = await request.app[INVITATIONS].link_problem(presented_token(request))
    if problem is not None:
        return dead_link(problem)
    return page("You are invited", "Accept the invitation to join.", button="Accept invitation")


async def accept_invitation_link(request: web.Request) -> web.StreamResponse:
    invitations = request.app[INVITATIONS]
    token = presented_token(request)
    accepted = await invitations.accept_by_link(token)
    if accepted is None:
        return dead_link(await invitations.link_problem(token) or "used")
    return page("Invitation accepted", f"You joined as {accepted.userId}.")


def add_link_routes(app: web.Application) -> None:
    add_raw_routes(
        app,
        link_routes(
            ACCEPT_PATH,
            open_invitation_link,
            accept_invitation_link,
            what="invitation",
            used_answer=200,
            tag="invitations",
        ),
    )


TAG = ("invitations",)
ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/users/invite/add",
        INVITATIONS,
        InvitationService.add,
        auth=AuthLevel.API_KEY,
        message="User invited successfully.",
        summary="Invite an address to an organization, folder or document, by mail",
        tags=TAG,
    ),
    Endpoint.of(
        "/v2/users/invite/respond",
        INVITATIONS,
        InvitationService.respond,
        auth=AuthLevel.API_KEY,
        message="Invitation updated successfully.",
        summary="Accept, reject or withdraw a pending invitation",
        tags=TAG,
    ),
    Endpoint.of(
        "/v2/users/invite/get",
        INVITATIONS,
        InvitationService.invited,
        auth=AuthLevel.API_KEY,
        paged=True,
        message="Invited users retrieved successfully.",
        summary="List an organization's invitations, a page at a time",
        tags=TAG,
    ),
    Endpoint.of(
        "/v2/users/invitations/get",
        INVITATIONS,
        InvitationService.of_user,
        auth=AuthLevel.API_KEY,
        paged=True,
        message="User invitations retrieved successfully.",
        summary="List the invitations of one address in an organization, a page at a time",
        tags=TAG,
    ),
    Endpoint.of(
        "/v2/users/invite/pending/count",
        INVITATIONS,
        InvitationService.pending_count,
        auth=AuthLevel.API_KEY,
        message="Pending invited users count retrieved successfully.",
        summary="How many invitations of a type are pending in an organization",
        tags=TAG,
    ),
]

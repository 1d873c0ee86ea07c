"""The URL map of owner email: /v2/workspace/email/status and send-login-link (public: no
credentials, limited per client address), and the page a login link opens."""

from __future__ import annotations

from aiohttp import web

from redline.envelope import AuthLevel, Endpoint
from redline.envelope.raw_routes import add_raw_routes
from redline.identity.app_keys import LOGIN
from redline.identity.login.service import LOGIN_PATH, LoginService
from redline.identity.mailer import dead_link, link_routes, page, presented_token


async def open_login_link(request: web.Request) -> web.StreamResponse:
    problem = await request.app[LOGIN].link_problem(presented_token(request))
    if problem is not None:
        return dead_link(problem)
    return page("Sign in to Redline", "This link signs you in once.", button="Continue")


async def use_login_link(request: web.Request) -> web.StreamResponse:
    login = request.app[LOGIN]
    token = presented_token(request)
    continue_url = await login.use_link(token)
    if continue_url is None:
        return dead_link(await login.link_problem(token) or "used")
    return web.Response(status=303, headers={"Location": continue_url})


def add_link_routes(app: web.Application) -> None:
    add_raw_routes(
        app,
        link_routes(
            LOGIN_PATH, open_login_link, use_login_link, what="login", used_answer=303, tag="email"
        ),
    )


TAG = ("email",)
ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/workspace/email/status",
        LOGIN,
        LoginService.status,
        auth=AuthLevel.PUBLIC,
        message="Email not yet verified",
        summary="Whether a workspace owner's address is verified (by a used login link)",
        tags=TAG,
    ),
    Endpoint.of(
        "/v2/workspace/email/send-login-link",
        LOGIN,
        LoginService.send_link,
        auth=AuthLevel.PUBLIC,
        message="Login link sent successfully",
        summary="Mail a single-use login link to a workspace owner",
        tags=TAG,
    ),
]

"""A customer's permission provider, played by a real HTTP server on this machine (let past the
address guard by the allow-list setting), and the workspace set-up the provider tests share."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from aiohttp import web

from redline.testing.api import ApiClient, StartApi, Workspace
from tests.api.config_support import ok

Answer = Callable[[dict[str, Any]], Awaitable[web.StreamResponse]]
CONFIG = "/v2/workspace/permissionproviderconfig"


class Provider:
    """A customer's permission endpoint: records each request and answers as `answer` says."""

    def __init__(self) -> None:
        self.requests: list[tuple[dict[str, Any], dict[str, str]]] = []
        self.answer: Answer = self.decide
        # (user id, document id) -> role ("viewer"/"editor") or None for no access.
        self.roles: dict[tuple[str, str], str | None] = {}
        self.port = 0
        # Set when the server stops: lets go of the requests `hang` holds.
        self.stopping = asyncio.Event()
        self._asked = asyncio.Condition()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/check-permissions"

    async def handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append((body, dict(request.headers)))
        async with self._asked:
            self._asked.notify_all()
        return await self.answer(body)

    async def asked(self, count: int) -> None:
        """Wait until the provider has been asked `count` times."""
        async with self._asked:
            await self._asked.wait_for(lambda: len(self.requests) >= count)

    async def decide(self, body: dict[str, Any]) -> web.StreamResponse:
        results = []
        for asked in body["data"]["requests"]:
            role = self.roles.get((asked["userId"], asked["resource"]["id"]))
            result = {
                "userId": asked["userId"],
                "resourceId": asked["resource"]["id"],
                "type": asked["resource"]["type"],
                "organizationId": asked["resource"]["organizationId"],
                "hasAccess": role is not None,
            }
            if role is not None:
                result["accessRole"] = role
            results.append(result)
        return web.json_response({"success": True, "statusCode": 200, "data": results})

    async def hang(self, body: dict[str, Any]) -> web.StreamResponse:
        """Never answers (until the server stops)."""
        await self.stopping.wait()
        return web.Response(status=503)


@contextlib.asynccontextmanager
async def provider_server() -> AsyncIterator[Provider]:
    endpoint = Provider()
    app = web.Application()
    app.router.add_post("/check-permissions", endpoint.handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    endpoint.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield endpoint
    finally:
        endpoint.stopping.set()
        await runner.cleanup()


async def started(start_api: StartApi, cache_ttl_s: float = 0, **settings: Any) -> ApiClient:
    chosen = {"permission_provider_timeout_s": 0.5, **settings}
    return await start_api(
        webhook_allow=["127.0.0.1"], permission_provider_cache_ttl_s=cache_ttl_s, **chosen
    )


async def switched_on(
    api: ApiClient,
    ws: Workspace,
    url: str,
    token: str = "pp-secret",  # noqa: S107 (a test's provider token)
) -> None:
    await ok(
        api,
        ws,
        f"{CONFIG}/update",
        {
            "usePermissionProvider": True,
            "permissionProviderConfig": {"permissionProviderUrl": url, "authToken": token},
        },
    )


async def with_documents(api: ApiClient, email: str = "provider@example.com") -> Workspace:
    """A workspace whose organization `org` has a public document `open` in folder `f`, and a
    member `member` (Redline's own grants let everyone in)."""
    ws = await api.create_workspace(email)
    await ok(
        api,
        ws,
        "/v2/organizations/documents/add",
        {
            "organizationId": "org",
            "createOrganization": True,
            "folderId": "f",
            "createFolder": True,
            "documents": [{"documentId": "open", "accessType": "public"}],
        },
    )
    await ok(api, ws, "/v2/users/add", {"organizationId": "org", "users": [{"userId": "member"}]})
    return ws

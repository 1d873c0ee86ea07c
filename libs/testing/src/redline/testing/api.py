"""A small client for Redline's API as tests and benchmarks use it: POST `{"data": …}`, read the
envelope back, and create a workspace with working credentials in one call."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import msgspec


class Response(msgspec.Struct):
    status: int
    body: Any
    headers: dict[str, str]

    @property
    def result(self) -> Any:
        assert "result" in self.body, self.body
        return self.body["result"]

    @property
    def data(self) -> Any:
        return self.result["data"]

    @property
    def error(self) -> Any:
        assert "error" in self.body, self.body
        return self.body["error"]


class Workspace(msgspec.Struct):
    """A workspace created for a test, with both levels of credentials."""

    id: str
    token: str
    api_key: str
    auth_token: str
    body: dict[str, Any]

    @property
    def workspace_headers(self) -> dict[str, str]:
        return {"x-redline-workspace-id": self.id, "x-redline-workspace-auth-token": self.token}

    @property
    def key_headers(self) -> dict[str, str]:
        return {"x-redline-api-key": self.api_key, "x-redline-auth-token": self.auth_token}


class ApiClient:
    def __init__(self, session: aiohttp.ClientSession, base_url: str) -> None:
        self.session = session
        self.base_url = base_url.rstrip("/")

    async def post(
        self,
        path: str,
        data: Any = None,
        *,
        headers: dict[str, str] | None = None,
        raw: bytes | None = None,
    ) -> Response:
        body = raw if raw is not None else msgspec.json.encode({"data": data or {}})
        async with self.session.post(
            self.base_url + path,
            data=body,
            headers={"content-type": "application/json", **(headers or {})},
            allow_redirects=False,
        ) as response:
            payload = await response.read()
            try:
                decoded = msgspec.json.decode(payload)
            except msgspec.DecodeError:
                decoded = payload.decode(errors="replace")
            return Response(response.status, decoded, dict(response.headers))

    async def create_workspace(self, email: str = "owner@example.com", **extra: Any) -> Workspace:
        created = await self.post("/v2/workspace/create", {"ownerEmail": email, **extra})
        assert created.status == 200, created.body
        data = created.data
        api_key = next(iter(data["apiKeyList"]))
        headers = {
            "x-redline-workspace-id": data["id"],
            "x-redline-workspace-auth-token": data["authToken"],
        }
        tokens = await self.post(
            "/v2/workspace/authtokens/get", {"apiKey": api_key}, headers=headers
        )
        assert tokens.status == 200, tokens.body
        return Workspace(
            id=data["id"],
            token=data["authToken"],
            api_key=api_key,
            auth_token=tokens.data["authTokens"][0]["token"],
            body=data,
        )


# The `start_api` fixture of tests/api: starts the system with some settings changed.
StartApi = Callable[..., Awaitable[ApiClient]]


def assert_failure(response: Response, http_status: int, code: str) -> dict[str, Any]:
    """Assert `response` is the failure envelope with `code` at `http_status`; return its error."""
    assert response.status == http_status, response.body
    assert response.headers["Content-Type"].startswith("application/json")
    assert set(response.body) == {"error"}, response.body
    error: dict[str, Any] = response.error
    assert error["status"] == code
    assert isinstance(error["message"], str)
    assert error["message"]
    return error


def issue_paths(error: dict[str, Any]) -> list[str]:
    """The field paths a validation failure names, in order."""
    return [issue["path"] for issue in error["details"]["issues"]]

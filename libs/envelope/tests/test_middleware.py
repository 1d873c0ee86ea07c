from __future__ import annotations

import io
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import msgspec
import pytest
from aiohttp import web
from multidict import CIMultiDict

from redline.envelope import AuthLevel, Call, Endpoint
from redline.runtime.logs import RequestContextFilter
from redline.testing.api import ApiClient, Response

Serve = Callable[..., Awaitable[ApiClient]]


class Anything(msgspec.Struct):
    text: str = ""


async def echo(call: Call, request: Anything) -> int:
    return len(request.text)


async def explode(call: Call, request: Anything) -> None:
    raise RuntimeError("secret detail")


ENDPOINTS = [
    Endpoint("/v1/echo", echo, Anything, int, auth=AuthLevel.NONE),
    Endpoint("/v1/small", echo, Anything, int, auth=AuthLevel.NONE, max_body=64),
    Endpoint("/v1/explode", explode, Anything, None, auth=AuthLevel.NONE),
]


def request_id(response: Response) -> str:
    return CIMultiDict(response.headers)["x-request-id"]


@pytest.fixture
async def api(serve: Serve) -> ApiClient:
    return await serve(ENDPOINTS)


async def test_unknown_path_is_a_not_found_envelope(api: ApiClient) -> None:
    got = await api.post("/v1/nowhere")

    assert got.status == 404
    assert got.headers["Content-Type"].startswith("application/json")
    assert got.body == {"error": {"status": "NOT_FOUND", "message": "No endpoint at this path."}}


async def test_unknown_path_with_get_is_json_too(api: ApiClient) -> None:
    async with api.session.get(api.base_url + "/") as response:
        assert response.status == 404
        assert response.content_type == "application/json"
        assert (await response.json())["error"]["status"] == "NOT_FOUND"


async def test_wrong_method_is_405_with_allow_header(api: ApiClient) -> None:
    async with api.session.get(api.base_url + "/v1/echo") as response:
        body = await response.json()
        assert response.status == 405
        assert response.headers["Allow"] == "POST"
        assert response.content_type == "application/json"
    assert body["error"]["status"] == "INVALID_ARGUMENT"
    assert "POST" in body["error"]["message"]


async def post_large(api: ApiClient, path: str, text: str) -> tuple[int, Any]:
    body = io.BytesIO(msgspec.json.encode({"data": {"text": text}}))
    async with api.session.post(api.base_url + path, data=body) as response:
        return response.status, await response.json()


async def test_body_over_the_default_limit_is_413(api: ApiClient) -> None:
    status, body = await post_large(api, "/v1/echo", "x" * (1 << 20))

    assert status == 413
    assert body == {
        "error": {"status": "INVALID_ARGUMENT", "message": "Request body is too large."}
    }


async def test_body_of_exactly_the_default_limit_is_accepted(api: ApiClient) -> None:
    overhead = len(b'{"data":{"text":""}}')
    text = "x" * ((1 << 20) - overhead)

    status, body = await post_large(api, "/v1/echo", text)

    assert status == 200
    assert body["result"]["data"] == len(text)


async def test_endpoint_limit_applies_to_its_own_route(api: ApiClient) -> None:
    body = msgspec.json.encode({"data": {"text": "x" * 64}})

    small = await api.post("/v1/small", raw=body)
    default = await api.post("/v1/echo", raw=body)

    assert small.status == 413
    assert small.error["status"] == "INVALID_ARGUMENT"
    assert default.status == 200


async def test_endpoint_limit_applies_without_content_length(api: ApiClient) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"data": {"text": "'
        yield b"x" * 100
        yield b'"}}'

    async with api.session.post(api.base_url + "/v1/small", data=chunks()) as response:
        assert response.status == 413
        assert (await response.json())["error"]["status"] == "INVALID_ARGUMENT"


async def test_unexpected_exception_is_internal_without_internals(
    api: ApiClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="redline.envelope"):
        async with api.session.post(api.base_url + "/v1/explode") as response:
            status, raw = response.status, await response.text()

    assert status == 500
    assert msgspec.json.decode(raw) == {
        "error": {"status": "INTERNAL", "message": "Internal error."}
    }
    assert "secret detail" not in raw
    assert "Traceback" not in raw
    assert "RuntimeError" not in raw


async def test_unexpected_exception_is_logged_with_the_request_id(
    api: ApiClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.handler.addFilter(RequestContextFilter())
    with caplog.at_level(logging.ERROR, logger="redline.envelope"):
        got = await api.post("/v1/explode", headers={"x-request-id": "req-42"})

    assert request_id(got) == "req-42"
    [record] = [r for r in caplog.records if r.name == "redline.envelope"]
    assert record.levelno == logging.ERROR
    assert getattr(record, "requestId", None) == "req-42"
    assert getattr(record, "path", None) == "/v1/explode"
    assert record.exc_info is not None
    assert isinstance(record.exc_info[1], RuntimeError)
    assert str(record.exc_info[1]) == "secret detail"


async def test_request_id_is_echoed_on_success_and_failure(api: ApiClient) -> None:
    ok = await api.post("/v1/echo", headers={"x-request-id": "abc-1"})
    failed = await api.post("/v1/nowhere", headers={"x-request-id": "abc-2"})

    assert ok.status == 200
    assert request_id(ok) == "abc-1"
    assert request_id(failed) == "abc-2"


async def test_request_id_is_generated_when_not_sent(api: ApiClient) -> None:
    first = await api.post("/v1/echo")
    second = await api.post("/v1/nowhere")

    ids = [request_id(first), request_id(second)]
    assert all(re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]+", i) for i in ids)
    assert ids[0] != ids[1]


async def test_blank_request_id_is_replaced(api: ApiClient) -> None:
    got = await api.post("/v1/echo", headers={"x-request-id": ""})

    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]+", request_id(got))


@pytest.mark.parametrize(
    "given",
    ["two words", "x" * 129, "caf\u00e9", "tab\there"],
    ids=["space", "too-long", "not-ascii", "control"],
)
async def test_a_request_id_unfit_for_logs_and_headers_is_replaced(
    api: ApiClient, given: str
) -> None:
    async with api.session.post(
        api.base_url + "/v1/echo",
        data=b'{"data": {}}',
        headers={"x-request-id": given.encode().decode("latin-1")},
    ) as response:
        assert response.status == 200
        assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]+", response.headers["x-request-id"])


async def test_the_longest_printable_request_id_is_kept(api: ApiClient) -> None:
    given = "A-z_0.9:/" + "x" * 119

    got = await api.post("/v1/echo", headers={"x-request-id": given})

    assert request_id(got) == given


@pytest.mark.parametrize(
    ("exception", "status", "code"),
    [
        (web.HTTPForbidden, 403, "PERMISSION_DENIED"),
        (web.HTTPConflict, 409, "ALREADY_EXISTS"),
        (web.HTTPServiceUnavailable, 503, "UNAVAILABLE"),
        (web.HTTPGone, 410, "INVALID_ARGUMENT"),
        (web.HTTPBadGateway, 502, "UNKNOWN"),
    ],
)
async def test_aiohttp_errors_raised_by_handlers_become_envelopes(
    serve: Serve, exception: type[web.HTTPException], status: int, code: str
) -> None:
    async def handler(call: Call, request: Anything) -> None:
        raise exception()

    api = await serve([Endpoint("/v1/h", handler, Anything, None, auth=AuthLevel.NONE)])

    got = await api.post("/v1/h")

    assert got.status == status
    assert got.error["status"] == code

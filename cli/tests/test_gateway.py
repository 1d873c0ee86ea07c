"""The local gateway of the split topology: requests reach the service the routing table names,
unchanged, and answers come back unchanged; a service that is down gives UNAVAILABLE."""

from __future__ import annotations

import gzip
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from redline.cli.gateway import SERVER_OPTIONS, create_gateway, merge_documents
from redline.runtime.routing import SERVICES

Gateway = Callable[..., Awaitable[TestClient[Any, Any]]]


def upstream(name: str, *, ready: bool = True) -> web.Application:
    """A stand-in service that echoes what reached it."""

    async def echo(request: web.Request) -> web.Response:
        body = await request.read()
        return web.json_response(
            {
                "service": name,
                "method": request.method,
                "path": request.rel_url.raw_path_qs,
                "body": body.decode(),
                "headers": dict(request.headers),
            },
            status=201,
            headers={"X-Answered-By": name},
        )

    async def readyz(request: web.Request) -> web.Response:
        checks = {"database": True, "nats": ready}
        return web.json_response({"checks": checks}, status=200 if ready else 503)

    async def openapi(request: web.Request) -> web.Response:
        return web.json_response(
            {
                "openapi": "3.1.0",
                "paths": {f"/v2/{name}/op": {"post": {}}},
                "components": {"schemas": {f"{name}Thing": {}, "Error": {"type": "object"}}},
            }
        )

    app = web.Application()
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/openapi.json", openapi)
    app.router.add_route("*", r"/{tail:[\s\S]*}", echo)
    return app


@pytest.fixture
async def gateway(aiohttp_client: Any, aiohttp_server: Any) -> Gateway:
    async def start(
        *, down: tuple[str, ...] = (), not_ready: tuple[str, ...] = ()
    ) -> TestClient[Any, Any]:
        upstreams = {}
        for name in SERVICES:
            server: TestServer = await aiohttp_server(upstream(name, ready=name not in not_ready))
            upstreams[name] = str(server.make_url("")).rstrip("/")
            if name in down:
                await server.close()
        front = TestServer(create_gateway(upstreams))
        await front.start_server(**SERVER_OPTIONS)
        client: TestClient[Any, Any] = await aiohttp_client(front)
        return client

    return start


@pytest.mark.parametrize(
    ("path", "service"),
    [
        ("/v2/workspace/get", "identity"),
        ("/v1/commentannotations/comments/get?x=1&y=%20", "comments"),
        ("/v2/activities/get", "notify"),
        ("/v2/memory/search", "memory"),
        ("/v2/workflow/executions/dispatch", "workflow"),
        # A line break in a path segment is the service's to refuse, not the gateway's.
        ("/v2/memory/knowledge/files/a%0Ab/original?expires=1", "memory"),
    ],
)
async def test_a_request_reaches_the_service_of_its_path_unchanged(
    gateway: Gateway, path: str, service: str
) -> None:
    client = await gateway()
    answer = await client.post(path, data=b'{"data": {}}', headers={"x-redline-api-key": "k"})
    assert answer.status == 201
    assert answer.headers["X-Answered-By"] == service
    seen = await answer.json()
    assert (seen["service"], seen["method"], seen["path"], seen["body"]) == (
        service,
        "POST",
        path,
        '{"data": {}}',
    )
    assert seen["headers"]["x-redline-api-key"] == "k"


async def test_a_compressed_body_passes_through_as_sent(gateway: Gateway) -> None:
    client = await gateway()
    squeezed = gzip.compress(b'{"data": {}}')
    answer = await client.post(
        "/v2/memory/search", data=squeezed, headers={"Content-Encoding": "gzip"}
    )
    seen = await answer.json()
    assert seen["headers"]["Content-Encoding"] == "gzip"
    assert seen["headers"]["Content-Length"] == str(len(squeezed))


async def test_the_client_address_is_forwarded_after_any_given_before(gateway: Gateway) -> None:
    client = await gateway()
    answer = await client.post("/v2/memory/search", headers={"X-Forwarded-For": "203.0.113.9"})
    seen = await answer.json()
    assert seen["headers"]["X-Forwarded-For"] == "203.0.113.9, 127.0.0.1"


async def test_a_path_no_service_owns_gets_a_service_s_own_answer(gateway: Gateway) -> None:
    client = await gateway()
    answer = await client.get("/nowhere")
    assert (await answer.json())["service"] == "identity"


async def test_a_service_that_is_down_gives_unavailable(gateway: Gateway) -> None:
    client = await gateway(down=("memory",))
    answer = await client.post("/v2/memory/search")
    assert answer.status == 503
    assert await answer.json() == {
        "error": {"status": "UNAVAILABLE", "message": "The memory service is not reachable."}
    }
    assert (await client.post("/v2/workflow/x")).status == 201


async def test_ready_only_when_every_service_is(gateway: Gateway) -> None:
    ready = await (await gateway()).get("/readyz")
    assert ready.status == 200
    assert (await ready.json())["checks"] == {"database": True, "nats": True}
    answer = await (await gateway(not_ready=("notify",))).get("/readyz")
    assert answer.status == 503
    body = await answer.json()
    assert body["services"] == {name: name != "notify" for name in SERVICES}
    assert body["checks"] == {"database": True, "nats": False}


async def test_a_service_that_is_down_is_not_ready(gateway: Gateway) -> None:
    answer = await (await gateway(down=("workflow",))).get("/readyz")
    assert answer.status == 503
    assert (await answer.json())["services"]["workflow"] is False


async def test_the_api_document_holds_every_service_s_paths(gateway: Gateway) -> None:
    client = await gateway()
    document = await (await client.get("/openapi.json")).json()
    assert sorted(document["paths"]) == sorted(f"/v2/{name}/op" for name in SERVICES)
    assert set(document["components"]["schemas"]) == {
        "Error",
        *(f"{name}Thing" for name in SERVICES),
    }


def test_merging_keeps_the_first_document_s_header_fields() -> None:
    merged = merge_documents([{"openapi": "3.1.0", "info": {"title": "a"}}, {"info": {}}])
    assert merged == {"openapi": "3.1.0", "info": {"title": "a"}, "paths": {}, "components": {}}


def test_merged_documents_keep_two_services_schemas_of_one_name_apart() -> None:
    def document(path: str, fields: list[str]) -> dict[str, Any]:
        schema = {"type": "object", "required": fields}
        return {
            "paths": {path: {"post": {"schema": {"$ref": "#/components/schemas/Count"}}}},
            "components": {"schemas": {"Count": schema, "Error": {"type": "object"}}},
        }

    merged = merge_documents(
        [document("/a/count", ["total"]), document("/b/count", ["count"])], ["a", "b"]
    )

    schemas = merged["components"]["schemas"]
    assert schemas["Count"]["required"] == ["total"]
    assert schemas["b.Count"]["required"] == ["count"]
    assert set(schemas) == {"Count", "b.Count", "Error"}
    b_ref = merged["paths"]["/b/count"]["post"]["schema"]["$ref"]
    assert b_ref == "#/components/schemas/b.Count"
    assert merged["paths"]["/a/count"]["post"]["schema"]["$ref"] == "#/components/schemas/Count"


@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_metrics_are_not_served_through_the_gateway(gateway: Gateway, method: str) -> None:
    client = await gateway()
    answer = await client.request(method, "/metrics")
    assert answer.status == 404
    assert await answer.json() == {
        "error": {"status": "NOT_FOUND", "message": "No endpoint at this path."}
    }
    assert "X-Answered-By" not in answer.headers  # no service was asked

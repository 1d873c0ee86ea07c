"""Raw routes in the OpenAPI document: their parameters, bodies and answers, beside the
envelope endpoints, and served by the app they were added to."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from aiohttp import web
from pytest_aiohttp import AiohttpClient

from redline.envelope.openapi import add_openapi_routes, build_openapi
from redline.envelope.raw_routes import Content, Parameter, RawRoute, add_raw_routes


class Outcome(msgspec.Struct):
    status: Literal["completed", "failed"]


class Accepted(msgspec.Struct):
    ok: bool


async def _accept(request: web.Request) -> web.Response:
    return web.json_response({"ok": True})


async def _file(request: web.Request) -> web.Response:
    return web.Response(body=b"%PDF", content_type="application/pdf")


ROUTES = [
    RawRoute(
        "POST",
        "/v2/things/{thing_id}/outcome",
        _accept,
        "Post a thing's outcome",
        answers={200: Content("application/json", Accepted)},
        parameters=(
            Parameter("thing_id", "path"),
            Parameter("x-redline-thing-token", "header"),
        ),
        body=(Content("application/json", Outcome),),
        tags=("things",),
    ),
    RawRoute(
        "GET",
        "/v2/things/{thing_id}/{part}",
        _file,
        "Download a part of a thing",
        answers={200: Content("application/octet-stream")},
        parameters=(
            Parameter("thing_id", "path"),
            Parameter("part", "path", Literal["original", "markdown"]),
            Parameter("expires", "query", Annotated[int, msgspec.Meta(ge=0)]),
        ),
        route_path="/v2/things/{thing_id}/{part:original|markdown}",
    ),
]


def test_raw_routes_are_described_by_method_with_their_parameters() -> None:
    doc = build_openapi([], ROUTES)
    posted = doc["paths"]["/v2/things/{thing_id}/outcome"]["post"]
    assert posted["x-redline-raw"] is True
    assert posted["security"] == []
    assert [(p["name"], p["in"], p["required"]) for p in posted["parameters"]] == [
        ("thing_id", "path", True),
        ("x-redline-thing-token", "header", True),
    ]
    body = posted["requestBody"]["content"]["application/json"]["schema"]
    assert doc["components"]["schemas"][body["$ref"].rsplit("/", 1)[1]]["properties"]["status"]
    assert set(posted["responses"]) == {"200", "default"}
    download = doc["paths"]["/v2/things/{thing_id}/{part}"]["get"]
    part, expires = download["parameters"][1:]
    assert part["schema"] == {"enum": ["markdown", "original"]}
    assert expires["schema"] == {"type": "integer", "minimum": 0}
    answer: dict[str, Any] = download["responses"]["200"]["content"]
    assert answer == {
        "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}
    }


async def test_the_routes_answer_where_the_document_says(aiohttp_client: AiohttpClient) -> None:
    app = web.Application()
    add_raw_routes(app, ROUTES)
    add_openapi_routes(app)
    client = await aiohttp_client(app)
    doc = await (await client.get("/openapi.json")).json()
    assert set(doc["paths"]) == {"/v2/things/{thing_id}/outcome", "/v2/things/{thing_id}/{part}"}
    assert (await client.post("/v2/things/t1/outcome", json={"status": "completed"})).status == 200
    downloaded = await client.get("/v2/things/t1/original?expires=1")
    assert await downloaded.read() == b"%PDF"
    assert (await client.get("/v2/things/t1/other?expires=1")).status == 404

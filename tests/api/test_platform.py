"""What operators and client authors read off a running server: health, readiness, the OpenAPI
document and the docs page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiohttp
import pytest

from redline.identity.app import ENDPOINTS as IDENTITY_ENDPOINTS
from redline.testing.api import ApiClient, StartApi
from tests.api.openapi_support import envelope_paths, raw_operations, resolve

WORKSPACE_LEVEL = {
    "/v2/workspace/get",
    "/v2/workspace/apikey/create",
    "/v2/workspace/apikeys/get",
    "/v2/workspace/apikey/update",
    "/v2/workspace/authtokens/get",
    "/v2/workspace/authtoken/reset",
    "/v2/workspace/apikey/copy",
    "/v2/workspace/authtoken/ensure",
}
# Answered without credentials: they name an email address alone.
PUBLIC = {"/v2/workspace/email/status", "/v2/workspace/email/send-login-link"}


async def get(api: ApiClient, path: str) -> aiohttp.ClientResponse:
    response = await api.session.get(api.base_url + path)
    await response.read()
    return response


def all_refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        for value in node.values():
            found.extend(all_refs(value))
        return found
    if isinstance(node, list):
        return [ref for item in node for ref in all_refs(item)]
    return []


async def test_healthz_answers_ok(api: ApiClient) -> None:
    response = await get(api, "/healthz")

    assert response.status == 200
    assert response.content_type == "application/json"
    assert await response.json() == {"status": "ok"}


async def test_readyz_reports_database_nats_and_background_tasks(api: ApiClient) -> None:
    response = await get(api, "/readyz")

    assert response.status == 200
    assert response.content_type == "application/json"
    body = await response.json()
    assert body["status"] == "ok"
    assert body["checks"] == {"database": True, "nats": True, "background": True}


def sample(metrics: str, name: str, **labels: str) -> float:
    """The value of one sample in Prometheus's text format; 0 when it is not there yet."""
    wanted = ",".join(f'{key}="{value}"' for key, value in sorted(labels.items()))
    for line in metrics.splitlines():
        if line.startswith(f"{name}{{"):
            label_text, value = line[len(name) + 1 :].rsplit("} ", 1)
            if ",".join(sorted(label_text.split(","))) == wanted:
                return float(value)
    return 0.0


async def test_metrics_count_requests_by_route_and_status(start_api: StartApi) -> None:
    # In this process, whatever the target: each service serves /metrics on its own port, and
    # the gateway in front of the split topology does not forward it (cli/tests/test_gateway.py).
    api = await start_api()
    ws = await api.create_workspace("metrics@example.com")
    route = {"route": "/v2/workspace/get", "method": "POST"}

    async def count(status: str) -> float:
        response = await get(api, "/metrics")
        assert response.status == 200
        assert response.content_type == "text/plain"
        return sample(await response.text(), "redline_http_requests_total", **route, status=status)

    refused = str((await api.post("/v2/workspace/get", {}, headers={})).status)
    before_ok, before_refused = await count("200"), await count(refused)
    assert (await api.post("/v2/workspace/get", {}, headers=ws.workspace_headers)).status == 200
    for _ in range(2):
        assert str((await api.post("/v2/workspace/get", {}, headers={})).status) == refused
    assert await count("200") == before_ok + 1
    assert await count(refused) == before_refused + 2


async def test_openapi_lists_every_identity_endpoint_with_its_schemas(api: ApiClient) -> None:
    response = await get(api, "/openapi.json")

    assert response.status == 200
    assert response.content_type == "application/json"
    doc = await response.json()
    assert doc["openapi"].startswith("3.")
    for endpoint in IDENTITY_ENDPOINTS:
        operation = doc["paths"][endpoint.path]["post"]
        request = operation["requestBody"]["content"]["application/json"]["schema"]
        assert resolve(doc, request["properties"]["data"])
        success = operation["responses"]["200"]["content"]["application/json"]["schema"]
        result = success["properties"]["result"]
        assert result["properties"]["status"] == {"const": "success"}
        assert resolve(doc, result["properties"]["data"])
        failure = operation["responses"]["default"]["content"]["application/json"]["schema"]
        assert resolve(doc, failure)["required"] == ["error"]


async def test_openapi_schemas_describe_the_identity_types(api: ApiClient) -> None:
    doc = await (await get(api, "/openapi.json")).json()
    paths = doc["paths"]

    def data_schema(path: str, side: str) -> dict[str, Any]:
        operation = paths[path]["post"]
        if side == "request":
            schema = operation["requestBody"]["content"]["application/json"]["schema"]
            return resolve(doc, schema["properties"]["data"])
        result = operation["responses"]["200"]["content"]["application/json"]["schema"]
        return resolve(doc, result["properties"]["result"]["properties"]["data"])

    create_request = data_schema("/v2/workspace/create", "request")
    assert "ownerEmail" in create_request["required"]
    workspace = data_schema("/v2/workspace/create", "response")
    assert set(workspace["required"]) == {"id", "name", "owner", "authToken", "apiKeyList"}
    assert workspace["properties"]["apiKeyList"]["type"] == "object"
    list_request = data_schema("/v2/workspace/apikeys/get", "request")
    assert list_request["properties"]["pageSize"]["maximum"] == 100
    listed = paths["/v2/workspace/apikeys/get"]["post"]["responses"]["200"]
    result = listed["content"]["application/json"]["schema"]["properties"]["result"]
    assert "nextPageToken" in result["properties"]
    for ref in all_refs(doc):
        assert resolve(doc, {"$ref": ref})


async def test_openapi_names_the_auth_headers_of_each_endpoint(api: ApiClient) -> None:
    doc = await (await get(api, "/openapi.json")).json()

    schemes = doc["components"]["securitySchemes"]
    assert schemes["apiKey"]["name"] == "x-redline-api-key"
    assert schemes["authToken"]["name"] == "x-redline-auth-token"
    assert schemes["workspaceId"]["name"] == "x-redline-workspace-id"
    assert schemes["workspaceToken"]["name"] == "x-redline-workspace-auth-token"
    assert schemes["adminToken"]["name"] == "x-redline-admin-token"
    for endpoint in IDENTITY_ENDPOINTS:
        security = doc["paths"][endpoint.path]["post"]["security"]
        if endpoint.path in WORKSPACE_LEVEL:
            assert security == [{"workspaceId": [], "workspaceToken": []}]
        elif endpoint.path in PUBLIC:
            assert security == []
        elif endpoint.path == "/v2/workspace/create":
            assert {"adminToken": []} in security
        else:
            assert security == [{"apiKey": [], "authToken": []}]


async def test_docs_page_is_html(api: ApiClient) -> None:
    response = await get(api, "/docs")

    assert response.status == 200
    assert response.content_type == "text/html"
    text = await response.text()
    assert text.lstrip().lower().startswith("<!doctype html>")
    assert "/openapi.json" in text


ENDPOINT_TABLE = Path(__file__).resolve().parents[2] / "docs" / "endpoints.md"


def _tabled(prefix: str) -> list[str]:
    rows = [line for line in ENDPOINT_TABLE.read_text().splitlines() if line.startswith(prefix)]
    return [row.split("`")[1] for row in rows]


async def test_the_endpoint_table_lists_exactly_the_documented_paths(api: ApiClient) -> None:
    doc = await (await get(api, "/openapi.json")).json()
    tabled = _tabled("| `/")
    raw = _tabled("| `GET ") + _tabled("| `PUT ") + _tabled("| `POST ")

    assert sorted(tabled) == envelope_paths(doc)
    assert len(tabled) == len(set(tabled))
    assert sorted(raw) == raw_operations(doc)
    assert len(raw) == len(set(raw))


@pytest.mark.parametrize(
    "path", ["/v2/agents/create", "/v2/crdt/get", "/v2/presence/add", "/v2/rewriter/ask-ai"]
)
async def test_features_not_served_answer_not_found(api: ApiClient, path: str) -> None:
    answer = await api.post(path, {})

    assert answer.status == 404, answer.body
    assert answer.body == {"error": {"status": "NOT_FOUND", "message": "No endpoint at this path."}}

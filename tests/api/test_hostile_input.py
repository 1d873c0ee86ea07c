"""No request a client can send gets a server error: every endpoint of the OpenAPI document is
called with a body built from its request schema, then with each field in turn replaced by hostile
values (wrong types, extremes, oversized lists and strings, control characters, deep nesting), or
removed. Every answer must be a success or a failure envelope below 500.

Black-box: the bodies come from /openapi.json, so endpoints added later are covered as they come.
"""

from __future__ import annotations

import base64
import copy
import json
import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

import aiohttp
import pytest

from redline.testing.api import ApiClient, StartApi, Workspace
from tests.api.openapi_support import is_raw, resolve

pytestmark = pytest.mark.input_sweep

Path = tuple[str | int, ...]

_DEEP: Any = {"x": 1}
for _ in range(300):
    _DEEP = {"a": [_DEEP]}

HOSTILE: list[Any] = [
    None,
    0,
    -1,
    2**63,
    -(2**63) - 1,
    2**70,
    1.5,
    1e300,
    True,
    "",
    " ",
    "x" * 70_000,
    "\x00",
    "a\u2028b",
    "é" * 300,
    "😀" * 10,
    "'; DROP TABLE x;--",
    "../../etc/passwd",
    "2020-13-45T99:99:99Z",
    [],
    [None],
    ["x"] * 1_000,
    {},
    {"a": None},
    {"\x00": 1},
    _DEEP,
]

# Strings tried, in order, for a schema's string: the first that fits its pattern and length.
# "abc-1" is a slug, for patterns of lowercase ids with hyphens and a minimum length.
_STRINGS = ["x1", "owner@example.com", "https://example.com/hook", "1", "a", "abc-1"]

_SECURITY_HEADERS = {"apiKey": "key", "workspaceId": "workspace"}


def example(
    doc: dict[str, Any], schema: dict[str, Any], known: dict[str, Any], depth: int = 0
) -> Any:
    """A value of `schema`: its required fields only, each as small as the schema allows, and
    fields named in `known` set to those values (ids of things that exist)."""
    schema = resolve(doc, schema)
    if depth > 8:
        return None
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            options = [o for o in schema[key] if resolve(doc, o).get("type") != "null"]
            return example(doc, (options or schema[key])[0], known, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        properties = schema.get("properties", {})
        return {
            name: known[name] if name in known else example(doc, properties[name], known, depth + 1)
            for name in schema.get("required", [])
            if name in properties
        }
    if kind == "array":
        item = example(doc, schema.get("items", {}), known, depth + 1)
        if "contains" in schema and isinstance(item, dict):
            # The array must hold an item of that shape: the one item given is made to fit it.
            item = {**item, **example(doc, schema["contains"], known, depth + 1)}
        return [item] * max(1, schema.get("minItems", 1))
    if kind == "string":
        return _string(schema)
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0) + 1)
        return max(low, min(1, schema.get("maximum", 1)))
    if kind == "boolean":
        return False
    return None


def _string(schema: dict[str, Any]) -> str:
    if schema.get("contentEncoding") == "base64":
        return base64.b64encode(b"x1").decode()  # text that decodes, as the schema asks
    pattern = schema.get("pattern")
    low, high = schema.get("minLength", 0), schema.get("maxLength", 1_000)
    for text in _STRINGS:
        text = text * max(1, -(-low // len(text)))
        if len(text) <= high and (pattern is None or re.search(pattern, text)):
            return text
    return "x" * max(low, 1)


def leaves(
    doc: dict[str, Any], schema: dict[str, Any], value: Any, path: Path = ()
) -> Iterator[Path]:
    """Paths to mutate: every field given, and every optional field of an object, once."""
    yield path
    schema = resolve(doc, schema)
    if isinstance(value, dict):
        for name in schema.get("properties", {}):
            yield from leaves(doc, schema["properties"][name], value.get(name), (*path, name))
    elif isinstance(value, list) and value:
        yield from leaves(doc, schema.get("items", {}), value[0], (*path, 0))


def replaced(body: dict[str, Any], path: Path, value: Any, *, remove: bool = False) -> Any:
    if not path:
        return value
    body = copy.deepcopy(body)
    parent: Any = body
    for step in path[:-1]:
        parent = parent[step]
    if remove:
        if isinstance(parent, dict):
            parent.pop(path[-1], None)
        return body
    parent[path[-1]] = value
    return body


def operations(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any], str]]:
    found = []
    for path, item in sorted(doc["paths"].items()):
        operation = item.get("post")
        if operation is None or is_raw(operation):
            continue
        schema = operation["requestBody"]["content"]["application/json"]["schema"]
        envelope = resolve(doc, schema)
        data_schema = envelope.get("properties", {}).get("data", {})
        security = {name for option in operation.get("security", []) for name in option}
        credentials = next((_SECURITY_HEADERS[s] for s in security if s in _SECURITY_HEADERS), "")
        found.append((path, data_schema, credentials))
    return found


def is_batch_outcome(status: int, body: Any) -> bool:
    """Answers about the entries of a batch, not server errors: by contract a batch with failed
    entries answers INTERNAL with the per-id map (decisions, "Batches and partial failure"), and
    a domains add that skipped known domains INTERNAL with what it added and skipped (as the
    API documents it), and a domains delete that skipped unknown ones likewise (the reference)."""
    if status != 500 or not isinstance(body, dict) or "error" not in body:
        return False
    details = body["error"].get("details")
    if body["error"].get("status") != "INTERNAL" or not isinstance(details, dict) or not details:
        return False
    if set(details) in ({"domainsAdded", "skippedDomains"}, {"domainsRemoved", "skippedDomains"}):
        return bool(details["skippedDomains"])
    entries = details.values()
    return all(isinstance(entry, dict) and "success" in entry for entry in entries) and any(
        entry["success"] is False and "code" in entry for entry in entries
    )


def assert_envelope(path: str, sent: Any, status: int, body: Any) -> None:
    where = f"{path} with {json.dumps(sent, default=str)[:300]}"
    assert status < 500 or is_batch_outcome(status, body), f"{status} from {where}: {body}"
    assert isinstance(body, dict), f"{status} from {where}: not JSON: {body!r:.300}"
    if status == 200:
        assert "result" in body, f"{where}: {body}"
    else:
        assert set(body) == {"error"}, f"{where}: {body}"
        assert {"status", "message"} <= set(body["error"]), f"{where}: {body}"


async def call(api: ApiClient, path: str, data: Any, headers: dict[str, str]) -> tuple[int, Any]:
    raw = json.dumps({"data": data}).encode()
    response = await api.post(path, raw=raw, headers=headers)
    return response.status, response.body


# Rate limits out of reach, for an app that one test calls thousands of times from one address.
UNLIMITED = {
    f"rate_limit_{name}": 10**9
    for name in ("general", "search", "ingest", "signup", "auth_failures")
}


@pytest.fixture
async def api(target_url: str | None, start_api: StartApi) -> AsyncIterator[ApiClient]:
    """In process with limits out of reach: the sweep sends thousands of requests from one
    address. Against `--target` the system's own limits apply (429s are answers too)."""
    if target_url is None:
        yield await start_api(**UNLIMITED)
        return
    async with aiohttp.ClientSession() as session:
        yield ApiClient(session, target_url)


@pytest.fixture
async def ws(api: ApiClient) -> Workspace:
    """A workspace where the ids the bodies use exist: organization, document, annotation with
    one comment, and user `x1` (the first string `example` tries)."""
    ws = await api.create_workspace("hostile@example.com")
    seeded = await api.post(
        "/v2/commentannotations/add",
        {
            "organizationId": "x1",
            "documentId": "x1",
            "createOrganization": True,
            "createDocument": True,
            "commentAnnotations": [
                {
                    "annotationId": "x1",
                    "commentData": [{"from": {"userId": "x1"}, "commentText": "x"}],
                }
            ],
        },
        headers=ws.key_headers,
    )
    assert seeded.status == 200, seeded.body
    return ws


@pytest.fixture
async def doc(api: ApiClient) -> dict[str, Any]:
    async with api.session.get(api.base_url + "/openapi.json") as response:
        assert response.status == 200
        document: dict[str, Any] = await response.json()
        return document


SHARDS = 4


@pytest.mark.parametrize("shard", range(SHARDS))
async def test_no_field_value_makes_a_server_error(
    api: ApiClient, ws: Workspace, doc: dict[str, Any], shard: int
) -> None:
    headers = {"key": ws.key_headers, "workspace": ws.workspace_headers, "": {}}
    mine = operations(doc)[shard::SHARDS]
    assert mine
    for path, schema, credentials in mine:
        if path == "/v2/workspace/create":
            continue  # each call makes a workspace; its validation is covered elsewhere
        base = example(doc, schema, {"apiKey": ws.api_key})
        sent_headers = headers[credentials]
        status, body = await call(api, path, base, sent_headers)
        assert_envelope(path, base, status, body)
        for leaf in leaves(doc, schema, base):
            variants = [replaced(base, leaf, value) for value in HOSTILE]
            if leaf:
                variants.append(replaced(base, leaf, None, remove=True))
            for data in variants:
                status, body = await call(api, path, data, sent_headers)
                assert_envelope(path, data, status, body)

"""The request and failure envelopes as a client meets them over HTTP: whatever is wrong with a
request, the answer is the JSON failure envelope with the matching status and the offending path,
never an HTML page or a stack trace."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from typing import Any

import pytest

from redline.envelope.codec import MAX_NESTING
from redline.testing.api import ApiClient, Response, Workspace


def assert_failure_envelope(response: Response, http_status: int, code: str) -> dict[str, Any]:
    assert response.status == http_status, response.body
    assert response.headers["Content-Type"].startswith("application/json")
    assert isinstance(response.body, dict), response.body
    assert set(response.body) == {"error"}
    error: dict[str, Any] = response.body["error"]
    assert set(error) <= {"status", "message", "details"}
    assert error["status"] == code
    assert isinstance(error["message"], str)
    assert error["message"]
    assert "Traceback" not in str(error)
    assert response.headers.get("X-Request-ID")
    return error


def only_issue(error: dict[str, Any]) -> dict[str, Any]:
    issues = error["details"]["issues"]
    assert len(issues) == 1, issues
    issue: dict[str, Any] = issues[0]
    assert set(issue) == {"code", "path", "message"}
    return issue


async def post_streamed(api: ApiClient, path: str, raw: bytes, headers: dict[str, str]) -> Response:
    """POST a large body as a stream (aiohttp warns when a big body is passed as bytes)."""
    async with api.session.post(
        api.base_url + path,
        data=io.BytesIO(raw),
        headers={"content-type": "application/json", **headers},
    ) as raw_response:
        body = await raw_response.json()
        return Response(raw_response.status, body, dict(raw_response.headers))


@pytest.fixture
async def ws(api: ApiClient) -> Workspace:
    return await api.create_workspace("envelope@example.com")


async def test_success_envelope_is_json_with_status_message_and_data(
    api: ApiClient, ws: Workspace
) -> None:
    response = await api.post("/v2/workspace/domains/get", {}, headers=ws.key_headers)

    assert response.status == 200
    assert response.headers["Content-Type"].startswith("application/json")
    assert set(response.body) == {"result"}
    assert set(response.body["result"]) == {"status", "message", "data"}
    assert response.body["result"]["status"] == "success"


async def test_a_body_without_data_means_empty_data(api: ApiClient, ws: Workspace) -> None:
    response = await api.post("/v2/workspace/domains/get", raw=b"{}", headers=ws.key_headers)

    assert response.status == 200, response.body


@pytest.mark.parametrize(
    "raw",
    [
        b'{"data": {',
        # Not UTF-8: in a value, an encoded surrogate, in a key.
        b'{"data": {"organizationIds": ["\xff"]}}',
        b'{"data": {"organizationIds": ["\xed\xa0\x80"]}}',
        b'{"\xff": 1}',
    ],
)
async def test_malformed_json_is_invalid_argument(
    api: ApiClient, ws: Workspace, raw: bytes
) -> None:
    response = await api.post("/v2/organizations/get", raw=raw, headers=ws.key_headers)

    error = assert_failure_envelope(response, 400, "INVALID_ARGUMENT")
    assert only_issue(error)["code"] == "malformed_json"


@pytest.mark.parametrize(
    "raw",
    [
        # Past the decoder's depth in the envelope itself, and inside a field that takes any JSON.
        b'{"data": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        b'{"data": {"organizationId": "o", "activities": [{"actionType": "t", "entityData": '
        + b'{"a":' * 3000
        + b"1"
        + b"}" * 3000
        + b"}]}}",
    ],
)
async def test_json_nested_too_deeply_is_invalid_argument(
    api: ApiClient, ws: Workspace, raw: bytes
) -> None:
    response = await api.post("/v2/activities/add", raw=raw, headers=ws.key_headers)

    error = assert_failure_envelope(response, 400, "INVALID_ARGUMENT")
    issue = only_issue(error)
    assert (issue["code"], issue["path"]) == ("too_deep", "")


async def test_a_body_that_does_not_decode_with_its_content_encoding_is_invalid(
    api: ApiClient, ws: Workspace, target_url: str | None
) -> None:
    response = await api.post(
        "/v2/organizations/get",
        raw=b"not gzip at all",
        headers={**ws.key_headers, "content-encoding": "gzip"},
    )

    error = assert_failure_envelope(response, 400, "INVALID_ARGUMENT")
    assert "content-encoding" in error["message"]
    # The service could not read the body to its end, so it closes that connection. Connection
    # headers are hop by hop: a gateway in between keeps its own connection to the client.
    if target_url is None:
        assert response.headers.get("Connection") == "close"


async def add_organization_with_deep_metadata(
    api: ApiClient, ws: Workspace, org_id: str, depth: int
) -> Response:
    """organizations/add with `data` nested `depth` levels deep: data > organizations > the entry
    > metadata > arrays under "k"."""
    arrays = depth - 4
    metadata = b'{"k": ' + b"[" * arrays + b"1" + b"]" * arrays + b"}"
    raw = b'{"data": {"organizations": [{"organizationId": "%s", "metadata": %s}]}}' % (
        org_id.encode(),
        metadata,
    )
    return await api.post("/v2/organizations/add", raw=raw, headers=ws.key_headers)


async def test_metadata_as_deep_as_the_bound_is_stored(api: ApiClient, ws: Workspace) -> None:
    response = await add_organization_with_deep_metadata(api, ws, "at-bound", MAX_NESTING)

    assert response.status == 200, response.body
    found = await api.post(
        "/v2/organizations/get", {"organizationIds": ["at-bound"]}, headers=ws.key_headers
    )
    value, arrays = found.data[0]["metadata"]["k"], 0
    while isinstance(value, list):
        value, arrays = value[0], arrays + 1
    assert (arrays, value) == (MAX_NESTING - 4, 1)


async def test_metadata_nested_past_the_bound_is_refused_and_nothing_is_stored(
    api: ApiClient, ws: Workspace
) -> None:
    # From just past the bound to past what the decoder follows, and every depth around where
    # the decoder still took a value that encoding it for the database could not.
    for depth in [*range(MAX_NESTING + 1, 1100, 7), *range(955, 1000)]:
        response = await add_organization_with_deep_metadata(api, ws, "deep", depth)

        error = assert_failure_envelope(response, 400, "INVALID_ARGUMENT")
        assert only_issue(error)["code"] == "too_deep", depth
    found = await api.post(
        "/v2/organizations/get", {"organizationIds": ["deep"]}, headers=ws.key_headers
    )
    assert found.data == []


@pytest.mark.parametrize(
    ("activity", "path"),
    [
        ('{"actionType": "a\\u0000b"}', "data.activities[0].actionType"),
        (
            '{"actionType": "t", "entityData": {"k": ["x", "\\u0000"]}}',
            "data.activities[0].entityData.k[1]",
        ),
        ('{"actionType": "t", "entityData": {"k\\u0000": 1}}', "data.activities[0].entityData"),
    ],
)
async def test_a_nul_character_anywhere_is_invalid_and_nothing_is_stored(
    api: ApiClient, ws: Workspace, activity: str, path: str
) -> None:
    raw = f'{{"data": {{"organizationId": "o", "activities": [{activity}]}}}}'.encode()

    response = await api.post("/v2/activities/add", raw=raw, headers=ws.key_headers)

    error = assert_failure_envelope(response, 400, "INVALID_ARGUMENT")
    assert only_issue(error) == {
        "code": "invalid_value",
        "path": path,
        "message": "must not contain U+0000 (NUL)",
    }
    stored = await api.post("/v2/activities/get", {"organizationId": "o"}, headers=ws.key_headers)
    assert stored.data == []


async def test_an_escaped_backslash_before_u0000_is_plain_text(
    api: ApiClient, ws: Workspace
) -> None:
    raw = b'{"data": {"organizationId": "o", "activities": [{"actionType": "a\\\\u0000"}]}}'

    response = await api.post("/v2/activities/add", raw=raw, headers=ws.key_headers)

    assert response.status == 200, response.body
    assert response.data["activities"][0]["actionType"] == "a\\u0000"


@pytest.mark.parametrize("raw", [b'{"data": 5}', b'{"data": []}', b'{"data": null}'])
async def test_data_that_is_not_an_object_names_data(
    api: ApiClient, ws: Workspace, raw: bytes
) -> None:
    response = await api.post("/v2/workspace/domains/get", raw=raw, headers=ws.key_headers)

    error = assert_failure_envelope(response, 400, "INVALID_ARGUMENT")
    issue = only_issue(error)
    assert issue["path"] == "data"
    assert issue["code"] == "invalid_type"


@pytest.mark.parametrize("raw", [b"[]", b"5", b'"data"'])
async def test_a_body_that_is_not_an_object_is_invalid(
    api: ApiClient, ws: Workspace, raw: bytes
) -> None:
    response = await api.post("/v2/workspace/domains/get", raw=raw, headers=ws.key_headers)

    error = assert_failure_envelope(response, 400, "INVALID_ARGUMENT")
    assert only_issue(error)["code"] == "invalid_type"


async def test_unknown_top_level_key_is_invalid_argument(api: ApiClient, ws: Workspace) -> None:
    response = await api.post(
        "/v2/workspace/domains/get", raw=b'{"data": {}, "extra": 1}', headers=ws.key_headers
    )

    error = assert_failure_envelope(response, 400, "INVALID_ARGUMENT")
    issue = only_issue(error)
    assert issue["code"] == "unknown_field"
    assert issue["path"] == "extra"


async def test_fields_sent_without_the_data_wrapper_are_told_to_wrap_them(
    api: ApiClient, ws: Workspace
) -> None:
    response = await api.post(
        "/v2/users/add", raw=b'{"organizationId": "acme", "users": []}', headers=ws.key_headers
    )

    error = assert_failure_envelope(response, 400, "INVALID_ARGUMENT")
    assert only_issue(error) == {
        "code": "unknown_field",
        "path": "organizationId",
        "message": "Object contains unknown field `organizationId`",
    }
    assert error["message"].endswith('; requests wrap their fields in {"data": …}')


async def test_an_email_field_that_holds_no_address_says_so(api: ApiClient) -> None:
    response = await api.post("/v2/workspace/create", {"ownerEmail": "you-at-example.com"})

    error = assert_failure_envelope(response, 400, "INVALID_ARGUMENT")
    assert error["message"] == "data.ownerEmail: not an email address"
    assert only_issue(error) == {
        "code": "invalid_value",
        "path": "data.ownerEmail",
        "message": "not an email address",
    }


async def test_unknown_field_inside_data_is_named(api: ApiClient, ws: Workspace) -> None:
    response = await api.post(
        "/v2/workspace/domains/get", {"surprise": True}, headers=ws.key_headers
    )

    error = assert_failure_envelope(response, 400, "INVALID_ARGUMENT")
    issue = only_issue(error)
    assert issue["path"] == "data.surprise"
    assert issue["code"] == "unknown_field"


async def test_wrong_type_is_named(api: ApiClient, ws: Workspace) -> None:
    response = await api.post(
        "/v2/workspace/apikeys/get", {"pageSize": "x"}, headers=ws.workspace_headers
    )

    error = assert_failure_envelope(response, 400, "INVALID_ARGUMENT")
    issue = only_issue(error)
    assert issue["path"] == "data.pageSize"
    assert issue["code"] == "invalid_type"


@pytest.mark.parametrize("page_size", [0, 101, -1])
async def test_page_size_out_of_bounds_is_named(
    api: ApiClient, ws: Workspace, page_size: int
) -> None:
    response = await api.post(
        "/v2/workspace/apikeys/get", {"pageSize": page_size}, headers=ws.workspace_headers
    )

    error = assert_failure_envelope(response, 400, "INVALID_ARGUMENT")
    issue = only_issue(error)
    assert issue["path"] == "data.pageSize"
    assert issue["code"] == "out_of_range"


async def test_page_size_at_the_bounds_is_accepted(api: ApiClient, ws: Workspace) -> None:
    for page_size in (1, 100):
        response = await api.post(
            "/v2/workspace/apikeys/get", {"pageSize": page_size}, headers=ws.workspace_headers
        )
        assert response.status == 200, response.body


async def test_too_long_string_is_named(api: ApiClient, ws: Workspace) -> None:
    response = await api.post(
        "/v2/workspace/apikey/create", {"apiKeyName": "n" * 257}, headers=ws.workspace_headers
    )

    error = assert_failure_envelope(response, 400, "INVALID_ARGUMENT")
    issue = only_issue(error)
    assert issue["path"] == "data.apiKeyName"
    assert issue["code"] == "invalid_length"


async def test_nested_field_path_is_named(api: ApiClient, ws: Workspace) -> None:
    response = await api.post(
        "/v2/workspace/apikey/create",
        {"webhookServiceConfig": {"encodeData": "yes"}},
        headers=ws.workspace_headers,
    )

    error = assert_failure_envelope(response, 400, "INVALID_ARGUMENT")
    assert only_issue(error)["path"] == "data.webhookServiceConfig.encodeData"


async def test_list_item_path_is_named(api: ApiClient, ws: Workspace) -> None:
    response = await api.post(
        "/v2/workspace/apikey/create",
        {"allowedDomains": ["ok.example.com", ""]},
        headers=ws.workspace_headers,
    )

    error = assert_failure_envelope(response, 400, "INVALID_ARGUMENT")
    assert only_issue(error)["path"] == "data.allowedDomains[1]"


async def test_body_over_one_mebibyte_is_413(api: ApiClient, ws: Workspace) -> None:
    padding = "p" * (2 << 20)
    raw = b'{"data": {"apiKeyName": "' + padding.encode() + b'"}}'

    response = await post_streamed(api, "/v2/workspace/apikey/create", raw, ws.workspace_headers)

    assert_failure_envelope(response, 413, "INVALID_ARGUMENT")


async def test_chunked_body_over_one_mebibyte_is_413(api: ApiClient, ws: Workspace) -> None:
    # Without Content-Length the limit can only be enforced while reading.
    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"data": {"apiKeyName": "'
        for _ in range(32):
            yield b"p" * (64 << 10)
        yield b'"}}'

    async with api.session.post(
        api.base_url + "/v2/workspace/apikey/create",
        data=chunks(),
        headers={"content-type": "application/json", **ws.workspace_headers},
    ) as raw_response:
        assert "Content-Length" not in raw_response.request_info.headers
        body = await raw_response.json()
        response = Response(raw_response.status, body, dict(raw_response.headers))

    assert_failure_envelope(response, 413, "INVALID_ARGUMENT")


async def test_body_over_the_largest_any_endpoint_takes_is_413(
    api: ApiClient, ws: Workspace
) -> None:
    raw = b'{"data": {"apiKeyName": "' + b"p" * (9 << 20) + b'"}}'

    response = await post_streamed(api, "/v2/workspace/apikey/create", raw, ws.workspace_headers)

    assert_failure_envelope(response, 413, "INVALID_ARGUMENT")


async def test_unknown_path_is_a_not_found_envelope(api: ApiClient) -> None:
    response = await api.post("/v2/workspace/nothing-here", {})

    assert_failure_envelope(response, 404, "NOT_FOUND")


async def test_get_on_an_endpoint_is_a_405_envelope(api: ApiClient) -> None:
    async with api.session.get(api.base_url + "/v2/workspace/get") as raw_response:
        body = await raw_response.json()
        response = Response(raw_response.status, body, dict(raw_response.headers))

    assert_failure_envelope(response, 405, "INVALID_ARGUMENT")
    assert response.headers["Allow"] == "POST"


async def test_get_on_an_unknown_path_is_a_not_found_envelope(api: ApiClient) -> None:
    async with api.session.get(api.base_url + "/nowhere") as raw_response:
        body = await raw_response.json()
        response = Response(raw_response.status, body, dict(raw_response.headers))

    assert_failure_envelope(response, 404, "NOT_FOUND")


async def test_auth_failures_come_before_body_validation(api: ApiClient) -> None:
    response = await api.post("/v2/workspace/domains/get", raw=b"{not json")

    assert_failure_envelope(response, 400, "INVALID_ARGUMENT")
    assert response.error["details"]["issues"][0]["path"] == "headers.x-redline-api-key"


async def test_a_request_refused_before_its_body_is_read_ends_its_connection(
    api: ApiClient, ws: Workspace
) -> None:
    go_on = asyncio.Event()

    async def held_body() -> AsyncIterator[bytes]:
        # A server that waited for the whole body before answering would never answer.
        yield b'{"data": {"domains": ["a.example'
        await go_on.wait()
        yield b'.com"]}}'

    headers = {**ws.key_headers, "x-redline-auth-token": "not-the-token"}
    async with asyncio.timeout(20):
        async with api.session.post(
            api.base_url + "/v2/workspace/domains/add",
            data=held_body(),
            headers={"content-type": "application/json", **headers},
        ) as raw_response:
            response = Response(
                raw_response.status, await raw_response.json(), dict(raw_response.headers)
            )
    go_on.set()

    assert_failure_envelope(response, 401, "UNAUTHENTICATED")
    # The rest of the body is not read: the caller knows to stop sending it.
    assert response.headers["Connection"] == "close"


async def test_caller_request_id_is_echoed(api: ApiClient, ws: Workspace) -> None:
    ok = await api.post(
        "/v2/workspace/domains/get", {}, headers={**ws.key_headers, "x-request-id": "trace-1"}
    )
    failed = await api.post(
        "/v2/workspace/domains/get", raw=b"{", headers={**ws.key_headers, "x-request-id": "trace-2"}
    )

    assert ok.headers["X-Request-ID"] == "trace-1"
    assert failed.headers["X-Request-ID"] == "trace-2"

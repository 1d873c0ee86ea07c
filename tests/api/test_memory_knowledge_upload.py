"""The upload PUT a signed URL takes: refused before its body is read when the link or the size
is wrong, streamed to the store within its declared size, and nothing kept from a refused one."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgspec
from yarl import URL

from redline.testing.api import ApiClient, Response, StartApi, Workspace, assert_failure
from tests.api.knowledge_support import TEXT

PART = bytes(64 << 10)
# What the stranger claims to send: the largest file an upload URL is given for.
CLAIMED = 30 << 20


class HeldBody:
    """A body that sends its first part and then holds the rest back until told to go on: a
    server that waits for the whole body before answering never answers."""

    def __init__(self, parts: int) -> None:
        self.parts = parts
        self.sent = 0
        self.go_on = asyncio.Event()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for n in range(self.parts):
            if n == 1:
                await self.go_on.wait()
            self.sent += len(PART)
            yield PART


async def _answer(answer: Any) -> Response:
    raw = await answer.read()
    return Response(answer.status, msgspec.json.decode(raw) if raw else None, dict(answer.headers))


async def _put_held(api: ApiClient, url: str | URL, body: HeldBody, **headers: str) -> Response:
    async with asyncio.timeout(20):
        async with api.session.put(url, data=body.__aiter__(), headers=headers) as answer:
            # The answer came while all but the first part were still held back.
            sent_before_answer = body.sent
            body.go_on.set()
            response = await _answer(answer)
    assert sent_before_answer == len(PART)
    return response


async def _upload_url(api: ApiClient, ws: Workspace, size: int) -> dict[str, Any]:
    asked = await api.post(
        "/v2/memory/knowledge/upload-url",
        {"mimeType": TEXT, "fileSize": size, "fileName": "notes.txt"},
        headers=ws.key_headers,
    )
    assert asked.status == 200, asked.body
    result: dict[str, Any] = asked.result
    return result


def _stored_files(tmp_path: Path) -> list[Path]:
    blobs = tmp_path / "data" / "blobs"
    return [p for p in blobs.rglob("*") if p.is_file()] if blobs.exists() else []


async def test_a_badly_signed_upload_is_refused_before_its_body_is_read(api: ApiClient) -> None:
    ws = await api.create_workspace()
    asked = await _upload_url(api, ws, CLAIMED)
    url = URL(asked["uploadUrl"])
    forged = url.update_query(signature="0" * 64)

    refused = await _put_held(api, forged, HeldBody(CLAIMED // len(PART)), **{"content-type": TEXT})

    assert_failure(refused, 403, "PERMISSION_DENIED")


async def test_a_used_or_expired_upload_url_refuses_a_body_before_reading_it(
    start_api: Any,
) -> None:
    api: ApiClient = await start_api()
    ws = await api.create_workspace()
    asked = await _upload_url(api, ws, 5)
    async with api.session.put(asked["uploadUrl"], data=b"notes", headers={"content-type": TEXT}):
        pass
    used = await _put_held(api, asked["uploadUrl"], HeldBody(4), **{"content-type": TEXT})
    assert_failure(used, 400, "FAILED_PRECONDITION")

    short_lived: ApiClient = await start_api(upload_url_ttl_s=0)
    ws = await short_lived.create_workspace()
    asked = await _upload_url(short_lived, ws, CLAIMED)
    await asyncio.sleep(0.01)  # past the expiry, a millisecond after it was handed out
    expired = await _put_held(
        short_lived, asked["uploadUrl"], HeldBody(CLAIMED // len(PART)), **{"content-type": TEXT}
    )
    error = assert_failure(expired, 400, "FAILED_PRECONDITION")
    assert "expired" in error["message"]


async def test_an_upload_declared_larger_than_asked_for_is_refused_before_it_is_read(
    start_api: StartApi, tmp_path: Path
) -> None:
    # In this process, whatever the target: the test looks into the service's blob directory.
    api = await start_api()
    ws = await api.create_workspace()
    asked = await _upload_url(api, ws, 1000)

    headers = {"content-type": TEXT, "content-length": str(8 * len(PART))}
    refused = await _put_held(api, asked["uploadUrl"], HeldBody(8), **headers)

    error = assert_failure(refused, 400, "INVALID_ARGUMENT")
    assert "1000" in error["message"]
    assert _stored_files(tmp_path) == []


async def test_an_upload_that_runs_past_its_declared_size_leaves_nothing(
    start_api: StartApi, tmp_path: Path
) -> None:
    # In this process, whatever the target: the test looks into the service's blob directory.
    api = await start_api()
    ws = await api.create_workspace()
    data = b"Meeting notes\n\nThe kitchen is cleaned on Fridays.\n" * 100
    asked = await _upload_url(api, ws, len(data))

    async def too_long() -> AsyncIterator[bytes]:
        # Sent chunked: no Content-Length tells the server in advance.
        yield data
        yield b"one line more\n"

    async with api.session.put(
        asked["uploadUrl"], data=too_long(), headers={"content-type": TEXT}
    ) as answer:
        refused = await _answer(answer)
    error = assert_failure(refused, 400, "INVALID_ARGUMENT")
    assert str(len(data)) in error["message"]
    assert _stored_files(tmp_path) == []
    not_uploaded = await api.post(
        "/v2/memory/knowledge/ingest",
        {"source": "fileRef", "fileRef": asked["fileRef"], "mimeType": TEXT},
        headers=ws.key_headers,
    )
    assert_failure(not_uploaded, 400, "FAILED_PRECONDITION")

    # The URL was not used up: the right file still goes in, once.
    async with api.session.put(
        asked["uploadUrl"], data=data, headers={"content-type": TEXT}
    ) as put:
        assert put.status == 200, await put.text()
    assert [p.read_bytes() for p in _stored_files(tmp_path)] == [data]
    async with api.session.put(
        asked["uploadUrl"], data=data, headers={"content-type": TEXT}
    ) as again:
        assert_failure(await _answer(again), 400, "FAILED_PRECONDITION")


async def test_an_address_that_keeps_forging_upload_links_waits_and_its_genuine_link_works(
    start_api: Any, tmp_path: Path
) -> None:
    api: ApiClient = await start_api(rate_limit_auth_failures=2)
    ws = await api.create_workspace()
    asked = await _upload_url(api, ws, 100)
    forged = URL(asked["uploadUrl"]).update_query(signature="f" * 64)
    headers = {"content-type": TEXT}
    for _ in range(2):
        async with api.session.put(forged, data=b"x", headers=headers) as answer:
            assert_failure(await _answer(answer), 403, "PERMISSION_DENIED")

    async with api.session.put(forged, data=b"x", headers=headers) as answer:
        limited = await _answer(answer)
    assert_failure(limited, 429, "RESOURCE_EXHAUSTED")
    assert int(limited.headers["Retry-After"]) >= 1

    # A link that verifies is served, whoever failed from the same address (a NAT, or someone
    # claiming it).
    async with api.session.put(asked["uploadUrl"], data=b"x", headers=headers) as answer:
        assert answer.status == 200, await answer.text()
    assert [p.read_bytes() for p in _stored_files(tmp_path)] == [b"x"]


async def test_a_refused_upload_ends_its_connection_without_reading_the_rest(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace()
    asked = await _upload_url(api, ws, 100)
    forged = URL(asked["uploadUrl"]).update_query(signature="f" * 64)
    async with api.session.put(
        forged, data=bytes(1 << 20), headers={"content-type": TEXT}
    ) as answer:
        refused = await _answer(answer)

    assert_failure(refused, 403, "PERMISSION_DENIED")
    # The server reads none of what the caller still has in flight; the caller knows to stop.
    assert refused.headers["Connection"] == "close"

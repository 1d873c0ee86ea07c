"""A disabled document across services: identity records the state, comments refuses a new
comment on it and still serves its threads, and enabling it restores the writes. In the split
topology comments runs in a process of its own and caches the state it asked identity for: the
change reaches it through the outbox event, well before the cache would have expired."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from redline.runtime.access import DEFAULT_TTL_S
from redline.testing.api import ApiClient, Response, Workspace, assert_failure
from redline.testing.split import SplitSystem
from tests.api.disable_support import set_docs_disabled, until_accepted

ADD = "/v2/commentannotations/add"
DOC = {"organizationId": "acme", "documentId": "d1"}


def _new_thread(text: str) -> dict[str, Any]:
    comment = {"from": {"userId": "alice"}, "commentText": text}
    return {**DOC, "commentAnnotations": [{"commentData": [comment]}]}


async def _threads(api: ApiClient, ws: Workspace) -> list[str]:
    got = await api.post("/v2/commentannotations/get", DOC, headers=ws.key_headers)
    assert got.status == 200, got.body
    return sorted(a["comments"][0]["commentText"] for a in got.data)


async def _document(api: ApiClient, ws: Workspace) -> dict[str, Any]:
    got = await api.post(
        "/v2/organizations/documents/get",
        {"organizationId": "acme", "documentIds": ["d1"]},
        headers=ws.key_headers,
    )
    assert got.status == 200, got.body
    found: dict[str, Any] = got.data[0]
    return found


async def _until_refused(
    api: ApiClient, ws: Workspace, body: dict[str, Any]
) -> tuple[Response, int]:
    """The first refused answer to adding a thread, and how many attempts it took (those
    before it were added)."""
    attempts = 0
    async with asyncio.timeout(DEFAULT_TTL_S * 2):
        while True:
            attempts += 1
            answer = await api.post(ADD, body, headers=ws.key_headers)
            if answer.status != 200:
                return answer, attempts
            await asyncio.sleep(0.02)


async def _flow(api: ApiClient) -> tuple[float, int]:
    """The flow; returns how long after the disable returned comments began refusing, and after
    how many attempts."""
    ws = await api.create_workspace("disabled@example.com")
    first = await api.post(
        ADD,
        {**_new_thread("first"), "createOrganization": True, "createDocument": True},
        headers=ws.key_headers,
    )
    assert first.status == 200, first.body

    disabled = await set_docs_disabled(api, ws, "d1")
    assert disabled.status == 200, disabled.body
    since = time.monotonic()
    refused, attempts = await _until_refused(api, ws, _new_thread("late"))
    took = time.monotonic() - since

    error = assert_failure(refused, 400, "FAILED_PRECONDITION")
    assert error["details"] == {
        "reason": "document-disabled",
        "organizationId": "acme",
        "documentId": "d1",
    }
    assert (await _document(api, ws))["disabled"] is True
    assert await _threads(api, ws) == ["first"] + ["late"] * (attempts - 1)

    enabled = await set_docs_disabled(api, ws, "d1", disabled=False)
    assert enabled.status == 200, enabled.body
    again = await until_accepted(api, ws, ADD, _new_thread("again"))
    assert again.status == 200, again.body
    assert "again" in await _threads(api, ws)
    assert (await _document(api, ws))["disabled"] is False
    return took, attempts


async def test_a_disabled_document_refuses_a_comment_and_serves_its_threads(
    api: ApiClient,
) -> None:
    _, attempts = await _flow(api)

    # One process: the change dropped the shared cache before the disable answered.
    assert attempts == 1


@pytest.fixture
async def split_api(split_system: SplitSystem) -> AsyncIterator[ApiClient]:
    async with aiohttp.ClientSession() as session:
        yield ApiClient(session, split_system.base_url)


async def test_in_the_split_topology_the_event_drops_the_cached_state(
    split_api: ApiClient,
) -> None:
    took, _ = await _flow(split_api)

    # The comments process had the document's state cached from the first comment: only the
    # event can have dropped it this early.
    assert took < DEFAULT_TTL_S / 2

"""One API key's permission provider cannot hold up another key's access checks: calls to a key's
provider go through a small pool of their own, a provider that keeps failing is left alone for a
cool-down (answered "no access" at once, then probed), and a failed answer is remembered for a
moment. Providers are real HTTP servers on this machine."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web

from redline.bus import Bus
from redline.envelope.errors import ApiError
from redline.proto.rpc import AccessDecision
from redline.testing.api import ApiClient, StartApi, Workspace
from tests.api.config_support import ok
from tests.api.permissions_support import check, document, grant
from tests.api.provider_support import (
    Provider,
    provider_server,
    started,
    switched_on,
    with_documents,
)

NO_ACCESS = AccessDecision(None, "public", "provider")


@pytest.fixture
async def hanging() -> AsyncIterator[Provider]:
    async with provider_server() as endpoint:
        endpoint.answer = endpoint.hang
        yield endpoint


@pytest.fixture
async def healthy() -> AsyncIterator[Provider]:
    async with provider_server() as endpoint:
        yield endpoint


async def unavailable(body: dict[str, Any]) -> web.StreamResponse:
    return web.Response(status=503)


async def answer_of(bus: Bus, ws: Workspace, user: str) -> AccessDecision | str:
    """The access decision for `user` on `org/open`, or the error code the check failed with."""
    try:
        return await check(bus, ws, "org", "open", user)
    except ApiError as exc:
        return exc.code


async def with_restricted_document(api: ApiClient) -> Workspace:
    """A workspace without a provider whose document `secret` is restricted to `writer`."""
    ws = await api.create_workspace("restricted-b@example.com")
    await ok(
        api,
        ws,
        "/v2/organizations/documents/add",
        {
            "organizationId": "org",
            "createOrganization": True,
            "documents": [{"documentId": "secret", "accessType": "restricted"}],
        },
    )
    await grant(api, ws, "writer", document("org", "secret"))
    return ws


async def comment_as(api: ApiClient, ws: Workspace, user: str) -> tuple[int, float]:
    token = (await ok(api, ws, "/v2/auth/generate_token", {"userId": user}))["token"]
    started_at = time.monotonic()
    answer = await api.post(
        "/v2/commentannotations/add",
        {
            "organizationId": "org",
            "documentId": "secret",
            "commentAnnotations": [
                {"commentData": [{"from": {"userId": user}, "commentText": "hello"}]}
            ],
        },
        headers={"x-redline-api-key": ws.api_key, "x-redline-auth-token": token},
    )
    return answer.status, time.monotonic() - started_at


async def test_a_hanging_provider_holds_up_only_its_own_keys_checks(
    start_api: StartApi, bus: Bus, hanging: Provider, healthy: Provider
) -> None:
    # A provider timeout well inside the 2 s other services wait for an access answer: on a
    # busy machine 1.5 s (the default) plus the RPC's own way left some callers past their wait.
    api = await started(start_api, permission_provider_timeout_s=1.0)
    a = await with_documents(api, "hanging-a@example.com")
    b = await with_restricted_document(api)
    c = await with_documents(api, "healthy-c@example.com")
    await switched_on(api, a, hanging.url)
    await switched_on(api, c, healthy.url)
    healthy.roles[("member", "open")] = "viewer"

    # More of A's checks at once than identity answers at once, each for another user.
    flood = [asyncio.create_task(answer_of(bus, a, f"user-{i}")) for i in range(100)]
    await asyncio.sleep(0.1)
    c_answers, c_seconds = [], []
    for _ in range(5):
        started_at = time.monotonic()
        c_answers.append(await answer_of(bus, c, "member"))
        c_seconds.append(time.monotonic() - started_at)
    writer = await comment_as(api, b, "writer")
    outsider = await comment_as(api, b, "outsider")
    a_answers = await asyncio.gather(*flood)

    assert c_answers == [AccessDecision("viewer", "public", "provider")] * 5
    assert max(c_seconds) < 1.0, c_seconds
    assert (writer[0], outsider[0]) == (200, 403)
    assert max(writer[1], outsider[1]) < 1.0, (writer, outsider)
    assert set(a_answers) == {NO_ACCESS}
    # A's provider was asked only as often as its own pool allows at once.
    assert len(hanging.requests) <= 4


async def test_checks_beyond_a_keys_pool_answer_no_access_without_asking(
    start_api: StartApi, bus: Bus, hanging: Provider
) -> None:
    api = await started(
        start_api,
        permission_provider_timeout_s=1.0,
        permission_provider_concurrency=2,
        permission_provider_queue_wait_s=0,
    )
    ws = await with_documents(api)
    await switched_on(api, ws, hanging.url)

    asking = [asyncio.create_task(answer_of(bus, ws, f"slow-{i}")) for i in range(2)]
    await hanging.asked(2)
    started_at = time.monotonic()
    beyond = [await answer_of(bus, ws, f"beyond-{i}") for i in range(3)]
    beyond_s = time.monotonic() - started_at
    asked = await asyncio.gather(*asking)

    assert beyond == [NO_ACCESS] * 3
    assert beyond_s < 0.9, beyond_s
    assert asked == [NO_ACCESS] * 2
    assert len(hanging.requests) == 2


async def test_a_failing_provider_is_left_alone_for_the_cool_down_then_probed(
    start_api: StartApi, bus: Bus, healthy: Provider
) -> None:
    api = await started(
        start_api,
        permission_provider_breaker_failures=3,
        permission_provider_breaker_cooldown_s=1.0,
        permission_provider_failure_cache_ttl_s=0,
    )
    ws = await with_documents(api)
    await switched_on(api, ws, healthy.url)
    healthy.roles[("member", "open")] = "editor"
    working = healthy.answer
    healthy.answer = unavailable

    failing = [await answer_of(bus, ws, "member") for _ in range(3)]
    asked_while_failing = len(healthy.requests)
    healthy.answer = working
    while_open = [await answer_of(bus, ws, "member") for _ in range(3)]
    asked_while_open = len(healthy.requests)
    await asyncio.sleep(1.2)
    probed = await answer_of(bus, ws, "member")
    closed_again = await answer_of(bus, ws, "member")

    assert failing == [NO_ACCESS] * 3
    assert while_open == [NO_ACCESS] * 3
    assert (asked_while_failing, asked_while_open) == (3, 3)
    assert probed == closed_again == AccessDecision("editor", "public", "provider")
    assert len(healthy.requests) == 5


async def test_a_failed_probe_keeps_the_provider_alone_for_another_cool_down(
    start_api: StartApi, bus: Bus, healthy: Provider
) -> None:
    api = await started(
        start_api,
        permission_provider_breaker_failures=2,
        permission_provider_breaker_cooldown_s=1.0,
        permission_provider_failure_cache_ttl_s=0,
    )
    ws = await with_documents(api)
    await switched_on(api, ws, healthy.url)
    healthy.answer = unavailable

    for _ in range(2):
        await answer_of(bus, ws, "member")
    await asyncio.sleep(1.2)
    await answer_of(bus, ws, "member")  # the probe, which fails
    after_probe = [await answer_of(bus, ws, "member") for _ in range(3)]

    assert len(healthy.requests) == 3
    assert after_probe == [NO_ACCESS] * 3


async def test_a_changed_provider_address_is_asked_at_once(
    start_api: StartApi, bus: Bus, hanging: Provider, healthy: Provider
) -> None:
    api = await started(
        start_api,
        permission_provider_breaker_failures=1,
        permission_provider_breaker_cooldown_s=60,
    )
    ws = await with_documents(api)
    await switched_on(api, ws, hanging.url)
    refused = await answer_of(bus, ws, "member")
    healthy.roles[("member", "open")] = "viewer"

    await switched_on(api, ws, healthy.url)
    fixed = await answer_of(bus, ws, "member")

    assert refused == NO_ACCESS
    assert fixed == AccessDecision("viewer", "public", "provider")


async def test_a_failed_answer_is_remembered_for_the_failure_cache_time(
    start_api: StartApi, bus: Bus, healthy: Provider
) -> None:
    api = await started(start_api, permission_provider_failure_cache_ttl_s=60)
    ws = await with_documents(api)
    await switched_on(api, ws, healthy.url)
    healthy.answer = unavailable
    first = await answer_of(bus, ws, "member")
    healthy.answer = healthy.decide
    healthy.roles[("member", "open")] = "editor"
    healthy.roles[("other", "open")] = "editor"

    remembered = await answer_of(bus, ws, "member")
    other_user = await answer_of(bus, ws, "other")
    await switched_on(api, ws, healthy.url, token="rotated")
    new_settings = await answer_of(bus, ws, "member")

    assert first == remembered == NO_ACCESS
    assert other_user == new_settings == AccessDecision("editor", "public", "provider")
    assert [r[0]["data"]["requests"][0]["userId"] for r in healthy.requests] == [
        "member",
        "other",
        "member",
    ]

"""The permission provider: its settings (/v2/workspace/permissionproviderconfig/get|update), and
access decided by the customer's endpoint while it is on, asked through the address guard, cached
for seconds, and refused whenever the endpoint does not answer well. The endpoint is a real HTTP
server on this machine, let past the guard by the allow-list setting."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web

from redline.bus import Bus
from redline.testing.api import ApiClient, StartApi, Workspace, assert_failure, issue_paths
from tests.api.config_support import call, ok
from tests.api.permissions_support import check
from tests.api.provider_support import (
    CONFIG,
    Answer,
    Provider,
    provider_server,
    started,
    switched_on,
    with_documents,
)


@pytest.fixture
async def provider() -> AsyncIterator[Provider]:
    async with provider_server() as endpoint:
        yield endpoint


# settings --------------------------------------------------------------------------------------


async def test_settings_start_off_and_merge(start_api: StartApi, provider: Provider) -> None:
    api = await started(start_api)
    ws = await api.create_workspace("pp-settings@example.com")
    default = await ok(api, ws, f"{CONFIG}/get")

    on = await ok(api, ws, f"{CONFIG}/update", {"usePermissionProvider": True})
    await switched_on(api, ws, provider.url)
    moved = await ok(
        api,
        ws,
        f"{CONFIG}/update",
        {"permissionProviderConfig": {"permissionProviderUrl": provider.url + "?v=2"}},
    )

    empty = {"permissionProviderUrl": "", "authToken": ""}
    assert default == {"usePermissionProvider": False, "permissionProviderConfig": empty}
    assert on == {"usePermissionProvider": True, "permissionProviderConfig": empty}
    assert moved == {
        "usePermissionProvider": True,
        "permissionProviderConfig": {
            "permissionProviderUrl": provider.url + "?v=2",
            "authToken": "pp-secret",
        },
    }
    assert await ok(api, ws, f"{CONFIG}/get") == moved


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({}, "data"),
        ({"usePermissionProvider": "yes"}, "data.usePermissionProvider"),
        (
            {"permissionProviderConfig": {"permissionProviderUrl": "ftp://x.example.com"}},
            "data.permissionProviderConfig.permissionProviderUrl",
        ),
        (
            {"permissionProviderConfig": {"permissionProviderUrl": "https://localhost/x"}},
            "data.permissionProviderConfig.permissionProviderUrl",
        ),
        (
            {"permissionProviderConfig": {"permissionProviderUrl": "http://10.0.0.7/x"}},
            "data.permissionProviderConfig.permissionProviderUrl",
        ),
        (
            {"permissionProviderConfig": {"authToken": "line\nbreak"}},
            "data.permissionProviderConfig.authToken",
        ),
        ({"permissionProviderConfig": {"url": "https://x.example.com"}}, None),
    ],
)
async def test_invalid_settings_are_refused_naming_the_field(
    api: ApiClient, data: dict[str, Any], path: str | None
) -> None:
    ws = await api.create_workspace("pp-invalid@example.com")

    error = assert_failure(await call(api, ws, f"{CONFIG}/update", data), 400, "INVALID_ARGUMENT")

    assert issue_paths(error) == [path or "data.permissionProviderConfig.url"]
    assert (await ok(api, ws, f"{CONFIG}/get"))["usePermissionProvider"] is False


async def test_settings_belong_to_one_key_and_its_own_credentials(api: ApiClient) -> None:
    a = await api.create_workspace("pp-a@example.com")
    b = await api.create_workspace("pp-b@example.com")
    await switched_on(api, a, "https://perms.example.com/check")

    assert (await ok(api, b, f"{CONFIG}/get"))["usePermissionProvider"] is False
    user_token = (await ok(api, a, "/v2/auth/generate_token", {"userId": "u"}))["token"]
    for path in (f"{CONFIG}/get", f"{CONFIG}/update"):
        body = {"usePermissionProvider": False}
        as_user = {"x-redline-api-key": a.api_key, "x-redline-auth-token": user_token}
        assert_failure(await api.post(path, body, headers=as_user), 403, "PERMISSION_DENIED")
        assert_failure(
            await api.post(path, body, headers=a.workspace_headers), 400, "INVALID_ARGUMENT"
        )
    assert (await ok(api, a, f"{CONFIG}/get"))["usePermissionProvider"] is True


# deciding access ---------------------------------------------------------------------------------


async def test_the_provider_decides_while_on_and_redlines_grants_decide_again_when_off(
    start_api: StartApi, provider: Provider, bus: Bus
) -> None:
    api = await started(start_api)
    ws = await with_documents(api)
    provider.roles = {("member", "open"): None, ("stranger", "open"): "viewer"}
    before = await check(bus, ws, "org", "open", "member")

    await switched_on(api, ws, provider.url)
    member = await check(bus, ws, "org", "open", "member")
    stranger = await check(bus, ws, "org", "open", "stranger")
    provider.roles[("member", "open")] = "editor"
    member_now = await check(bus, ws, "org", "open", "member")
    await ok(api, ws, f"{CONFIG}/update", {"usePermissionProvider": False})
    after = await check(bus, ws, "org", "open", "stranger")

    assert before.role == "editor"
    assert (member.role, member.via) == (None, "provider")
    assert (stranger.role, stranger.via) == ("viewer", "provider")
    assert member_now.role == "editor"
    assert after.via != "provider"
    assert len(provider.requests) == 3
    body, headers = provider.requests[0]
    assert body == {
        "data": {
            "requests": [
                {
                    "userId": "member",
                    "resource": {
                        "type": "document",
                        "id": "open",
                        "source": "setDocuments",
                        "organizationId": "org",
                        "parentFolderId": "f",
                    },
                }
            ]
        }
    }
    assert headers["Authorization"] == "Bearer pp-secret"


async def test_a_user_tokens_comment_calls_follow_the_provider(
    start_api: StartApi, provider: Provider
) -> None:
    api = await started(start_api)
    ws = await with_documents(api)
    await switched_on(api, ws, provider.url)
    provider.roles = {("writer", "open"): "editor", ("outsider", "open"): None}

    answers = {}
    for user in ("writer", "outsider"):
        token = (await ok(api, ws, "/v2/auth/generate_token", {"userId": user}))["token"]
        comment = {"from": {"userId": user}, "commentText": f"{user} was here"}
        answers[user] = await api.post(
            "/v2/commentannotations/add",
            {
                "organizationId": "org",
                "documentId": "open",
                "commentAnnotations": [{"commentData": [comment]}],
            },
            headers={"x-redline-api-key": ws.api_key, "x-redline-auth-token": token},
        )

    assert answers["writer"].status == 200, answers["writer"].body
    assert_failure(answers["outsider"], 403, "PERMISSION_DENIED")
    listed = await ok(
        api, ws, "/v2/commentannotations/get", {"organizationId": "org", "documentId": "open"}
    )
    texts = [c["commentText"] for a in listed for c in a["comments"]]
    assert texts == ["writer was here"]


def answering(status: int = 200, body: bytes = b"[]", delay_s: float = 0) -> Answer:
    async def answer(request: dict[str, Any]) -> web.StreamResponse:
        await asyncio.sleep(delay_s)
        return web.Response(status=status, body=body, content_type="application/json")

    return answer


def granting(**changes: Any) -> Answer:
    """Grants `member` editor on `open`, the decision changed by `changes` (a key set to
    None is left out)."""

    async def answer(request: dict[str, Any]) -> web.StreamResponse:
        result = {"userId": "member", "resourceId": "open", "type": "document", "hasAccess": True}
        result.update(changes)
        return web.json_response([{k: v for k, v in result.items() if v is not None}])

    return answer


@pytest.mark.parametrize(
    "answer",
    [
        answering(status=500, body=b'[{"userId": "member"}]'),
        answering(status=302),
        answering(body=b"not json"),
        answering(body=b'{"success": false, "statusCode": 200, "data": []}'),
        answering(body=b"[]"),
        answering(delay_s=2),
        granting(resourceId="another"),
        granting(organizationId="other-org"),
        granting(hasAccess="yes"),
        granting(accessRole="owner"),
        granting(expiresAt=1000),
    ],
    ids=[
        "server-error",
        "redirect",
        "not-json",
        "unsuccessful",
        "no-decision",
        "too-slow",
        "other-document",
        "other-organization",
        "not-a-boolean",
        "unknown-role",
        "expired",
    ],
)
async def test_any_bad_answer_means_no_access(
    start_api: StartApi, provider: Provider, bus: Bus, answer: Answer
) -> None:
    api = await started(start_api)
    ws = await with_documents(api)
    await switched_on(api, ws, provider.url)
    provider.answer = answer

    decision = await check(bus, ws, "org", "open", "member")

    assert (decision.role, decision.via) == (None, "provider")
    assert len(provider.requests) == 1


async def test_a_provider_that_does_not_listen_means_no_access(
    start_api: StartApi, provider: Provider, bus: Bus
) -> None:
    api = await started(start_api)
    ws = await with_documents(api)
    await switched_on(api, ws, "http://127.0.0.1:9/nobody-here")

    decision = await check(bus, ws, "org", "open", "member")

    assert (decision.role, decision.via) == (None, "provider")


async def test_switched_on_without_an_address_nobody_gets_in(start_api: StartApi, bus: Bus) -> None:
    api = await started(start_api)
    ws = await with_documents(api)
    await ok(api, ws, f"{CONFIG}/update", {"usePermissionProvider": True})

    decision = await check(bus, ws, "org", "open", "member")

    assert (decision.role, decision.via) == (None, "provider")


async def test_decisions_signed_by_generate_signature_are_taken_and_forged_ones_refused(
    start_api: StartApi, provider: Provider, bus: Bus
) -> None:
    api = await started(start_api)
    ws = await with_documents(api)
    await switched_on(api, ws, provider.url)
    decisions = [{"userId": "member", "resourceId": "open", "type": "document", "hasAccess": True}]
    signed = await ok(api, ws, "/v2/auth/generate_signature", {"permissions": decisions})

    def wrapped(signature: str) -> Answer:
        async def answer(request: dict[str, Any]) -> web.StreamResponse:
            body = {"success": True, "statusCode": 200, "data": decisions, "signature": signature}
            return web.json_response(body)

        return answer

    provider.answer = wrapped(signed["signature"])
    good = await check(bus, ws, "org", "open", "member")
    provider.answer = wrapped("0" * 64)
    forged = await check(bus, ws, "org", "open", "member")

    assert good.role == "editor"
    assert forged.role is None


async def test_decisions_are_reused_for_the_cache_time_and_a_settings_change_asks_afresh(
    start_api: StartApi, provider: Provider, bus: Bus
) -> None:
    api = await started(start_api, cache_ttl_s=60)
    ws = await with_documents(api)
    await switched_on(api, ws, provider.url)
    provider.roles[("member", "open")] = "viewer"

    first = await check(bus, ws, "org", "open", "member")
    provider.roles[("member", "open")] = None
    cached = await check(bus, ws, "org", "open", "member")
    other_user = await check(bus, ws, "org", "open", "someone")
    await switched_on(api, ws, provider.url, token="rotated")
    fresh = await check(bus, ws, "org", "open", "member")

    assert (first.role, cached.role, other_user.role, fresh.role) == (
        "viewer",
        "viewer",
        None,
        None,
    )
    assert [r[0]["data"]["requests"][0]["userId"] for r in provider.requests] == [
        "member",
        "someone",
        "member",
    ]
    assert provider.requests[-1][1]["Authorization"] == "Bearer rotated"


async def test_without_a_failure_cache_time_failures_are_not_remembered(
    start_api: StartApi, provider: Provider, bus: Bus
) -> None:
    api = await started(start_api, cache_ttl_s=60, permission_provider_failure_cache_ttl_s=0)
    ws = await with_documents(api)
    await switched_on(api, ws, provider.url)
    provider.answer = answering(status=503)
    refused = await check(bus, ws, "org", "open", "member")
    provider.answer = provider.decide
    provider.roles[("member", "open")] = "editor"

    recovered = await check(bus, ws, "org", "open", "member")

    assert (refused.role, recovered.role) == (None, "editor")
    assert len(provider.requests) == 2


async def test_one_keys_provider_never_decides_for_another_workspace(
    start_api: StartApi, provider: Provider, bus: Bus
) -> None:
    api = await started(start_api)
    a = await with_documents(api)
    b = await with_documents(api)
    await switched_on(api, a, provider.url)

    decision = await check(bus, b, "org", "open", "member")

    assert (decision.role, decision.via) != (None, "provider")
    assert decision.role == "editor"
    assert provider.requests == []


async def test_a_copied_key_asks_the_same_provider_with_the_same_token(
    start_api: StartApi, provider: Provider, bus: Bus
) -> None:
    api = await started(start_api)
    ws = await with_documents(api)
    await switched_on(api, ws, provider.url, token="shared-secret")
    created = await api.post(
        "/v2/workspace/apikey/create", {"apiKeyName": "copy"}, headers=ws.workspace_headers
    )
    target = Workspace(ws.id, ws.token, created.data["apiKey"], created.data["authToken"], ws.body)
    await api.post(
        "/v2/workspace/apikey/copy",
        {"sourceApiKey": ws.api_key, "targetApiKey": target.api_key},
        headers=ws.workspace_headers,
    )
    provider.roles[("member", "open")] = "viewer"

    decision = await check(bus, target, "org", "open", "member")

    assert await ok(api, target, f"{CONFIG}/get") == await ok(api, ws, f"{CONFIG}/get")
    assert (decision.role, decision.via) == ("viewer", "provider")
    assert provider.requests[0][1]["Authorization"] == "Bearer shared-secret"

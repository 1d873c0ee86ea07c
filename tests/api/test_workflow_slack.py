"""Slack credentials per API key: each key sets its own bot token (sealed, never read back),
its notification nodes post to channel ids with it and with no other, and the operator's token
stands in for keys without one only when the operator shares it. Slack's Web API is played by a
real HTTPS server on this machine."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import msgspec
import pytest
from aiohttp import web

from redline.testing.api import ApiClient, assert_failure
from redline.testing.receiver import Received, WebhookReceiver
from tests.api.workflow_support import Workflow, definition

Json = dict[str, Any]
StartApi = Any

OPERATOR_TOKEN = "xoxb-operator-0000-shared"
TENANT_TOKEN = "xoxb-1111-2222-tenantA9f3a"
NO_TOKEN = {"botTokenSet": False, "botTokenHint": None, "updatedAt": None}


class SlackApi(WebhookReceiver):
    """Slack's Web API as `chat.postMessage` answers: ok, with the channel posted to."""

    async def _receive(self, request: web.Request) -> web.Response:
        body = await request.read()
        self.requests.append(Received(request.path, dict(request.headers), body, time.monotonic()))
        channel = msgspec.json.decode(body).get("channel")
        answer = {"ok": True, "channel": channel, "ts": "1700000000.000100"}
        return web.json_response(answer)


@pytest.fixture
async def slack(tmp_path: Path) -> AsyncIterator[SlackApi]:
    server = SlackApi(tmp_path / "slack-tls")
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def slack_api(start_api: StartApi, slack: SlackApi, **settings: Any) -> ApiClient:
    api: ApiClient = await start_api(
        slack_api_url=slack.url("/api"),
        slack_bot_token=OPERATOR_TOKEN,
        webhook_allow=["127.0.0.1"],
        webhook_ca_file=str(slack.ca_file),
        **settings,
    )
    return api


def announcing(definition_id: str, channel: str) -> Json:
    node = {
        "nodeId": "announce",
        "type": "notification",
        "config": {"channel": "slack", "slackTarget": channel, "bodyTemplate": "Shipped."},
    }
    return definition(definition_id, [node], [])


async def announce(flow: Workflow, channel: str) -> Json:
    await flow.create(announcing("announce", channel))
    return await flow.ended(await flow.dispatch("announce"))


def failure(execution: Json) -> Json:
    [step] = execution["steps"]
    assert step["status"] == "failed", execution
    error: Json = step["error"]
    return error


async def test_a_key_sets_its_bot_token_and_reads_back_only_a_hint(
    api: ApiClient, db: asyncpg.Connection
) -> None:
    flow = Workflow(api, await api.create_workspace())
    assert await flow.ok("slack/config/get", {}) == NO_TOKEN

    updated = await flow.call("slack/config/update", {"botToken": TENANT_TOKEN})
    got = await flow.call("slack/config/get", {})

    assert updated.status == got.status == 200
    assert got.result == updated.result
    assert got.result["botTokenSet"] is True
    assert got.result["botTokenHint"] == "xoxb-…9f3a"
    assert isinstance(got.result["updatedAt"], int)
    for response in (updated, got):
        assert TENANT_TOKEN not in msgspec.json.encode(response.body).decode()
    # Stored sealed: the token's bytes are nowhere in the row.
    row = await db.fetchrow("SELECT * FROM workflow.slack_credential")
    assert row is not None
    assert all(TENANT_TOKEN.encode() not in str(value).encode() for value in row.values())
    assert TENANT_TOKEN.encode() not in row["bot_token_sealed"]
    # Another key sees nothing of it.
    other = Workflow(api, await api.create_workspace("other@example.com"))
    assert await other.ok("slack/config/get", {}) == NO_TOKEN
    # null removes it.
    assert await flow.ok("slack/config/update", {"botToken": None}) == NO_TOKEN
    assert await flow.ok("slack/config/get", {}) == NO_TOKEN


async def test_a_bot_token_that_is_not_one_is_refused(api: ApiClient) -> None:
    flow = Workflow(api, await api.create_workspace())
    for token in ("", "not-a-token", "xoxb-", "xoxb-abc def", "xoxb-é" * 3, "xoxb-" + "a" * 300):
        response = await flow.call("slack/config/update", {"botToken": token})
        assert_failure(response, 400, "INVALID_ARGUMENT")
    assert_failure(await flow.call("slack/config/update", {}), 400, "INVALID_ARGUMENT")
    assert await flow.ok("slack/config/get", {}) == NO_TOKEN


async def test_the_endpoints_are_in_the_openapi_document(api: ApiClient) -> None:
    async with api.session.get(api.base_url + "/openapi.json") as response:
        document = await response.json()
    assert {"/v2/workflow/slack/config/update", "/v2/workflow/slack/config/get"} <= set(
        document["paths"]
    )


async def test_a_keys_nodes_post_with_its_own_token_and_never_the_operators(
    start_api: StartApi, slack: SlackApi
) -> None:
    api = await slack_api(start_api, slack)
    tenant = Workflow(api, await api.create_workspace())
    await tenant.ok("slack/config/update", {"botToken": TENANT_TOKEN})
    stranger = Workflow(api, await api.create_workspace("stranger@example.com"))

    posted = await announce(tenant, "C0TENANT")
    refused = await announce(stranger, "C0TENANT")

    assert posted["status"] == "completed", posted
    [request] = slack.requests
    assert request.path == "/api/chat.postMessage"
    assert request.headers["Authorization"] == f"Bearer {TENANT_TOKEN}"
    assert request.json() == {"text": "Shipped.", "channel": "C0TENANT"}
    # The key without a token of its own gets no post, with the operator's token or any other.
    assert failure(refused)["code"] == "slack-bot-token-not-configured"
    assert len(slack.requests) == 1


async def test_the_operators_token_posts_for_keys_without_one_only_when_shared(
    start_api: StartApi, slack: SlackApi
) -> None:
    api = await slack_api(start_api, slack, slack_bot_token_shared=True)
    flow = Workflow(api, await api.create_workspace())

    posted = await announce(flow, "C0OPS")

    assert posted["status"] == "completed", posted
    [request] = slack.requests
    assert request.headers["Authorization"] == f"Bearer {OPERATOR_TOKEN}"
    # A key's own token still wins over the shared one.
    await flow.ok("slack/config/update", {"botToken": TENANT_TOKEN})
    await flow.ended(await flow.dispatch("announce"))
    assert slack.requests[-1].headers["Authorization"] == f"Bearer {TENANT_TOKEN}"

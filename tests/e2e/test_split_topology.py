"""The production topology on one machine: each service in a process of its own behind the
gateway, talking to the others only over NATS (`redline up --split`, started once per session).

What the all-in-one app cannot show is proved here: the RPC auth backend, the grants a user token
carries over RPC, the access checks comments asks of identity, and each service's own app.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from redline.runtime.routing import SERVICES
from redline.testing.api import ApiClient, Workspace
from redline.testing.receiver import WebhookReceiver
from redline.testing.split import SplitSystem
from tests.api.activity_support import enable as enable_activity
from tests.api.activity_support import wait_for as activity_records
from tests.api.knowledge_support import ingest, inline, search, settled
from tests.api.workflow_support import Workflow, definition, edge, human, mock_agent
from tests.e2e.webhook_flows import add_annotations, comment, enable_webhooks, notified


@pytest.fixture
async def api(split_system: SplitSystem) -> AsyncIterator[ApiClient]:
    async with aiohttp.ClientSession() as session:
        yield ApiClient(session, split_system.base_url)


@pytest.fixture
async def receiver(split_system: SplitSystem, tmp_path: Path) -> AsyncIterator[WebhookReceiver]:
    server = WebhookReceiver(tmp_path / "receiver-tls", ca=split_system.receiver_ca)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


@pytest.fixture
async def ws(api: ApiClient) -> Workspace:
    return await api.create_workspace("split@example.com")


async def test_every_service_answers_through_the_gateway(api: ApiClient) -> None:
    ready = await api.session.get(api.base_url + "/readyz")
    assert ready.status == 200
    body = await ready.json()
    assert body["services"] == dict.fromkeys(SERVICES, True)
    assert body["checks"] == {"database": True, "nats": True, "background": True}
    document = await (await api.session.get(api.base_url + "/openapi.json")).json()
    prefixes = {"/".join(path.split("/")[:3]) for path in document["paths"]}
    assert {"/v2/workspace", "/v2/commentannotations", "/v2/activities", "/v2/memory"} <= prefixes
    assert "/v2/workflow" in prefixes


async def test_a_comment_reaches_the_webhook_receiver_and_the_activity_log(
    api: ApiClient, ws: Workspace, receiver: WebhookReceiver
) -> None:
    await enable_webhooks(api, ws, receiver, processed=False)
    await enable_activity(api, ws)
    said = comment(text="Split hello", triggerActivities=True)
    await add_annotations(api, ws, notified(said, annotationId="a1"))
    await receiver.wait_for(1, path="/raw", timeout_s=30)
    [delivery] = receiver.delivered("/raw")
    assert delivery.json()["webhookId"].startswith("msg_")
    [record] = await activity_records(api, ws, 1, timeout_s=30)
    assert record["targetEntityId"] == "a1"


async def test_a_user_token_acts_within_its_grants_through_identity_over_rpc(
    api: ApiClient, ws: Workspace
) -> None:
    await add_annotations(api, ws, {"commentData": [comment(text="setup")]})
    granted = await api.post(
        "/v2/users/add",
        {
            "organizationId": "acme",
            "users": [
                {"userId": "ed", "accessRole": "editor"},
                {"userId": "vi", "accessRole": "viewer"},
            ],
        },
        headers=ws.key_headers,
    )
    assert granted.status == 200, granted.body

    async def add_as(user_id: str) -> int:
        made = await api.post(
            "/v2/auth/generate_token", {"userId": user_id}, headers=ws.key_headers
        )
        assert made.status == 200, made.body
        headers = {"x-redline-api-key": ws.api_key, "x-redline-auth-token": made.data["token"]}
        added = await api.post(
            "/v2/commentannotations/add",
            {
                "organizationId": "acme",
                "documentId": "d1",
                "commentAnnotations": [{"commentData": [comment(user_id)]}],
            },
            headers=headers,
        )
        return added.status

    # Comments asks identity, over RPC, what each token's user may do on the document.
    assert await add_as("ed") == 200
    assert await add_as("vi") == 403


async def test_an_ingested_file_is_found_by_search(api: ApiClient, ws: Workspace) -> None:
    text = b"Refunds are paid within fourteen days of a written request."
    source_id = await ingest(api, ws, inline(text, "text/plain", "refunds.txt"))
    status = await settled(api, ws, source_id)
    assert status["status"] == "completed", status
    found = await search(api, ws, "how long do refunds take")
    assert found["results"][0]["sourceId"] == source_id


async def test_a_workflow_approval_completes_its_execution(api: ApiClient, ws: Workspace) -> None:
    flow = Workflow(api, ws)
    await flow.create(
        definition(
            "split-review",
            [human("review", ("rita", True)), mock_agent("ship"), mock_agent("fix")],
            [edge("review", "ship", "approve"), edge("review", "fix", "reject")],
        )
    )
    execution_id = await flow.dispatch("split-review")
    step_id = await flow.waiting_step(execution_id, "review")
    decided = await flow.decide(execution_id, step_id, "rita", "approve")
    assert decided["recorded"] is True
    execution = await flow.ended(execution_id, timeout_s=30)
    assert execution["status"] == "completed"
    types = [event["type"] for event in await flow.events(execution_id)]
    assert types[0] == "execution.dispatched"
    assert types[-1] == "execution.completed"
